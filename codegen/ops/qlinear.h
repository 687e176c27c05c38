// What the per-tensor quantized operators share (QLinearAdd, QLinearMul,
// QLinearGlobalAveragePool, QLinearConcat, QLinearSigmoid, QLinearLeakyRelu
// and the lookup table that passes/fold_qdq makes of activations): reading a
// (scale, zero point) pair of constants with its checks, the requantization
// constants of each operator, and the 256-entry tables. The reference
// evaluators and the kernel preparations call the same functions, so both
// bake the same constants.
#pragma once

#include <array>
#include <functional>
#include <string_view>
#include <vector>

#include "ops/op.h"
#include "ops/quant.h"

namespace mlipc::ops {

// The op name of the table lookup passes/fold_qdq makes (an internal op):
// inputs x (int8/uint8) and a constant table of 256 values of the output
// type; y = table[x - type minimum].
inline constexpr const char* kQLookupOp = "mlipc.QLinearLookup";

// One tensor's quantization: per tensor, scale > 0, zero point in its type.
struct QParam {
  float scale = 1.0f;
  int32_t zero_point = 0;
  DType dtype = DType::UInt8;
  int32_t lo() const { return quant_min(dtype); }
  int32_t hi() const { return quant_max(dtype); }
};

// Reads inputs s (the scale) and z (the zero point, optional: 0 of type t)
// of a tensor of type t named `name`: both constants of one value, the
// scale positive and finite, the zero point of type t. Throws naming them.
QParam read_qparam(const InferContext& ctx, int s, int z, DType t, std::string_view name);
// The same values in an evaluator (the shape rule has checked them).
QParam eval_qparam(const EvalContext& ctx, int s, int z, DType t);

// The asymmetric per-tensor parameters of values in [lo, hi] widened to hold
// 0 (zero padding stays exact): scale = (hi - lo) / 255 and zero point =
// type minimum - lo / scale, rounded and saturated, in float32 as
// DynamicQuantizeLinear's spec writes them (its evaluator calls this). A
// range of one point (all zeros) gives scale 0 and zero point 0.
QParam range_qparam(float lo, float hi, DType t);

// A bias as int32 at the accumulator's scale: round(b[c] / (x_scale *
// w_scale[c])) (half to even), the scale a float product; `w_scale` has one
// value (per tensor) or one per channel, repeating when `real` is longer
// (ConvTranspose: per channel of a group). A value beyond int32 fails in one
// line naming `what` (the node) and the channel: clamping it would drop the
// bias silently (docs/user-guide.md, "Quantization"). `type` Int64: the
// 16x8 bias (int16 activations), int64 values within +-2^62.
TensorData bias_int32(const std::vector<double>& real, float x_scale, const std::vector<float>& w_scale,
                      std::string_view what, DType type = DType::Int32);

// A real multiplier m as (q, shift); throws naming `what` when it is out
// of range (2^30 or more).
Requant requant_of(double m, std::string_view what);

// QLinearAdd: the inputs' and the output's (q, shift) (mlip/requant.h,
// mlip_qadd_sum; int16 inputs, 16x8: mlip_qadd16_sum's 2^15 headroom).
struct AddRequant {
  Requant a, b, out;
};
AddRequant add_requant(const QParam& a, const QParam& b, const QParam& y);

// QLinearAveragePool: the (q, shift) of x_scale / (y_scale * c) for every
// window count c from 1 to max_count (index c; index 0 unused).
std::vector<Requant> average_requant(float x_scale, float y_scale, int64_t max_count,
                                     RequantMode mode = RequantMode::Fixed);

// The lookup table of y = f(x) for every value of x's type: x dequantized
// in float, f in double, quantized as QuantizeLinear does.
std::vector<int32_t> lookup_table(const QParam& x, const QParam& y, const std::function<double(double)>& f);
// 16x8 (int16 x and y): the 513 knots of mlip/lut16.h's interpolated table,
// knot k the value at x = -32768 + 128 k: f in double at the dequantized
// input, in output steps, rounded half away from zero, less half the
// rounded error of the segment's interpolated midpoint (TFLite's
// LUTPopulate for int16), saturated to y's type.
std::vector<int32_t> lookup_table16(const QParam& x, const QParam& y, const std::function<double(double)>& f);
// The same table as a constant tensor of y's type, [256] (int16: [513]).
TensorData lookup_tensor(const std::vector<int32_t>& table, DType t);

// The float functions the tables are made of, by ONNX op name ("Sigmoid",
// "HardSwish", "LeakyRelu" with alpha ...); nullptr-like (empty) when the op
// has none. `attrs` gives the op's attributes (alpha, beta), `lo`/`hi`
// Clip's bounds.
std::function<double(double)> activation_function(std::string_view op, const Attrs& attrs, double lo, double hi);

// The table of a QLinearSigmoid or QLinearLeakyRelu node of g (its scales
// and zero points are constants: the shape rule checked them).
std::vector<int32_t> activation_table(const Graph& g, const Node& n);

}  // namespace mlipc::ops
