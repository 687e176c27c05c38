// What the int8 operators share: the quantized element types, per-tensor
// or per-axis scales and zero points and their checks, QuantizeLinear's
// rounding, and the (multiplier, shift) pairs of requantization
// (include/mlip/requant.h holds the arithmetic itself). The reference
// evaluators (ir/ops) and the kernel preparations (c/kernels) both read
// these, so the checks and the constants are the same on both sides.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ops/op.h"

namespace mlipc::ops {

// int8 and uint8: the quantized types these operators take.
bool is_quant_type(DType t);
// The quantized activation types: int8, uint8 and int16 (16x8: int16
// activations, symmetric with zero point 0, beside int8 weights;
// docs/user-guide.md "16x8 quantization").
bool is_act_type(DType t);
int32_t quant_min(DType t);  // -128, 0 or -32768 (int16)
int32_t quant_max(DType t);  // 127, 255 or 32767 (int16)
// The output range of an integer operator: the type's, narrowed by the
// clamp passes/fold_qdq sets when it absorbs a Relu or Clip
// (attributes mlipc_clamp_lo, mlipc_clamp_hi).
int32_t clamp_lo(const Attrs& attrs, DType t);
int32_t clamp_hi(const Attrs& attrs, DType t);
// Checks input i is int8 or uint8 (`name` as the spec names it); other
// integer widths (int16, int4) and float8 are refused naming the type.
void expect_quant_type(const InferContext& ctx, int i, std::string_view name);
// Checks an optional zero point (input `zp`) has the element type `want`
// (its tensor's), e.g. "x_zero_point is int8 but x is uint8".
void expect_same_type(const InferContext& ctx, int zp, std::string_view zp_name, DType want,
                      std::string_view of_name);

// Where a scale applies: per tensor (count 1) or along one axis of x
// (count = x.shape[axis]); x viewed as [outer, count, inner].
struct QuantAxis {
  int axis = -1;  // -1 per tensor
  int64_t outer = 1, count = 1, inner = 1;
};
// A scale of one element (a scalar or [1]) is per tensor; a 1-D scale is per
// axis and its length must be x.shape[axis]. Throws otherwise.
QuantAxis quant_axis(const Shape& x, const Shape& scale, int64_t axis, std::string_view scale_name);
// A scale or zero point that must be one value (y_scale of QLinearConv ...).
void expect_one_value(const Shape& s, std::string_view name);
// Each value of a constant scale must be positive and finite.
void check_scale_values(const TensorData& scale, std::string_view name);
// A zero point's shape must be its scale's (both per tensor, or the same axis).
void expect_zero_point_shape(const Shape& zp, const Shape& scale, std::string_view zp_name,
                             std::string_view scale_name);

// QuantizeLinear of one value: x / scale in float, rounded half to even,
// plus the zero point, saturated to [lo, hi]; NaN gives the zero point.
// templates/kernels/quantize_linear.c computes the same, step for step.
int32_t quantize_value(float x, float scale, int32_t zero_point, int32_t lo, int32_t hi);

// A real multiplier as mlip_quantize_multiplier's Q31 value and shift, or
// (in RequantMode::Ort) a float32 scale's bits and MLIP_REQUANT_F32.
struct Requant {
  int32_t q = 0, shift = 0;
};
// The requantization arithmetic of a build (--requant, docs/mlip-spec.md
// section 4a): Fixed, TFLite's Q31 multiplier and shift; Ort, onnxruntime's
// float32 scale. passes/requant_mode records Ort on each integer node as
// the attribute mlipc_requant = 1; no attribute is Fixed.
enum class RequantMode { Fixed, Ort };
inline constexpr const char* kRequantAttr = "mlipc_requant";
RequantMode requant_mode(const Attrs& attrs);
// 4-bit weights (--weight-bits 4, docs/user-guide.md "4-bit weights"): PTQ
// marks a Conv, Gemm or MatMul whose int8 weights hold int4 values
// (mlipc_weight_bits = 4; a dense layer's in blocks of mlipc_weight_block
// along K, each value q * 2^e with q in [-7, 7], e in [0, 4]); fold_qdq
// keeps the marks on the QLinearConv, and the CPU kernels store its weights
// as nibbles. No attribute: 8 bits.
inline constexpr const char* kWeightBitsAttr = "mlipc_weight_bits";
inline constexpr const char* kWeightBlockAttr = "mlipc_weight_block";
// The multiplier of an output: in_scale * w_scale / out_scale. Fixed: in
// double from the float scales, then mlip_quantize_multiplier; throws when
// it is 2^30 or more (it cannot be held). Ort: as onnxruntime computes it,
// in float32, (in_scale * w_scale) / out_scale.
Requant requant_multiplier(float in_scale, float w_scale, float out_scale, RequantMode mode = RequantMode::Fixed);
// The requantization of the mean of `count` values (the average pools):
// x_scale / (y_scale * count). Fixed: in double (requant_of, naming
// `what` when out of range); Ort: in float32 as onnxruntime's
// QLinearGlobalAveragePool computes it, x_scale / (y_scale * float(count))
// (ops/qlinear_pool.cpp).
Requant mean_requant(float x_scale, float y_scale, int64_t count, RequantMode mode, std::string_view what);
// QLinearAdd's constants in RequantMode::Ort (mlip_qadd_f32): the float32
// ratios of the inputs' scales to the output's and the offset that holds
// the zero points, computed as onnxruntime's x86-64 kernel does.
struct AddF32 {
  float ra = 0.0f, rb = 0.0f, offset = 0.0f;
};
AddF32 add_f32(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp, float y_scale, int32_t y_zp);
// A float32's bits as an int32: how the generated C (mlip_f32_of_bits) and
// the MLIP commands carry float constants, exactly.
int32_t f32_bits(float f);
// A float32 scale as an Ort pair (its bits, MLIP_REQUANT_F32). Throws
// unless it is positive and finite.
Requant requant_f32(float scale);

// The largest number of int8/uint8 products an int32 accumulator holds
// without overflow: each |(a - za)(b - zb)| <= 255 * 255.
constexpr int64_t kMaxAccumulatedProducts = 2147483647LL / (255 * 255);

// Values of an integer tensor (any integer type) widened to int32.
std::vector<int32_t> int32_values(const TensorData& t);

}  // namespace mlipc::ops
