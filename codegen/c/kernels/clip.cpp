// Clip: constant bounds are baked in (and skipped when they clip nothing),
// computed bounds are passed as pointers to scalars.
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/clip.h"
#include "support/error.h"

namespace mlipc::c::kernels {

namespace {
// A C literal of the scalar `t`, in its own type.
std::string literal(const TensorData& t) {
  switch (t.dtype()) {
    case DType::Float32: return c_float(t.data<float>()[0]);
    case DType::Float64: return c_double(t.data<double>()[0]);
    case DType::UInt64: return fmt::format("{}ULL", t.data<uint64_t>()[0]);
    case DType::UInt32: return fmt::format("{}u", t.data<uint32_t>()[0]);
    default: return fmt::format("({}){}", dtype_ctype(t.dtype()), c_int(t.as_int64()[0]));
  }
}
}  // namespace

void prepare_Clip(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Float32, DType::Float64, DType::Int8, DType::Int16, DType::Int32, DType::Int64,
                         DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64});
  const DType t = g.value(n.inputs[0]).dtype;
  spec.template_name = "clip.c";
  spec.args = {0};
  for (int i = 1; i <= 2; ++i) {
    const std::string key = i == 1 ? "lo" : "hi";
    spec.set_flag(key + "_ptr", false);
    spec.set_flag("has_" + key, false);
    if (!n.has_input(static_cast<size_t>(i))) continue;
    const Value& b = g.value(n.inputs[static_cast<size_t>(i)]);
    if (b.is_constant()) {
      TensorData v;
      if (!ops::clip_bound(*b.constant, t, i == 1, v)) continue;
      spec.set_flag("has_" + key, true);
      spec.set(key, literal(v));
    } else {
      spec.set_flag("has_" + key, true);
      spec.set_flag(key + "_ptr", true);
      spec.set(key, key + "_p[0]");
      spec.args.push_back(i);
    }
  }
}

}  // namespace mlipc::c::kernels
