// The batch loop nest MatMul and the integer matrix products (MatMulInteger,
// QLinearMatMul) share: over the simplified broadcast batch axes, with the
// baked offsets of A's and B's matrices.
#pragma once

#include "c/kernel.h"
#include "ops/matmul.h"

namespace mlipc::c::kernels {

// Sets "loops" (d, dim, a_off, b_off), "r", "M", "N" and "K" for the templates.
void set_matmul_loops(KernelSpec& spec, const ops::MatMulDims& d);

}  // namespace mlipc::c::kernels
