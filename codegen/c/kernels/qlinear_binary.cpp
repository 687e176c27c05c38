// QLinearAdd and QLinearMul: the elementwise template (broadcast loops)
// with an integer body; the scales' (q, shift) and the zero points are
// baked in (ops/qlinear.h computes them as the reference does).
#include <fmt/format.h>

#include "c/kernels/elementwise.h"
#include "c/kernels/kernels.h"
#include "ops/qlinear.h"
#include "support/error.h"

namespace mlipc::c::kernels {

namespace {

// The (scale, zero point) of inputs s and z, as the shape rule read them.
ops::QParam param(const Graph& g, const Node& n, int s, int z, DType t) {
  auto c = [&](int i) -> const TensorData* {
    return n.has_input(static_cast<size_t>(i)) ? g.value(n.inputs[static_cast<size_t>(i)]).constant.get() : nullptr;
  };
  if (!c(s)) fail("internal: {} scale #{} is not a constant", n.op, s);
  ops::QParam p;
  p.dtype = t;
  p.scale = c(s)->data<float>()[0];
  if (c(z)) p.zero_point = static_cast<int32_t>(c(z)->as_int64()[0]);
  return p;
}

}  // namespace

void prepare_QLinearAdd(const Graph& g, const Node& n, KernelSpec& spec) {
  const DType t = g.value(n.inputs[0]).dtype;
  const ops::QParam a = param(g, n, 1, 2, t), b = param(g, n, 4, 5, t), y = param(g, n, 6, 7, t);
  if (ops::requant_mode(n.attrs) == ops::RequantMode::Ort) {
    const ops::AddF32 f = ops::add_f32(a.scale, a.zero_point, b.scale, b.zero_point, y.scale, y.zero_point);
    const std::string body = fmt::format(
        "const {} v = ({})mlip_qadd_f32((int32_t)v0, (int32_t)v1, mlip_f32_of_bits({}), mlip_f32_of_bits({}), "
        "mlip_f32_of_bits({}), {}, {});",
        dtype_ctype(t), dtype_ctype(t), c_int(ops::f32_bits(f.ra)), c_int(ops::f32_bits(f.rb)), c_int(ops::f32_bits(f.offset)),
        c_int(ops::clamp_lo(n.attrs, t)), c_int(ops::clamp_hi(n.attrs, t)));
    elementwise_kernel(g, n, spec, {{0, 3}, body, {}});
    spec.includes.push_back("mlip/requant.h");
    return;
  }
  const ops::AddRequant r = ops::add_requant(a, b, y);
  const std::string body = fmt::format(
      "const int32_t s_ = mlip_qadd_sum((int32_t)v0 - {}, {}, {}, (int32_t)v1 - {}, {}, {});\n"
      "    const {} v = ({})mlip_requantize(s_, {}, {}, {}, {}, {});",
      c_int(a.zero_point), c_int(r.a.q), c_int(r.a.shift), c_int(b.zero_point), c_int(r.b.q), c_int(r.b.shift),
      dtype_ctype(t), dtype_ctype(t), c_int(r.out.q), c_int(r.out.shift), c_int(y.zero_point), c_int(ops::clamp_lo(n.attrs, t)),
      c_int(ops::clamp_hi(n.attrs, t)));
  elementwise_kernel(g, n, spec, {{0, 3}, body, {}});
  spec.includes.push_back("mlip/requant.h");
}

void prepare_QLinearMul(const Graph& g, const Node& n, KernelSpec& spec) {
  const DType t = g.value(n.inputs[0]).dtype;
  const ops::QParam a = param(g, n, 1, 2, t), b = param(g, n, 4, 5, t), y = param(g, n, 6, 7, t);
  const ops::Requant r = ops::requant_multiplier(a.scale, b.scale, y.scale, ops::requant_mode(n.attrs));
  const std::string body = fmt::format(
      "const {} v = ({})mlip_requantize(((int32_t)v0 - {}) * ((int32_t)v1 - {}), {}, {}, {}, {}, {});",
      dtype_ctype(t), dtype_ctype(t), c_int(a.zero_point), c_int(b.zero_point), c_int(r.q), c_int(r.shift),
      c_int(y.zero_point), c_int(ops::clamp_lo(n.attrs, t)), c_int(ops::clamp_hi(n.attrs, t)));
  elementwise_kernel(g, n, spec, {{0, 3}, body, {}});
  spec.includes.push_back("mlip/requant.h");
}

}  // namespace mlipc::c::kernels
