// The template values every sliding-window kernel (Conv, MaxPool,
// AveragePool) shares: per-axis geometry and the plane sizes.
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "c/kernels/kernels.h"

namespace mlipc::c::kernels {

void set_window(KernelSpec& spec, const ops::Geometry3& geo) {
  // Products as single literals: C evaluates `a * b` of literals in int.
  spec.set("ISIZE", geo.in[0] * geo.in[1] * geo.in[2]);
  spec.set("OSIZE", geo.out[0] * geo.out[1] * geo.out[2]);
  const char* axes[] = {"D", "H", "W"};
  for (int i = 0; i < ops::kMaxSpatial; ++i) {
    const std::string a = axes[i];
    spec.set("I" + a, geo.in[i]);
    spec.set("O" + a, geo.out[i]);
    spec.set("K" + a, geo.kernel[i]);
    spec.set("S" + a, geo.stride[i]);
    spec.set("D" + a, geo.dilation[i]);
    spec.set("P" + a, geo.pad_begin[i]);
  }
}

void set_strides(KernelSpec& spec, const std::string& prefix, const Shape& shape, bool channels_last) {
  int64_t sp[ops::kMaxSpatial] = {1, 1, 1};
  const size_t ns = shape.size() - 2;
  for (size_t i = 0; i < ns; ++i) sp[ops::kMaxSpatial - ns + i] = shape[2 + i];
  const int64_t c = shape[1], plane = sp[0] * sp[1] * sp[2];
  const int64_t pix = channels_last ? c : 1;  // between neighbouring positions
  spec.set(prefix + "N", c * plane);
  spec.set(prefix + "C", channels_last ? 1 : plane);
  spec.set(prefix + "W", pix);
  spec.set(prefix + "H", pix * sp[2]);
  spec.set(prefix + "D", pix * sp[2] * sp[1]);
}

namespace {

// Runs of output positions along one axis whose window reads the same taps
// inside the input: {o0, o1, k0, k1}.
std::vector<std::array<int64_t, 4>> bands(const ops::Geometry3& geo, int a) {
  std::vector<std::array<int64_t, 4>> out;
  for (int64_t o = 0; o < geo.out[a]; ++o) {
    int64_t k0 = 0, k1 = 0;
    for (int64_t k = 0; k < geo.kernel[a]; ++k) {
      const int64_t i = o * geo.stride[a] - geo.pad_begin[a] + k * geo.dilation[a];
      if (i < 0 || i >= geo.in[a]) continue;
      if (k1 == k0) k0 = k;
      k1 = k + 1;
    }
    if (!out.empty() && out.back()[1] == o && out.back()[2] == k0 && out.back()[3] == k1) out.back()[1] = o + 1;
    else out.push_back({o, o + 1, k0, k1});
  }
  return out;
}

}  // namespace

bool set_pool_cl(const Graph& g, const Node& n, KernelSpec& spec, const ops::Geometry3& geo) {
  const Shape& x = g.value(n.inputs[0]).shape;
  const Shape& y = g.value(n.outputs[0]).shape;
  if (numel(y) == 0 || n.outputs.size() != 1) return false;
  spec.layouts = {{0}, {}, true};
  if (!spec.input_cl(0) && !spec.output_cl(0)) return false;
  spec.template_name = "pool_cl.c";
  spec.set("op", n.op);
  spec.set("N", x[0]);
  spec.set("C", x[1]);
  spec.set("CB", spec.input_cl(0) ? x[1] : std::min<int64_t>(x[1], 16));  // pool_cl.c's channels per pass
  set_window(spec, geo);
  set_strides(spec, "X", x, spec.input_cl(0));
  set_strides(spec, "Y", y, spec.output_cl(0));
  set_rectangles(spec, geo);
  const char* axes[] = {"D", "H", "W"};
  for (int i = 0; i < ops::kMaxSpatial; ++i)
    spec.set(std::string("E") + axes[i], geo.in[i] + geo.pad_end[i]);  // end of the padded extent
  spec.args = {0};
  return true;
}

void set_rectangles(KernelSpec& spec, const ops::Geometry3& geo) {
  std::string rects;
  int64_t count = 0, full = -1;
  for (const auto& d : bands(geo, 0))
    for (const auto& h : bands(geo, 1))
      for (const auto& w : bands(geo, 2)) {
        if (d[2] == 0 && d[3] == geo.kernel[0] && h[2] == 0 && h[3] == geo.kernel[1] && w[2] == 0 &&
            w[3] == geo.kernel[2])
          full = count;
        rects += fmt::format("{}{{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}}}", count ? ", " : "", d[0], d[1],
                             d[2], d[3], h[0], h[1], h[2], h[3], w[0], w[1], w[2], w[3]);
        ++count;
      }
  spec.set("NR", count);
  spec.set("FULL", full);
  spec.set("rects", "{" + rects + "}");
}

}  // namespace mlipc::c::kernels
