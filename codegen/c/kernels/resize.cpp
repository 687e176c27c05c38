// Resize and Upsample: the plan of ops::resize_plan baked as tables. Every
// output axis is one loop; a resized axis reads its input offsets (index x
// stride) from a table, the others step by their stride. Nearest copies one
// element (any type). Linear and cubic sum taps x weights over the resized
// axes, outermost axis outermost, in float: the reference's order, so the
// two agree bit for bit. tf_crop_and_resize outputs that map outside the
// input get extrapolation_value (per-axis flag tables). When no axis is
// resized at all, the kernel is a plain copy. Sizes computed at run time (the
// output is then the declared one) are checked before anything is written.
#include <algorithm>

#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "c/kernels/strided_copy.h"
#include "ops/cast.h"
#include "ops/resize.h"

namespace mlipc::c::kernels {

namespace {

TemplateData flag(bool on) { return TemplateData(on ? TemplateData::type::bool_true : TemplateData::type::bool_false); }

// Linear or cubic over exactly the last two axes of floats, each output
// index's taps within as many consecutive input indices (so a ring of that
// many rows holds an output row's): resize_rows.c, the W sums once per
// input row. False where it does not apply.
bool set_resize_rows(const Value& x, const Value& y, const ops::ResizePlan& p, KernelSpec& spec) {
  const int rank = static_cast<int>(x.shape.size());
  if (rank < 2 || x.dtype != DType::Float32 || y.dtype != DType::Float32) return false;
  for (int d = 0; d < rank; ++d)
    if (p.axes[d].resized != (d >= rank - 2)) return false;
  const ops::ResizeAxis& h = p.axes[rank - 2];
  const ops::ResizeAxis& w = p.axes[rank - 1];
  const int64_t taps = p.taps;
  for (size_t o = 0; o < h.index.size(); o += static_cast<size_t>(taps)) {
    const auto [lo, hi] = std::minmax_element(h.index.begin() + static_cast<std::ptrdiff_t>(o),
                                              h.index.begin() + static_cast<std::ptrdiff_t>(o) + taps);
    if (*hi - *lo >= taps) return false;
  }
  int64_t planes = 1;
  for (int d = 0; d < rank - 2; ++d) planes *= x.shape[d];
  spec.template_name = "resize_rows.c";
  spec.set("mode", p.mode == ops::ResizeMode::Linear ? "linear" : "cubic");
  spec.set("taps", taps);
  spec.set("P", planes);
  spec.set("IH", h.in);
  spec.set("IW", w.in);
  spec.set("OH", h.out);
  spec.set("OW", w.out);
  spec.set("NH", static_cast<int64_t>(h.index.size()));
  spec.set("NW", static_cast<int64_t>(w.index.size()));
  spec.set("th", c_initializer(h.index, [](int64_t v) { return c_int(v); }));
  spec.set("ch", c_initializer(h.coeff, [](float v) { return c_float(v); }));
  spec.set("tw", c_initializer(w.index, [](int64_t v) { return c_int(v); }));
  spec.set("cw", c_initializer(w.coeff, [](float v) { return c_float(v); }));
  spec.scratch_bytes = static_cast<size_t>(taps * w.out) * sizeof(float);
  spec.set_flag("has_scratch", true);
  spec.args = {0};
  return true;
}

void prepare_resize(const Graph& g, const Node& n, KernelSpec& spec) {
  const Value& x = g.value(n.inputs[0]);
  const Value& y = g.value(n.outputs[0]);
  const ops::ResizePlan p = ops::resize_plan(g, n);
  const int rank = static_cast<int>(x.shape.size());
  const std::vector<int64_t> stride = strides_of(x.shape);
  // Sizes computed at run time must be the declared output's.
  std::vector<std::string> checks;
  if (ops::resize_sizes_at_run_time(g, n)) {
    const std::vector<int> axes = ops::resize_axes(n, rank);
    for (size_t j = 0; j < axes.size(); ++j) checks.push_back(fmt::format("v[{}] == {}", j, c_int(y.shape[axes[j]])));
  }
  bool any = false;
  for (const ops::ResizeAxis& ax : p.axes) any = any || ax.resized;
  if (!any) {  // every axis maps index i to index i
    StridedView v;
    v.dims = x.shape;
    v.strides = stride;
    v.checks = checks;
    v.check_input = 3;
    set_strided_copy(spec, v);
    return;
  }
  const bool nearest = p.mode == ops::ResizeMode::Nearest;
  if (!nearest && checks.empty() && !p.extrapolates && set_resize_rows(x, y, p, spec)) return;
  std::vector<TemplateData> loops, tables, open, close;
  std::vector<int> resized;
  for (int d = 0; d < rank; ++d) {
    const ops::ResizeAxis& ax = p.axes[d];
    TemplateData loop;
    loop.set("a", std::to_string(d + 1));
    loop.set("p", std::to_string(d));
    loop.set("dim", c_int(ax.out));
    loop.set("stride", c_int(stride[d]));
    loop.set("table", flag(ax.resized));
    const bool has_outside = ax.resized && p.extrapolates &&
                             std::find(ax.outside.begin(), ax.outside.end(), 1) != ax.outside.end();
    loop.set("has_outside", flag(has_outside));
    loops.push_back(loop);
    if (!ax.resized) continue;
    resized.push_back(d);
    std::vector<int64_t> offsets(ax.index.size());
    for (size_t i = 0; i < offsets.size(); ++i) offsets[i] = ax.index[i] * stride[d];
    TemplateData t;
    t.set("a", std::to_string(d + 1));
    t.set("n", std::to_string(offsets.size()));
    t.set("index", c_initializer(offsets, [](int64_t v) { return c_int(v); }));
    t.set("coeff", nearest ? std::string() : c_initializer(ax.coeff, [](float v) { return c_float(v); }));
    t.set("has_outside", flag(has_outside));
    t.set("outside_n", std::to_string(ax.outside.size()));
    t.set("outside", c_initializer(ax.outside, [](uint8_t v) { return std::to_string(v); }));
    tables.push_back(t);
  }
  // The tap loops, outermost resized axis first, and their closing sums.
  const size_t m = resized.size();
  for (size_t k = 1; k <= m; ++k) {
    TemplateData item;
    item.set("k", std::to_string(k));
    item.set("pk", std::to_string(k - 1));
    item.set("a", std::to_string(resized[k - 1] + 1));
    open.push_back(item);
  }
  for (size_t k = m; k >= 2; --k) {
    TemplateData item;
    item.set("k", std::to_string(k));
    item.set("pk", std::to_string(k - 1));
    item.set("pa", std::to_string(resized[k - 2] + 1));
    close.push_back(item);
  }
  spec.template_name = nearest ? "resize_nearest.c" : "resize_interp.c";
  spec.set_list("loops", loops);
  spec.set_list("tables", tables);
  spec.set_list("open", open);
  spec.set_list("close", close);
  spec.set("r", static_cast<int64_t>(rank));
  spec.set("m", static_cast<int64_t>(m));
  spec.set("am", std::to_string(resized.back() + 1));
  spec.set("taps", static_cast<int64_t>(p.taps));
  spec.set("mode", nearest ? "nearest" : (p.mode == ops::ResizeMode::Linear ? "linear" : "cubic"));
  spec.set_flag("extrap", p.extrapolates);
  TensorData value(y.dtype, {});
  ops::cast_into(TensorData::scalar<float>(p.extrapolation_value), value);
  spec.set("value", c_scalar(value));
  spec.args = {0};
  spec.set_flag("checked", !checks.empty());
  if (!checks.empty()) {
    std::vector<TemplateData> items;
    for (const std::string& c : checks) {
      TemplateData item;
      item.set("cond", c);
      items.push_back(item);
    }
    spec.set_list("checks", items);
    spec.returns_status = true;
    spec.includes = {"mlip/status.h"};
    spec.args = {0, 3};
  }
}

}  // namespace

void prepare_Resize(const Graph& g, const Node& n, KernelSpec& spec) { prepare_resize(g, n, spec); }
void prepare_Upsample(const Graph& g, const Node& n, KernelSpec& spec) { prepare_resize(g, n, spec); }

}  // namespace mlipc::c::kernels
