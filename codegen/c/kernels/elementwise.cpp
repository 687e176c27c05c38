// Add, Sub, Mul, Div: nested loops over the output in order, each input's
// offset built from baked strides (0 on broadcast axes). Axes are simplified
// first (ops::simplify_loops), so same-shape operands are one flat loop. The
// element expression matches ops::binary_apply (ir/ops/elementwise.h).
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ir/ops/broadcast.h"
#include "support/error.h"

namespace mlipc::c::kernels {

namespace {

// "p + i2 * 20" for loop d (1-based) of an input named `p`.
std::string offset_expr(const std::string& p, size_t d, int64_t stride) {
  const std::string prev = fmt::format("{}{}", p, d - 1);
  if (stride == 0) return prev;
  if (stride == 1) return fmt::format("{} + i{}", prev, d);
  return fmt::format("{} + i{} * {}", prev, d, c_int(stride));
}

std::string expr_for(DType t, char op) {
  const std::string ct(dtype_ctype(t));
  if (dtype_is_float(t)) return fmt::format("va {} vb", op);
  // Integer arithmetic in unsigned (at least int wide) wraps instead of
  // overflowing signed int; Div guards the cases that trap in C.
  const std::string u = dtype_size(t) > 4 ? "uint64_t" : "uint32_t";
  if (op != '/') return fmt::format("({})(({})va {} ({})vb)", ct, u, op, u);
  if (!dtype_is_signed(t)) return fmt::format("vb == 0 ? 0 : ({})(va / vb)", ct);
  return fmt::format("vb == 0 ? 0 : (vb == -1 ? ({0})(({1})0 - ({1})va) : ({0})(va / vb))", ct, u);
}

void binary(const Graph& g, const Node& n, KernelSpec& spec, char op) {
  expect_dtype(g, n, 0, {DType::Float32, DType::Float64, DType::Int8, DType::Int16, DType::Int32, DType::Int64,
                         DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64});
  const Shape& out = g.value(n.outputs[0]).shape;
  const ops::Loops l = ops::simplify_loops(
      out, {ops::broadcast_strides(g.value(n.inputs[0]).shape, out),
            ops::broadcast_strides(g.value(n.inputs[1]).shape, out)});
  std::vector<TemplateData> loops;
  for (size_t d = 1; d <= l.dims.size(); ++d) {
    TemplateData item;
    item.set("d", std::to_string(d));
    item.set("dim", c_int(l.dims[d - 1]));
    item.set("a_off", offset_expr("a", d, l.strides[0][d - 1]));
    item.set("b_off", offset_expr("b", d, l.strides[1][d - 1]));
    loops.push_back(item);
  }
  spec.template_name = "elementwise.c";
  spec.set_list("loops", loops);
  spec.set("r", static_cast<int64_t>(l.dims.size()));
  spec.set("expr", expr_for(g.value(n.inputs[0]).dtype, op));
  spec.args = {0, 1};
}

}  // namespace

void prepare_Add(const Graph& g, const Node& n, KernelSpec& spec) { binary(g, n, spec, '+'); }
void prepare_Sub(const Graph& g, const Node& n, KernelSpec& spec) { binary(g, n, spec, '-'); }
void prepare_Mul(const Graph& g, const Node& n, KernelSpec& spec) { binary(g, n, spec, '*'); }
void prepare_Div(const Graph& g, const Node& n, KernelSpec& spec) { binary(g, n, spec, '/'); }

}  // namespace mlipc::c::kernels
