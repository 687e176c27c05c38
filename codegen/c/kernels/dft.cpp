// DFT and STFT: the plan of ops/dft.h baked into templates/kernels/dft.c,
// with the reference's twiddle table as constants, so the C gives the
// reference's bits. dft_length, frame_step and frame_length are constants
// (the shape rules require them); STFT's window may be a run-time input.
#include <cstdint>
#include <string>

#include "c/kernels/kernels.h"
#include "ops/dft.h"
#include "support/error.h"

namespace mlipc::c::kernels {

namespace {

const TensorData* constant_input(const Graph& g, const Node& n, size_t i) {
  return n.has_input(i) ? g.value(n.inputs[i]).constant.get() : nullptr;
}

void set_plan(const Graph& g, const Node& n, const ops::DftPlan& p, KernelSpec& spec) {
  // The template's indices are int32_t.
  for (const Value* v : {&g.value(n.inputs[0]), &g.value(n.outputs[0])})
    if (numel(v->shape) > INT32_MAX) fail("'{}' {} has more than 2^31 - 1 elements", v->name, shape_str(v->shape));
  spec.template_name = "dft.c";
  spec.set("outer", c_int(p.outer));
  spec.set("frames", c_int(p.frames));
  spec.set("batch_stride", c_int(p.batch_stride));
  spec.set("frame_step", c_int(p.frame_step));
  spec.set("inner", c_int(p.inner));
  spec.set("taken", c_int(p.taken));
  spec.set("length", c_int(p.length));
  spec.set("bins", c_int(p.bins));
  spec.set_flag("complex", p.in_c == 2);
  spec.set_flag("inverse", p.inverse);
  spec.set_flag("window", p.window);
  std::string table;
  for (double v : ops::dft_twiddles(p.length)) table += c_double(v) + ", ";
  table.resize(table.size() - 2);
  spec.set("twiddles", table);
}

}  // namespace

void prepare_DFT(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Float32, DType::Float64});
  if (n.has_input(1) && !constant_input(g, n, 1)) fail("dft_length must be a constant known at compile time");
  set_plan(g, n, ops::dft_plan(g.value(n.inputs[0]).shape, n.attrs, constant_input(g, n, 1)), spec);
  spec.args = {0};
}

void prepare_STFT(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Float32, DType::Float64});
  const TensorData* step = constant_input(g, n, 1);
  if (!step || (n.has_input(3) && !constant_input(g, n, 3)))
    fail("frame_step and frame_length must be constants known at compile time");
  const bool window = n.has_input(2);
  set_plan(g, n, ops::stft_plan(g.value(n.inputs[0]).shape, n.attrs, *step, window ? &g.value(n.inputs[2]).shape : nullptr,
                          constant_input(g, n, 3)),
           spec);
  spec.args = window ? std::vector<int>{0, 2} : std::vector<int>{0};
}

}  // namespace mlipc::c::kernels
