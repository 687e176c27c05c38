// QLinearAdd and QLinearMul: the elementwise template (broadcast loops)
// with an integer body; the scales' (q, shift) and the zero points are
// baked in (ops/qlinear.h computes them as the reference does). QLinearAdd
// with the fixed-point arithmetic runs its innermost axis on mlip/kq8.h's
// mlip_kq8_add instead (qlinear_add.c: one call per row, Helium and DSP
// variants), the element loops kept for the rest.
#include <fmt/format.h>

#include "c/kernels/elementwise.h"
#include "c/kernels/kernels.h"
#include "c/layout.h"
#include "ops/broadcast.h"
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
  const bool int16 = t == DType::Int16;  // 16x8: mlip_qadd16_sum, the element loops only (kq8.h is 8-bit)
  const std::string body = fmt::format(
      "const int32_t s_ = {}((int32_t)v0 - {}, {}, {}, (int32_t)v1 - {}, {}, {});\n"
      "    const {} v = ({})mlip_requantize(s_, {}, {}, {}, {}, {});",
      int16 ? "mlip_qadd16_sum" : "mlip_qadd_sum", c_int(a.zero_point), c_int(r.a.q), c_int(r.a.shift),
      c_int(b.zero_point), c_int(r.b.q), c_int(r.b.shift), dtype_ctype(t), dtype_ctype(t), c_int(r.out.q), c_int(r.out.shift), c_int(y.zero_point), c_int(ops::clamp_lo(n.attrs, t)),
      c_int(ops::clamp_hi(n.attrs, t)));
  elementwise_kernel(g, n, spec, {{0, 3}, body, {}});
  spec.includes.push_back("mlip/requant.h");
  if (int16) return;
  // The loops elementwise_kernel made (same layouts, same in-place input),
  // less the innermost, which mlip_kq8_add runs when A and B step by 0 or 1
  // along it (always, for row-major inputs read at the output's axes).
  const Value& out = g.value(n.outputs[0]);
  const bool cl = spec.output_cl(0);
  const Shape out_shape = stored_shape(out.shape, out.shape.size(), cl);
  std::vector<std::vector<int64_t>> strides;
  for (int k : {0, 3})
    strides.push_back(ops::broadcast_strides(
        stored_shape(g.value(n.inputs[static_cast<size_t>(k)]).shape, out.shape.size(), cl), out_shape));
  const ops::Loops l = ops::simplify_loops(out_shape, strides);
  const size_t depth = l.dims.size();
  const int64_t s0 = depth ? l.strides[0].back() : 0, s1 = depth ? l.strides[1].back() : 0;
  if ((s0 != 0 && s0 != 1) || (s1 != 0 && s1 != 1)) return;
  std::vector<TemplateData> loops;
  for (size_t d = 1; d < depth; ++d) {
    TemplateData item;
    item.set("d", std::to_string(d));
    item.set("dim", c_int(l.dims[d - 1]));
    std::string offs;
    for (size_t k = 0; k < 2; ++k) {
      std::string e = fmt::format("p{}_{}", k, d - 1);
      const int64_t st = l.strides[k][d - 1];
      if (st == 1) e += fmt::format(" + i{}", d);
      else if (st != 0) e += fmt::format(" + i{} * {}", d, c_int(st));
      offs += fmt::format("    const int32_t p{}_{} = {};\n", k, d, e);
    }
    item.set("offsets", offs);
    loops.push_back(item);
  }
  spec.template_name = "qlinear_add.c";
  spec.set_list("loops", loops);
  spec.set("D", static_cast<int64_t>(depth ? depth - 1 : 0));
  spec.set("N", depth ? l.dims.back() : 1);
  spec.set("S0", s0);
  spec.set("S1", s1);
  spec.set("U8", t == DType::UInt8 ? 1 : 0);
  spec.set("ZA", c_int(a.zero_point));
  spec.set("QA", c_int(r.a.q));
  spec.set("SA", c_int(r.a.shift));
  spec.set("ZB", c_int(b.zero_point));
  spec.set("QB", c_int(r.b.q));
  spec.set("SB", c_int(r.b.shift));
  spec.set("Q", c_int(r.out.q));
  spec.set("SHIFT", c_int(r.out.shift));
  spec.set("ZY", c_int(y.zero_point));
  spec.set("LO", c_int(ops::clamp_lo(n.attrs, t)));
  spec.set("HI", c_int(ops::clamp_hi(n.attrs, t)));
  spec.includes.push_back("mlip/kq8.h");
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
