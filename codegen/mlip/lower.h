// Region body (IR, NCHW) -> MLIP layers (NHWC, OHWI, fp16 weights): a
// convert layer at every region border, each node through its layer kind's
// lowering (layers/<kind>.cpp), activations fused into the layer they follow
// (activation.h), and the views a dense layer absorbs (flatten, transpose to
// NHWC) turned into aliases of their input.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "mlip/layers/rules.h"
#include "mlip/region_ir.h"

namespace mlipc::mlip {

struct ConstInfo {
  std::string name;
  std::vector<int64_t> shape;  // in the layout the MLIP uses (OHWI, [out][in])
  std::vector<float> values;
};

struct LoweredRegion {
  std::string name;
  std::vector<RTensor> tensors;
  std::vector<RLayer> layers;
  std::vector<uint8_t> weights;      // the WEIGHTS section
  std::vector<int> inputs, outputs;  // planar tensors, binding order
  std::vector<ConstInfo> consts;     // for consts-JSON
};

// What a layer kind's lowering function works with: the region being built.
class LowerContext {
 public:
  LowerContext(const Graph& body, const std::string& name, const TargetInfo& target);

  const Graph& graph() const { return g_; }
  // The processor the region is for: its limits decide a layer's form
  // where the support rule did (a kernel wider than its maximum folded).
  const TargetInfo& target() const { return target_; }
  LoweredRegion& region() { return r_; }
  const RTensor& tensor(int t) const { return r_.tensors[static_cast<size_t>(t)]; }

  // A new layer of `kind` standing for `n` (its name and ONNX origins).
  RLayer& new_layer(uint32_t kind, const Node& n);
  // The region tensor holding value `v` (throws when none does yet), in the
  // layout the NHWC kinds read: a 4-D row-major tensor is relaid out first
  // (one PERMUTE layer, shared by every such reader).
  int tensor_of(ValueId v);
  // The same for a 3-D [N, C, W] tensor too, which the row-major kinds keep
  // row-major: NHWC with h = 1 (a 1-D convolution's input, CONV2D's).
  int nhwc_of(ValueId v);
  // The same in row-major (ONNX) order, for the row-major kinds.
  int rowmajor_of(ValueId v);
  // The tensor as its writer left it (elementwise kinds: any layout).
  int tensor_as_is(ValueId v) const;
  // Whether v's bytes are in ONNX order (row-major, or a shape whose NHWC
  // and row-major orders agree).
  bool is_rowmajor(ValueId v) const;
  // Whether v is a 3-D tensor in NHWC order (a 1-D convolution's output).
  bool is_nhwc3(ValueId v) const;
  // The fp16 scratch tensor for n's output i: NHWC when 4-D unless
  // `rowmajor`.
  int output_tensor(const Node& n, size_t i = 0, bool rowmajor = false);
  // A row-major fp16 scratch tensor of the region that stands for no ONNX
  // value (a layer's own: an LSTM's Y with its cell state after it).
  int scratch_tensor(const std::string& name, const Shape& s) { return scratch_like(name, s, DType::Float32, true); }
  // An fp16 NHWC scratch tensor (a 3-D one with h = 1) that stands for no
  // ONNX value: a wide convolution's partial sums (layers/conv2d.cpp).
  int nhwc_scratch(const std::string& name, const Shape& s) {
    return scratch_like(name, s, DType::Float32, false, s.size() == 3);
  }
  // A row-major scratch tensor of element type `dtype` that stands for no
  // ONNX value of the region (an int8 Split's part before its requantization).
  int rowmajor_scratch(const std::string& name, const Shape& s, DType dtype) { return scratch_like(name, s, dtype, true); }
  // n's output i in the layout of tensor `like` (elementwise kinds: a 3-D
  // NHWC input gives a 3-D NHWC output).
  int output_like(const Node& n, int like, size_t i = 0);
  // n's output i in NHWC order, a 3-D one too (h = 1: a 1-D convolution's).
  int nhwc_output(const Node& n, size_t i = 0);
  // n's output `out` as a view of tensor t's bytes with shape `dims`.
  int alias_output(const Node& n, int t, const Shape& dims, bool rowmajor, size_t out = 0);
  // A view of tensor t's bytes (an NHWC one) as the NHWC tensor `dims`
  // ([N, C, W] with h = 1, or [N, C, H, W]) named `name`: CONV2D's
  // space-to-depth input (layers/conv2d.cpp).
  int view_tensor(int t, const std::string& name, const Shape& dims);
  // ONNX nodes a view tensor (flatten, transpose) stands for: its reader's
  // composite includes them.
  std::vector<std::string> view_origins(int t) const;

