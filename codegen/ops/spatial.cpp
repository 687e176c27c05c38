#include "ops/spatial.h"

#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "support/checked.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

std::string list_str(const std::vector<int64_t>& v) { return fmt::format("[{}]", fmt::join(v, ",")); }

// An attribute of `n` positive values (default: all `def`).
std::vector<int64_t> positive_ints(const Attrs& a, const std::string& name, size_t n, int64_t def) {
  std::vector<int64_t> v = a.get_ints(name, std::vector<int64_t>(n, def));
  if (v.size() != n)
    fail("attribute {} has {} values; the input has {} spatial axes", name, v.size(), n);
  for (int64_t x : v)
    if (x < 1) fail("attribute {} {} must be positive", name, list_str(v));
  return v;
}

// (kernel - 1) * dilation + 1 cells, checked.
int64_t window_cells(int64_t kernel, int64_t dilation) {
  std::optional<int64_t> span = mul_i64(kernel - 1, dilation);
  std::optional<int64_t> window = span ? add_i64(*span, 1) : std::nullopt;
  if (!window) fail("the window (kernel {}, dilation {}) spans more cells than fit in 64 bits", kernel, dilation);
  return *window;
}

int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }  // a >= 0, b > 0

}  // namespace

int64_t window_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin,
                           int64_t pad_end, bool ceil_mode) {
  const int64_t window = window_cells(kernel, dilation);
  std::optional<int64_t> left = add_i64(in, pad_begin);
  std::optional<int64_t> padded = left ? add_i64(*left, pad_end) : std::nullopt;
  if (!padded)
    fail("the padded input ({} + {} + {} cells) has more cells than fit in 64 bits", in, pad_begin, pad_end);
  const int64_t span = *padded - window;  // both operands are non-negative: no overflow
  if (span < 0)
    fail("the window (kernel {}, dilation {}: {} cells) is larger than the padded input ({} + {} + {} cells)", kernel,
         dilation, window, in, pad_begin, pad_end);
  int64_t out = (ceil_mode ? ceil_div(span, stride) : span / stride) + 1;
  // ceil_mode may add a window; it counts only if it starts inside the input
  // or the left padding. (out - 1) * stride <= span + stride - 1 may not fit:
  // then it certainly starts beyond.
  if (ceil_mode) {
    std::optional<int64_t> start = mul_i64(out - 1, stride);
    if (!start || *start >= *left) --out;
  }
  return out;
}

std::array<int64_t, 2> same_pads(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, bool upper) {
  const int64_t window = window_cells(kernel, dilation);
  const int64_t out = ceil_div(in, stride);
  // (out - 1) * stride <= in - 1, so the total is at most window - 1.
  const int64_t total = std::max<int64_t>(0, window - (in - (out - 1) * stride));
  const int64_t small = total / 2, big = total - small;
  return upper ? std::array<int64_t, 2>{small, big} : std::array<int64_t, 2>{big, small};
}

Geometry resolve_geometry(const Attrs& attrs, const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                          const GeometryRules& rules) {
  const size_t n = in.size();
  Geometry g;
  g.in = in;
  if (attrs.has("kernel_shape")) {
    g.kernel = positive_ints(attrs, "kernel_shape", n, 1);
    if (!kernel.empty() && g.kernel != kernel)
      fail("attribute kernel_shape {} does not match the weights' spatial shape {}", list_str(g.kernel),
           list_str(kernel));
  } else if (!kernel.empty()) {
    g.kernel = kernel;
  } else {
    fail("attribute kernel_shape is required");
  }
  g.strides = positive_ints(attrs, "strides", n, 1);
  if (rules.dilations) {
    g.dilations = positive_ints(attrs, "dilations", n, 1);
  } else {
    g.dilations.assign(n, 1);
    if (attrs.has("dilations") && attrs.get_ints("dilations") != g.dilations)
      fail("attribute dilations is not supported by this operator");
  }
  if (rules.ceil_mode) {
    const int64_t c = attrs.get_int("ceil_mode", 0);
    if (c != 0 && c != 1) fail("attribute ceil_mode is {}; it must be 0 or 1", c);
    g.ceil_mode = c == 1;
  }

  const std::string auto_pad = attrs.get_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    g.pads = attrs.get_ints("pads", std::vector<int64_t>(2 * n, 0));
    if (g.pads.size() != 2 * n)
      fail("attribute pads has {} values; {} spatial axes need {} (begins, then ends)", g.pads.size(), n, 2 * n);
    for (int64_t p : g.pads)
      if (p < 0) fail("attribute pads {} must not be negative", list_str(g.pads));
    if (rules.pads_below_window)
      for (size_t i = 0; i < n; ++i) {
        const int64_t window = window_cells(g.kernel[i], g.dilations[i]);
        if (g.pads[i] >= window || g.pads[n + i] >= window)
          fail("attribute pads {} must be smaller than the window ({} cells on axis {}: kernel_shape {}{}); a larger "
               "pad makes windows of padding alone",
               list_str(g.pads), window, i, list_str(g.kernel),
               g.dilations[i] == 1 ? std::string() : fmt::format(", dilations {}", list_str(g.dilations)));
      }
  } else if (auto_pad == "VALID" || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    // ONNX forbids pads with auto_pad; all-zero pads, which some exporters
    // write anyway, say nothing and are accepted.
    for (int64_t p : attrs.get_ints("pads", {}))
      if (p != 0) fail("attribute pads cannot be used together with auto_pad {}", auto_pad);
    g.pads.assign(2 * n, 0);
    if (auto_pad != "VALID")
      for (size_t i = 0; i < n; ++i) {
        auto p = same_pads(in[i], g.kernel[i], g.strides[i], g.dilations[i], auto_pad == "SAME_UPPER");
        g.pads[i] = p[0];
        g.pads[n + i] = p[1];
      }
  } else {
    fail("attribute auto_pad '{}' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID", auto_pad);
  }

  for (size_t i = 0; i < n; ++i)
    g.out.push_back(window_output_size(in[i], g.kernel[i], g.strides[i], g.dilations[i], g.pads[i], g.pads[n + i],
                                       g.ceil_mode));
  return g;
}

void store_geometry(Attrs& attrs, const Geometry& g, const GeometryRules& rules) {
  attrs.set("kernel_shape", g.kernel);
  attrs.set("strides", g.strides);
  if (rules.dilations) attrs.set("dilations", g.dilations);
  attrs.set("pads", g.pads);
  attrs.erase("auto_pad");
}

Geometry3 to_3d(const Geometry& g) {
  Geometry3 r{};
  const int lead = kMaxSpatial - g.rank();
  if (lead < 0) fail("internal: {} spatial axes; at most {} are supported", g.rank(), kMaxSpatial);
  for (int i = 0; i < kMaxSpatial; ++i) {
    const int k = i - lead;
    const bool real = k >= 0;
    const size_t s = static_cast<size_t>(real ? k : 0);
    r.in[i] = real ? g.in[s] : 1;
    r.out[i] = real ? g.out[s] : 1;
    r.kernel[i] = real ? g.kernel[s] : 1;
    r.stride[i] = real ? g.strides[s] : 1;
    r.dilation[i] = real ? g.dilations[s] : 1;
    r.pad_begin[i] = real ? g.pad_begin(k) : 0;
    r.pad_end[i] = real ? g.pad_end(k) : 0;
  }
  return r;
}

std::vector<int64_t> spatial_of(const std::vector<int64_t>& shape) {
  if (shape.size() < 2) return {};
  return std::vector<int64_t>(shape.begin() + 2, shape.end());
}

}  // namespace mlipc::ops
