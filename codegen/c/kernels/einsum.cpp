// Einsum: the plan of ops/einsum.h as a loop nest baked into the
// template: the output's outer axes, then the summed labels, then the
// output's last axis innermost (accumulating a row of y).
#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/einsum.h"
#include "support/error.h"

namespace mlipc::c::kernels {

namespace {

// "o0 * 12 + s1 * 3" for operand k over the listed loop variables ("0" if none).
std::string offset(const std::vector<std::pair<std::string, const ops::EinsumAxis*>>& loops, int k) {
  std::string e;
  for (const auto& [var, axis] : loops) {
    if (axis->stride[k] == 0) continue;
    e += fmt::format("{}{} * {}", e.empty() ? "" : " + ", var, axis->stride[k]);
  }
  return e.empty() ? "0" : e;
}

}  // namespace

void prepare_Einsum(const Graph& g, const Node& n, KernelSpec& spec) {
  const size_t operands = n.inputs.size();
  std::vector<Shape> shapes;
  for (size_t i = 0; i < operands; ++i) {
    expect_dtype(g, n, static_cast<int>(i), {DType::Float32, DType::Float64});
    shapes.push_back(g.value(n.inputs[i]).shape);
  }
  const ops::EinsumPlan p = ops::plan_einsum(n.attrs.get_string("equation"), shapes);
  ops::EinsumAxis row;  // the innermost output axis (a single element for a scalar output)
  std::vector<ops::EinsumAxis> outer = p.out;
  if (!outer.empty()) {
    row = outer.back();
    outer.pop_back();
  }
  std::vector<std::pair<std::string, const ops::EinsumAxis*>> loops;
  std::vector<TemplateData> outer_loops, sum_loops;
  auto loop = [&](const std::string& var, const ops::EinsumAxis& a) {
    TemplateData d;
    d.set("v", var);
    d.set("n", std::to_string(a.extent));
    loops.emplace_back(var, &a);
    return d;
  };
  for (size_t i = 0; i < outer.size(); ++i) outer_loops.push_back(loop("o" + std::to_string(i), outer[i]));
  for (size_t i = 0; i < p.sum.size(); ++i) sum_loops.push_back(loop("s" + std::to_string(i), p.sum[i]));
  spec.template_name = "einsum.c";
  spec.set_list("outer", outer_loops);
  spec.set_list("sums", sum_loops);
  spec.set_flag("two", operands == 2);
  spec.set("L", row.extent);
  spec.set("AL", row.stride[0]);
  spec.set("BL", row.stride[1]);
  spec.set("aoff", offset(loops, 0));
  spec.set("boff", offset(loops, 1));
  spec.args = {0};
  if (operands == 2) spec.args.push_back(1);
}

}  // namespace mlipc::c::kernels
