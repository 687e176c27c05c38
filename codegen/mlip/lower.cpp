#include "mlip/lower.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "memory/planner.h"
#include "mlip/activation.h"
#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/region.h"
#include "ops/op.h"
#include "ops/quant.h"
#include "support/error.h"

namespace mlipc::mlip {

LowerContext::LowerContext(const Graph& body, const std::string& name, const TargetInfo& target)
    : g_(body), target_(target), consumers_(body.consumers()), producers_(body.producers()) {
  r_.name = name;
  for (const layers::NormPattern& p : layers::norm_patterns(body, consumers_))
    for (int i : p.nodes) norm_of_[i] = p;
  for (const layers::Q8Lookup& c : layers::q8_lookups(body, consumers_, producers_))
    for (int i : c.nodes) lookup_of_[i] = c;
  // a LayerNorm decomposition's divisor nodes are its own, not a lookup's
  for (const layers::Q8NormDecomposed& p : layers::q8_norms_decomposed(body, consumers_, producers_))
    for (int i : p.nodes) {
      qnorm_of_[i] = p;
      lookup_of_.erase(i);
    }
  for (const layers::Q8Split& s : layers::q8_splits(body, consumers_, producers_)) {
    split_of_[s.dq] = s;
    split_of_[s.split] = s;
    for (const std::vector<int>& chain : s.outputs)
      for (int i : chain) split_of_[i] = s;
  }
}

int LowerContext::add_tensor(RTensor t) {
  r_.tensors.push_back(std::move(t));
  return static_cast<int>(r_.tensors.size()) - 1;
}

namespace {

// NHWC for 4-D (unless `rowmajor`), [N, C] for 2-D, row-major for the other
// ranks up to kMaxRank (n the first dimension, w the middle ones, c the last);
// with `nhwc3` a 3-D [N, C, W] tensor is NHWC too, with h = 1 (a 1-D
// convolution's: CONV2D reads it as [N, 1, W, C]).
void set_dims(RTensor& t, const Shape& s, bool rowmajor = false, bool nhwc3 = false) {
  t.dims = s;
  if (s.size() == 3 && nhwc3 && !rowmajor) {
    t.n = s[0];
    t.c = s[1];
    t.h = 1;
    t.w = s[2];
  } else if (s.size() == 4 && !rowmajor) {
    t.n = s[0];
    t.c = s[1];
    t.h = s[2];
    t.w = s[3];
  } else if (s.size() == 2) {
    t.n = s[0];
    t.c = s[1];
  } else if (!s.empty() && s.size() <= static_cast<size_t>(kMaxRank)) {
    t.rowmajor = true;
    t.n = s.size() >= 2 ? s[0] : 1;
    t.w = 1;
    for (size_t d = 1; d + 1 < s.size(); ++d) t.w *= s[d];
    t.c = s.back();
  } else {
    fail("only tensors of 1 to {} dimensions run on the MLIP, got {}", kMaxRank, shape_str(s));
  }
}

}  // namespace

uint32_t mlip_dtype(DType t) {
  return t == DType::Int8 ? MLIP_DT_INT8 : t == DType::UInt8 ? MLIP_DT_UINT8 : t == DType::Int16 ? MLIP_DT_INT16 : MLIP_DT_FP16;
}

int LowerContext::scratch_like(const std::string& name, const Shape& s, DType dtype, bool rowmajor, bool nhwc3) {
  RTensor t;
  t.name = name;
  t.dtype = mlip_dtype(dtype);
  set_dims(t, s, rowmajor, nhwc3);
  return add_tensor(t);
}

int LowerContext::tensor_as_is(ValueId v) const {
  auto it = vt_.find(v);
  if (it == vt_.end()) fail("internal: value '{}' has no MLIP tensor", g_.value(v).name);
  return it->second;
}

bool LowerContext::is_rowmajor(ValueId v) const {
  const RTensor& t = tensor(tensor_as_is(v));
  return t.rowmajor || (t.dims.size() != 4 && t.dims.size() != 3) || t.h * t.w == 1;
}

namespace {

// Positions of one image of a 3-D or 4-D tensor (its NHWC h * w).
int64_t positions_of(const Shape& s) { return s.size() == 4 ? s[2] * s[3] : s.size() == 3 ? s[2] : 1; }

// A 3-D tensor in NHWC (channels-last) order: a 1-D convolution's.
bool is_nhwc3(const RTensor& t) { return t.dims.size() == 3 && !t.rowmajor; }

}  // namespace

// A 4-D tensor in the other layout: one PERMUTE layer, remembered, so that
// every reader that wants it shares it. NHWC -> row-major is [n][hw][c] ->
// [n][c][hw]; row-major -> NHWC the reverse.
int LowerContext::relayout(ValueId v, bool to_rowmajor) {
  std::map<ValueId, int>& memo = to_rowmajor ? rowmajor_copy_ : nhwc_copy_;
  if (auto it = memo.find(v); it != memo.end()) return it->second;
  const int src = tensor_as_is(v);
  const RTensor x = tensor(src);  // a copy: the tensor list grows below
  const Shape& s = x.dims;
  const int64_t hw = positions_of(s), c = s[1];
  const int dst = scratch_like(x.name + (to_rowmajor ? ":nchw" : ":nhwc"), s, DType::Float32, to_rowmajor,
                               /*nhwc3=*/!to_rowmajor);
  r_.tensors[static_cast<size_t>(dst)].dtype = x.dtype;
  RLayer l;
  l.kind = MLIP_LAYER_PERMUTE;
  l.name = "relayout:" + x.name;
  l.inputs = {src};
  l.output = dst;
  l.dtype = x.dtype;
  // out [n][c][hw] reads in [n][hw][c] (to row-major), or the reverse
  l.params = to_rowmajor ? layers::strided_copy({s[0], c, hw}, {hw * c, 1, c}, 0)
                         : layers::strided_copy({s[0], hw, c}, {hw * c, 1, hw}, 0);
  r_.layers.push_back(std::move(l));
  memo[v] = dst;
  return dst;
}

int LowerContext::tensor_of(ValueId v) {
  const int t = tensor_as_is(v);
  const RTensor& x = tensor(t);
  if (x.rowmajor && x.dims.size() == 4 && x.dims[2] * x.dims[3] != 1) return relayout(v, false);
  return t;
}

bool LowerContext::is_nhwc3(ValueId v) const { return mlip::is_nhwc3(tensor(tensor_as_is(v))); }

int LowerContext::nhwc_of(ValueId v) {
  const int t = tensor_as_is(v);
  const RTensor& x = tensor(t);
  if (x.rowmajor && x.dims.size() == 3) return relayout(v, false);
  return tensor_of(v);
}

int LowerContext::rowmajor_of(ValueId v) {
  const int t = tensor_as_is(v);
  const RTensor& x = tensor(t);
  if (mlip::is_nhwc3(x)) return relayout(v, true);  // (an identity copy when C or W is 1: rare)
  if (!x.rowmajor && x.dims.size() == 4 && x.dims[2] * x.dims[3] != 1 && !x.hwc_order) return relayout(v, true);
  return t;
}

RLayer& LowerContext::new_layer(uint32_t kind, const Node& n) {
  RLayer l;
  l.kind = kind;
  l.name = n.name;
  l.origins = n.origins;
  if (ops::requant_mode(n.attrs) == ops::RequantMode::Ort) l.requant = MLIP_REQUANT_ORT;
  r_.layers.push_back(std::move(l));
  return r_.layers.back();
}

int LowerContext::output_tensor(const Node& n, size_t i, bool rowmajor) {
  const Value& v = g_.value(n.outputs[i]);
  int t = scratch_like(v.name, v.shape, v.dtype, rowmajor);
  vt_[n.outputs[i]] = t;
  return t;
}

int LowerContext::output_like(const Node& n, int like, size_t i) {
  const Value& v = g_.value(n.outputs[i]);
  const RTensor& x = tensor(like);
  int t = scratch_like(v.name, v.shape, v.dtype, x.rowmajor, mlip::is_nhwc3(x) && v.shape.size() == 3);
  vt_[n.outputs[i]] = t;
  return t;
}

int LowerContext::nhwc_output(const Node& n, size_t i) {
  const Value& v = g_.value(n.outputs[i]);
  int t = scratch_like(v.name, v.shape, v.dtype, false, true);
  vt_[n.outputs[i]] = t;
  return t;
}

int LowerContext::alias_output(const Node& n, int t, const Shape& dims, bool rowmajor, size_t out) {
  RTensor a = tensor(t);
  const Value& v = g_.value(n.outputs[out]);
  a.name = v.name;
  a.rowmajor = false;
  a.h = a.w = a.c = a.n = 1;
  set_dims(a, dims, rowmajor, mlip::is_nhwc3(tensor(t)));  // a 3-D NHWC view stays NHWC
  a.flat = a.hwc_order = false;
  a.alias_of = tensor(t).alias_of >= 0 ? tensor(t).alias_of : t;
  const int ti = add_tensor(a);
  vt_[n.outputs[out]] = ti;
  return ti;
}

int LowerContext::view_tensor(int t, const std::string& name, const Shape& dims) {
  RTensor a = tensor(t);
  if (a.rowmajor || a.planar || dims.size() < 3 || a.elems() != [&] {
        int64_t e = 1;
        for (int64_t d : dims) e *= d;
        return e;
      }())
    fail("internal: '{}' has no NHWC view of shape {}", a.name, shape_str(dims));
  a.name = name;
  a.h = a.w = a.c = a.n = 1;
  set_dims(a, dims, false, dims.size() == 3);
  a.flat = a.hwc_order = false;
  a.alias_of = tensor(t).alias_of >= 0 ? tensor(t).alias_of : t;
  return add_tensor(a);
}

std::vector<std::string> LowerContext::view_origins(int t) const {
  auto it = view_origins_.find(t);
  return it == view_origins_.end() ? std::vector<std::string>{} : it->second;
}

const TensorData& LowerContext::constant(const Node& n, size_t i) const {
  if (!n.has_input(i) || !g_.value(n.inputs[i]).is_constant()) fail("input #{} must be a constant", i);
  const TensorData& t = *g_.value(n.inputs[i]).constant;
  if (t.dtype() != DType::Float32) fail("input #{} must be float32", i);
  return t;
}

const TensorData& LowerContext::any_constant(const Node& n, size_t i) const {
  if (!n.has_input(i) || !g_.value(n.inputs[i]).is_constant()) fail("input #{} must be a constant", i);
  return *g_.value(n.inputs[i]).constant;
}

int64_t LowerContext::add_bytes(const std::vector<uint8_t>& v) {
  align_weights();
  int64_t off = static_cast<int64_t>(r_.weights.size());
  r_.weights.insert(r_.weights.end(), v.begin(), v.end());
  return off;
}

void LowerContext::align_weights() {
  while (r_.weights.size() % MLIP_OCM_ALIGN) r_.weights.push_back(0);
}

int64_t LowerContext::add_f16(const std::vector<float>& v) {
  align_weights();
  int64_t off = static_cast<int64_t>(r_.weights.size());
  for (float f : v) {
    uint16_t h = mlip_f32_to_f16(f);
    r_.weights.push_back(static_cast<uint8_t>(h & 0xff));
    r_.weights.push_back(static_cast<uint8_t>(h >> 8));
  }
  return off;
}

int64_t LowerContext::add_f32(const std::vector<float>& v) {
  std::vector<uint32_t> bits(v.size());
  for (size_t i = 0; i < v.size(); ++i) std::memcpy(&bits[i], &v[i], sizeof bits[i]);
  return add_u32(bits);
}

int64_t LowerContext::add_u32(const std::vector<uint32_t>& v) {
  align_weights();
  int64_t off = static_cast<int64_t>(r_.weights.size());
  for (uint32_t u : v)
    for (int64_t k = 0; k < kF32Bytes; ++k) r_.weights.push_back(static_cast<uint8_t>(u >> (8 * k)));
  return off;
}

// A region input or output: fp32 NCHW in its own binding. `nhwc3`: a 3-D
// output written from NHWC bytes (its CONVERT_OUT transposes them).
int LowerContext::border_tensor(const Value& val, RTensor::Home home, int index, bool nhwc3, bool rowmajor) {
  RTensor t;
  t.name = val.name;
  t.home = home;
  t.index = index;
  t.planar = true;
  t.dtype = mlip_dtype(val.dtype);
  set_dims(t, val.shape, rowmajor, nhwc3);
  return add_tensor(t);
}

// A border whose element order is the region's (one position per image, or
// row-major) needs no layer: its readers and writers address the border
// binding, their DMAs converting a float region's fp32 (LayerPlanner::dma;
// an int8 region's bytes are the same on both sides). A border that changes
// the layout is a CONVERT_IN / CONVERT_OUT layer.
bool LowerContext::border_in_place(int border) const {
  const RTensor& t = tensor(border);
  return t.h * t.w == 1 || t.rowmajor;
}

// A 4-D float or 8-bit input that only data movement reads (a recurrent
// layer's Y [T, D, B, H] cut at a stage border of the mesh, say; the heads
// [B, H, T, D] of a quantized transformer's attention): its readers take any
// layout, so it stays in the CPU's (row-major) order rather than being
// transposed to NHWC on the way in. An int8 MATMUL (a QLinearMatMul of two
// computed operands) reads row-major bytes too.
bool LowerContext::moved_only(ValueId v) const {
  const Value& val = g_.value(v);
  if (val.shape.size() != 4 || (val.dtype != DType::Float32 && !is_q8_type(val.dtype)) || consumers_[v].empty())
    return false;
  return std::all_of(consumers_[v].begin(), consumers_[v].end(), [&](int c) {
    const Node& n = g_.nodes[static_cast<size_t>(c)];
    if (n.op == "QLinearMatMul" && is_q8_type(val.dtype) && !g_.value(n.inputs[3]).is_constant()) return true;
    return op_traits(n.op).rearranges && n.inputs[0] == v && !dense_view(n) &&
           !layers::shuffle_at(g_, consumers_, producers_, c);
  });
}

void LowerContext::convert_in(int index, ValueId v) {
  const Value& val = g_.value(v);
  const bool rowmajor = moved_only(v);
  int ti = border_tensor(val, RTensor::Input, index, false, rowmajor);
  r_.inputs.push_back(ti);
  int si = scratch_like(val.name + (is_int_act_type(val.dtype) ? ":nhwc" : ":fp16"), val.shape, val.dtype, rowmajor);
  vt_[v] = si;
  if (border_in_place(ti)) {  // the fp16 tensor its readers see lives in the input binding
    r_.tensors[static_cast<size_t>(si)].home = RTensor::Input;
    r_.tensors[static_cast<size_t>(si)].index = index;
    return;
  }
  RLayer l;
  l.kind = MLIP_LAYER_CONVERT_IN;
  l.name = "convert_in:" + val.name;
  l.inputs = {ti};
  l.output = si;
  r_.layers.push_back(l);
}

void LowerContext::convert_out(int index, ValueId v) {
  const Value& val = g_.value(v);
  // A row-major tensor is in the CPU's order already (a 4-D one too: ONNX
  // order is NCHW), so it is not relaid out to NHWC only to be transposed
  // back at the border (an int8 one too: an int8 MATMUL's or PERMUTE's
  // output).
  const RTensor& as_is = tensor(tensor_as_is(v));
  const bool rowmajor = as_is.rowmajor;
  const int src = rowmajor ? tensor_as_is(v) : tensor_of(v);
  int to = border_tensor(val, RTensor::Output, index, mlip::is_nhwc3(tensor(src)), rowmajor);
  r_.outputs.push_back(to);
  // In place: the bytes a layer writes into scratch (not a region input,
  // not an output already) move to the output binding, with every view of
  // them, when the output is all of them (a fused bias Add's output, a
  // Reshape; not an LSTM's Y, the first steps of a tensor with Y_c after).
  const int root = tensor(src).alias_of >= 0 ? tensor(src).alias_of : src;
  auto root_of = [&](int t) { return r_.tensors[static_cast<size_t>(t)].alias_of >= 0 ? r_.tensors[static_cast<size_t>(t)].alias_of : t; };
  const bool written = std::any_of(r_.layers.begin(), r_.layers.end(), [&](const RLayer& l) { return root_of(l.output) == root; });
  if (border_in_place(to) && written && tensor(root).home == RTensor::Scratch &&
      tensor(root).bytes() == tensor(src).bytes()) {
    for (size_t t = 0; t < r_.tensors.size(); ++t)
      if (root_of(static_cast<int>(t)) == root) {
        r_.tensors[t].home = RTensor::Output;
        r_.tensors[t].index = index;
      }
    return;
  }
  RLayer l;
  l.kind = MLIP_LAYER_CONVERT_OUT;
  l.name = "convert_out:" + val.name;
  l.inputs = {src};
  l.output = to;
  r_.layers.push_back(l);
}

void LowerContext::lower_node(const Node& n) {
  if (layers::folded_guard(g_, consumers_, producers_, index_of(n))) return;  // read by its Div (ELTWISE)
  if (layers::q8_chain_member(g_, consumers_, producers_, index_of(n))) return;  // its Softmax or LayerNorm lowers it
  if (auto it = qnorm_of_.find(index_of(n)); it != qnorm_of_.end()) {  // an int8 LayerNorm decomposition: one NORM
    if (it->second.nodes.back() == index_of(n)) layers::lower_q8_norm_decomposed(*this, it->second);
    return;
  }
  if (auto it = lookup_of_.find(index_of(n)); it != lookup_of_.end()) {  // an int8 elementwise chain: one TABLE
    if (it->second.nodes.back() == index_of(n)) layers::lower_q8_lookup(*this, it->second);  // the others make none
    return;
  }
  if (auto it = split_of_.find(index_of(n)); it != split_of_.end()) {  // an int8 Split between QDQ pairs
    if (it->second.split == index_of(n)) layers::lower_q8_split(*this, it->second);  // the others make none
    return;
  }
  if (auto it = norm_of_.find(index_of(n)); it != norm_of_.end()) {  // a decomposed LayerNormalization
    if (it->second.last == index_of(n)) layers::lower_norm_pattern(*this, it->second);  // the others make none
    return;
  }
  if (const LayerKind* k = layer_kind_for_op(n.op)) {
    k->lower(*this, n);
  } else if (layers::clamp16(g_, n)) {  // 16x8: a Clip on int16 values, an int16 ELTWISE
    layers::lower_clamp16(*this, n);
  } else if (is_activation_op(n.op)) {
    // The gate of x * Sigmoid(x) or x * HardSigmoid(x): the Mul lowers both.
    const int self = index_of(n);
    for (int c : consumers_[n.outputs[0]])
      if (gate_of_product(g_, consumers_, producers_, g_.nodes[static_cast<size_t>(c)]) == self) return;
    apply_activation(n, n.inputs[0], activation_of(g_, n), {self});
  } else if (const auto sh = layers::shuffle_at(g_, consumers_, producers_, index_of(n))) {
    if (sh->reshape_back == index_of(n)) layers::lower_shuffle(*this, *sh);  // the other two make no layer
  } else if (dense_view(n)) {
    view(n);
  } else if (op_traits(n.op).view != View::None || n.op == "Transpose") {
    layers::lower_move(*this, n);
  } else {
    fail("operator {} cannot run on the MLIP", n.op);
  }
}

void LowerContext::apply_activation(const Node& n, ValueId x, const Activation& a, const std::vector<int>& readers) {
  const int t = tensor_as_is(x);  // elements: any layout
  RLayer* producer = nullptr;
  for (RLayer& l : r_.layers)
    if (l.output == t) producer = &l;
  bool only_readers = !g_.is_graph_output(x);
  for (int c : consumers_[x])
    if (std::find(readers.begin(), readers.end(), c) == readers.end()) only_readers = false;
  std::vector<std::string> origins;
  for (int i : readers) {
    const Node& r = g_.nodes[static_cast<size_t>(i)];
    origins.insert(origins.end(), r.origins.begin(), r.origins.end());
  }
  if (producer && only_readers && producer->act.kind == MLIP_ACT_NONE && layer_kind(producer->kind).fuses_activation) {
    producer->act = a;
    producer->origins.insert(producer->origins.end(), origins.begin(), origins.end());
    r_.tensors[static_cast<size_t>(t)].name = g_.value(n.outputs[0]).name;
    vt_[n.outputs[0]] = t;
    return;
  }
  RLayer& l = new_layer(MLIP_LAYER_ACTIVATION, n);
  l.origins = origins;
  l.inputs = {t};
  l.act = a;
  l.output = output_like(n, t);
}

// The views support.cpp lets dense layers absorb (the same rules): a
// flatten of a 4-D float tensor into rows that only Gemm and MatMul read;
// an int8 view into rows between row shapes, or a flatten of a 4-D int8
// tensor whose readers are int8 dense layers (or such views); and a
// Transpose(0, 2, 3, 1) that only such views read. Other views and
// transposes are the row-major kinds' (layers/permute.cpp).
bool LowerContext::dense_view(const Node& n) const {
  const Shape& x = g_.value(n.inputs[0]).shape;
  const ValueId out = n.outputs[0];
  const Shape& y = g_.value(out).shape;
  // every reader satisfies pred (and there is one, and no graph output)
  auto all_readers = [&](auto pred) {
    if (g_.is_graph_output(out) || consumers_[out].empty()) return false;
    return std::all_of(consumers_[out].begin(), consumers_[out].end(),
                       [&](int c) { return pred(g_.nodes[static_cast<size_t>(c)]); });
  };
  if (n.op == "Transpose") {
    if (x.size() != 4 || n.attrs.get_ints("perm", {}) != std::vector<int64_t>{0, 2, 3, 1}) return false;
    return all_readers([&](const Node& cn) { return dense_view(cn); });
  }
  if (op_traits(n.op).view != View::Reshape || x.empty() || y.empty() || y[0] != x[0]) return false;
  if (is_int_act_type(g_.value(n.inputs[0]).dtype)) {
    if (!layers::row_shape(y)) return false;
    if (layers::row_shape(x)) return true;  // moves nothing, whoever reads it (a region output too)
    return x.size() == 4 && layers::q8_dense_readers(g_, consumers_, nullptr, out);
  }
  return x.size() == 4 && y.size() == 2 && all_readers([&](const Node& cn) {
           return (cn.op == "Gemm" || cn.op == "MatMul") && cn.inputs[0] == out;
         });
}

// Views a dense layer absorbs: the output aliases the input's bytes.
// Transpose(0, 2, 3, 1): the NHWC bytes already are the result. Flatten (or
// Reshape to [N, C*H*W]): the dense layer reading it reorders its weights
// from the ONNX (c, h, w) order into the NHWC (h, w, c) one, unless a
// transpose before it already made the order h, w, c.
void LowerContext::view(const Node& n) {
  const bool transpose = n.op == "Transpose";
  if (transpose && n.attrs.get_ints("perm", {}) != std::vector<int64_t>{0, 2, 3, 1})
    fail("only NCHW -> NHWC transposes");
  int in = tensor_of(n.inputs[0]);
  RTensor t = r_.tensors[static_cast<size_t>(in)];
  t.name = g_.value(n.outputs[0]).name;
  if (transpose) t.hwc_order = true;
  else t.flat = !t.hwc_order;
  t.alias_of = t.alias_of >= 0 ? t.alias_of : in;
  int ti = add_tensor(t);
  vt_[n.outputs[0]] = ti;
  // The consuming dense layer's composite includes the views before it.
  std::vector<std::string> origins = view_origins(in);
  origins.insert(origins.end(), n.origins.begin(), n.origins.end());
  view_origins_[ti] = origins;
}

LoweredRegion lower_region(const Graph& body, const std::string& name, const TargetInfo& target) {
  LowerContext ctx(body, name, target);
  for (size_t i = 0; i < body.inputs.size(); ++i) ctx.convert_in(static_cast<int>(i), body.inputs[i].value);
  for (const Node& n : body.nodes) {
    try {
      ctx.lower_node(n);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: MLIP lowering: {}", n.describe(), e.what()));
    }
  }
  for (size_t i = 0; i < body.outputs.size(); ++i) ctx.convert_out(static_cast<int>(i), body.outputs[i].value);
  return ctx.take();
}

uint32_t plan_scratch(LoweredRegion& r) {
  // Each scratch root lives from the layer that writes it to the last layer
  // that reads it (or one of its flattened views).
  std::vector<int> root(r.tensors.size());
  for (size_t t = 0; t < r.tensors.size(); ++t) root[t] = r.tensors[t].alias_of >= 0 ? r.tensors[t].alias_of : static_cast<int>(t);
  std::map<int, memory::Buffer> buf;
  for (int li = 0; li < static_cast<int>(r.layers.size()); ++li) {
    const RLayer& l = r.layers[li];
    auto touch = [&](int t) {
      if (r.tensors[t].home != RTensor::Scratch) return;
      int rt = root[t];
      auto it = buf.find(rt);
      if (it == buf.end()) {
        memory::Buffer b;
        b.name = r.tensors[rt].name;
        b.size = static_cast<size_t>(r.tensors[rt].bytes());
        b.first = b.last = li;
        buf[rt] = b;
      } else {
        it->second.last = std::max(it->second.last, li);
      }
    };
    touch(l.output);
    for (int in : l.inputs) touch(in);
  }
  std::vector<memory::Buffer> bufs;
  std::vector<int> roots;
  for (auto& [rt, b] : buf) {
    bufs.push_back(b);
    roots.push_back(rt);
  }
  memory::Plan plan = memory::plan_memory(bufs, MLIP_OCM_ALIGN, "hill_climb");
  for (size_t i = 0; i < roots.size(); ++i) r.tensors[roots[i]].offset = static_cast<uint32_t>(plan.offsets[i]);
  for (size_t t = 0; t < r.tensors.size(); ++t)
    if (r.tensors[t].home == RTensor::Scratch && root[t] != static_cast<int>(t)) r.tensors[t].offset = r.tensors[root[t]].offset;
  return static_cast<uint32_t>(plan.total);
}

}  // namespace mlipc::mlip