  // Input i of `n` as a float32 constant (throws otherwise).
  const TensorData& constant(const Node& n, size_t i) const;
  // Appends fp16 or fp32 values (128-byte aligned) to the WEIGHTS section;
  // returns their offset.
  int64_t add_f16(const std::vector<float>& v);
  int64_t add_f32(const std::vector<float>& v);
  // Input i of `n` as a constant of any type (int8 weights, int32 bias).
  const TensorData& any_constant(const Node& n, size_t i) const;
  // Appends raw bytes (int8 weights) 128-byte aligned; returns their offset.
  int64_t add_bytes(const std::vector<uint8_t>& v);
  // Appends little-endian 32-bit words (tables); returns their offset.
  int64_t add_u32(const std::vector<uint32_t>& v);
  // Records a constant for consts-JSON.
  void add_const(ConstInfo c) { r_.consts.push_back(std::move(c)); }

  // Activation `a` of value x for `n` (its output is n's first): fused into
  // the layer that wrote x when that layer fuses activations, has none yet,
  // and no node but those of `readers` (body node indices: the activation's
  // own nodes) reads x; otherwise a standalone ACTIVATION layer.
  void apply_activation(const Node& n, ValueId x, const Activation& a, const std::vector<int>& readers);
  // Index of `n` in the body graph, and the body's consumers and producers.
  int index_of(const Node& n) const { return static_cast<int>(&n - g_.nodes.data()); }
  const std::vector<std::vector<int>>& consumers() const { return consumers_; }
  const std::vector<int>& producers() const { return producers_; }

  // Whole-region steps (lower_region).
  void convert_in(int index, ValueId v);
  void convert_out(int index, ValueId v);
  void lower_node(const Node& n);
  LoweredRegion take() { return std::move(r_); }

 private:
  int add_tensor(RTensor t);
  int scratch_like(const std::string& name, const Shape& s, DType dtype, bool rowmajor = false, bool nhwc3 = false);
  int relayout(ValueId v, bool to_rowmajor);
  int border_tensor(const Value& val, RTensor::Home home, int index, bool nhwc3 = false, bool rowmajor = false);
  bool moved_only(ValueId v) const;
  bool border_in_place(int border) const;
  void align_weights();
  bool dense_view(const Node& n) const;
  void view(const Node& n);

  const Graph& g_;
  const TargetInfo& target_;
  std::vector<std::vector<int>> consumers_;
  std::vector<int> producers_;
  LoweredRegion r_;
  std::map<ValueId, int> vt_;
  std::map<ValueId, int> rowmajor_copy_, nhwc_copy_;  // relayout()'s tensors
  std::map<int, layers::NormPattern> norm_of_;         // node -> the decomposed LayerNormalization it is part of
  std::map<int, layers::Q8Lookup> lookup_of_;          // node -> the int8 elementwise chain it is part of
  std::map<int, layers::Q8NormDecomposed> qnorm_of_;  // node -> the int8 LayerNorm decomposition it is part of
  std::map<int, layers::Q8Split> split_of_;            // node -> the int8 Split between QDQ pairs it is part of
  std::map<int, std::vector<std::string>> view_origins_;
};

// MLIP_DT_INT8 / MLIP_DT_UINT8 for those tensor types, else MLIP_DT_FP16.
uint32_t mlip_dtype(DType t);
inline bool is_q8_type(DType t) { return t == DType::Int8 || t == DType::UInt8; }
// An integer activation an int8 region holds: 8-bit, or int16 (16x8, the
// CONV2D and FC layers only).
inline bool is_int_act_type(DType t) { return is_q8_type(t) || t == DType::Int16; }

// Throws Error naming the node for anything the support rules should not
// have let through.
LoweredRegion lower_region(const Graph& body, const std::string& name, const TargetInfo& target);

// Offsets of the scratch tensors (alignment 128, the memory planner's
// hill climb over the layer schedule); returns the scratch size.
uint32_t plan_scratch(LoweredRegion& r);

}  // namespace mlipc::mlip
