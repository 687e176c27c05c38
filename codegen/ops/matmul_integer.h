// MatMulInteger and QLinearMatMul: A [..., M, K] times B [..., K, N] (numpy
// batch broadcasting) of int8/uint8 values minus their zero points, summed
// in int32; QLinearMatMul then requantizes each sum (include/mlip/requant.h).
// QLinearMatMul's 16x8 form (int16 on at least one side: A, B or Y int16,
// the others int8, what fold_qdq makes of a 16x8 MatMul of two computed
// tensors or of a constant B that is no matrix): the sum in int64 and
// mlip_requantize64, as the 16x8 QLinearConv.
// What the reference (ops/matmul_integer.cpp) and the C kernel
// (c/kernels/matmul_integer.cpp) both read.
#pragma once

#include <vector>

#include "ops/matmul.h"
#include "ops/quant.h"

namespace mlipc::ops {

// How many values a zero point or scale of A holds: 1 (per tensor) or M
// (per row: shape [M] or [M, 1]); of B: 1 or N (per column: [N] or [1, N]).
int64_t per_row_count(const Shape& s, int64_t m, std::string_view name);
int64_t per_column_count(const Shape& s, int64_t n, std::string_view name);

// QLinearMatMul's requantization constants: one (q, shift) per distinct
// (row scale, column scale) pair, rows x cols of them (each 1, M or N);
// output (i, j) uses index (rows > 1 ? i : 0) * cols + (cols > 1 ? j : 0).
struct MatMulRequant {
  int64_t rows = 1, cols = 1;
  std::vector<Requant> r;
};
// Whether QLinearMatMul node inputs A (dtype a), B (b) and output Y (y) take
// its 16x8 form.
bool qmatmul_wide(DType a, DType b, DType y);

MatMulRequant matmul_requant(const TensorData& a_scale, const TensorData& b_scale, const TensorData& y_scale,
                             int64_t m, int64_t n, RequantMode mode = RequantMode::Fixed);

}  // namespace mlipc::ops
