// PERMUTE: data movement inside a region, for the row-major kinds of
// transformers. Every form is one strided copy (StridedCopy: output element
// (i0, .., i5) is source element offset + sum i_k * strides[k]):
// Transpose of any permutation (the dimensions whose strides chain merged;
// at most MLIP_PERMUTE_RANK, 6, remain, the rank of any region tensor), Slice with positive steps, Gather of constant
// indices that step evenly (one index: the class token), Expand (stride 0),
// and the change of layout a Reshape needs when its input is NHWC
// (LowerContext::relayout). A copy that moves nothing (one run of the
// source in order: a Reshape of row-major bytes, Transpose(0, 2, 3, 1) of
// an NHWC tensor, ...) is a view and costs no command. Split across tiles
// by the outermost output dimension; each pass DMAs the source range its
// outputs read, one PERMUTE command, DMA out.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ops/gather.h"
#include "ops/op.h"
#include "ops/slice.h"
#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

StridedCopy strided_copy(std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t offset) {
  StridedCopy c;
  c.offset = offset;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == 1) continue;  // one step: its stride never counts
    if (!c.dims.empty() && c.strides.back() == strides[k] * dims[k]) {
      c.dims.back() *= dims[k];  // chains with the dimension before it
      c.strides.back() = strides[k];
      continue;
    }
    c.dims.push_back(dims[k]);
    c.strides.push_back(strides[k]);
  }
  if (c.dims.empty()) {
    c.dims = {1};
    c.strides = {1};
  }
  c.ok = c.dims.size() <= MLIP_PERMUTE_RANK;
  return c;
}

std::vector<int64_t> storage_strides(const RTensor& t) {
  const Shape& s = t.dims;
  if (!t.rowmajor && s.size() == 4) return {s[1] * s[2] * s[3], 1, s[3] * s[1], s[1]};  // NHWC
  if (!t.rowmajor && s.size() == 3) return {s[1] * s[2], 1, s[1]};                       // NHWC, h = 1 (Conv1d)
  std::vector<int64_t> st(s.size(), 1);
  for (size_t k = s.size(); k-- > 1;) st[k - 1] = st[k] * s[k];
  return st;
}

std::string rowmajor_reason(const Value& v) {
  if (v.dtype != DType::Float32) return "only float32 tensors";
  if (v.shape.empty() || static_cast<int64_t>(v.shape.size()) > kMaxRank)
    return fmt::format("{} dimensions (the MLIP's row-major layers take 1 to {})", v.shape.size(), kMaxRank);
  if (v.shape.size() == 4) return batch_reason(v.shape[0]);  // images (NCHW): the NHWC kinds' limit
  return "";
}

namespace permute_layer {

const char* kMoveOps[] = {"Transpose", "Reshape", "Flatten", "Squeeze",
                          "Unsqueeze", "Slice",   "Split",   "Gather", "Expand"};

// The copy n makes of a source whose logical axes have strides `in`
// (row-major or NHWC), or !ok with why.
struct Move {
  StridedCopy copy;
  std::vector<int64_t> strides;  // per output axis, before merging
  bool view = false;             // a reshape: the bytes in row-major order as they are
  std::string why;
};

Move move_of(const Graph& g, const Node& n, const std::vector<int64_t>& in, size_t out = 0) {
  Move m;
  const Shape& x = g.value(n.inputs[0]).shape;
  const Shape& y = g.value(n.outputs[out]).shape;
  const int r = static_cast<int>(x.size());
  if (op_traits(n.op).view != View::None) {
    m.view = true;
    return m;
  }
  std::vector<int64_t> strides;
  int64_t offset = 0;
  if (n.op == "Transpose") {
    std::vector<int64_t> perm = n.attrs.get_ints("perm", {});
    if (perm.empty())
      for (int k = r - 1; k >= 0; --k) perm.push_back(k);
    for (int64_t a : perm) strides.push_back(in[static_cast<size_t>(a)]);
  } else if (n.op == "Slice") {
    if (!ops::slice_bounds_constant(g, n)) {
      m.why = "slice bounds computed at run time";
      return m;
    }
    const ops::SliceParams p = ops::slice_params(g, n);
    for (int k = 0; k < r; ++k) {
      if (p.step[static_cast<size_t>(k)] < 1) {
        m.why = "a negative slice step";
        return m;
      }
      strides.push_back(in[static_cast<size_t>(k)] * p.step[static_cast<size_t>(k)]);
      offset += p.start[static_cast<size_t>(k)] * in[static_cast<size_t>(k)];
    }
  } else if (n.op == "Gather") {
    const Value& idx = g.value(n.inputs[1]);
    if (!idx.is_constant()) {
      m.why = "indices computed at run time";
      return m;
    }
    const int axis = ops::gather_axis(n.attrs, r);
    std::vector<int64_t> v = idx.constant->as_int64();
    for (int64_t& i : v) i = i < 0 ? i + x[static_cast<size_t>(axis)] : i;
    if (v.empty()) {
      m.why = "no index";
      return m;
    }
    const int64_t step = v.size() > 1 ? v[1] - v[0] : 1;
    for (size_t i = 1; i < v.size(); ++i)
      if (v[i] - v[i - 1] != step || step < 1) {
        m.why = "indices that do not step evenly upward";
        return m;
      }
    offset = v[0] * in[static_cast<size_t>(axis)];
    for (int k = 0; k < axis; ++k) strides.push_back(in[static_cast<size_t>(k)]);
    for (size_t k = 0; k < idx.shape.size(); ++k)  // the indices' own dimensions (one of them at most varies)
      strides.push_back(k + 1 == idx.shape.size() ? step * in[static_cast<size_t>(axis)] : 0);
    for (int k = axis + 1; k < r; ++k) strides.push_back(in[static_cast<size_t>(k)]);
  } else if (n.op == "Split") {  // output `out`: the range of the axis after the outputs before it
    const int axis = static_cast<int>(n.attrs.get_int("axis", 0) < 0 ? n.attrs.get_int("axis", 0) + r
                                                                        : n.attrs.get_int("axis", 0));
    for (size_t o = 0; o < out; ++o) offset += g.value(n.outputs[o]).shape[static_cast<size_t>(axis)];
    offset *= in[static_cast<size_t>(axis)];
    strides = in;
  } else if (n.op == "Expand") {
    for (size_t k = 0; k < y.size(); ++k) {
      const int64_t xi = static_cast<int64_t>(k) - static_cast<int64_t>(y.size() - x.size());
      strides.push_back(xi < 0 || x[static_cast<size_t>(xi)] == 1 ? 0 : in[static_cast<size_t>(xi)]);
    }
  }
  m.strides = strides;
  m.copy = strided_copy(y, strides, offset);
  if (!m.copy.ok)
    m.why = fmt::format("the copy needs {} dimensions after merging, PERMUTE has {}", m.copy.dims.size(),
                        MLIP_PERMUTE_RANK);
  return m;
}

// Elements a pass of `cnt` steps of the outermost output dimension reads
// and writes.
struct PermutePass {
  const StridedCopy& c;
  int64_t inner() const {
    int64_t v = 1;
    for (size_t k = 1; k < c.dims.size(); ++k) v *= c.dims[k];
    return v;
  }
  int64_t span(int64_t cnt) const {  // source elements: first to last read, plus one
    int64_t v = (cnt - 1) * c.strides[0] + 1;
    for (size_t k = 1; k < c.dims.size(); ++k) v += (c.dims[k] - 1) * c.strides[k];
    return v;
  }
  uint64_t bytes(int64_t cnt, int64_t eb) const { return ocm_round(span(cnt) * eb) + ocm_round(cnt * inner() * eb); }
};

}  // namespace permute_layer

std::string move_reason(const Graph& g, const Node& n, const SupportLimits& lim) {
  const auto& ops = permute_layer::kMoveOps;
  if (std::find(std::begin(ops), std::end(ops), n.op) == std::end(ops))
    return fmt::format("{} has no MLIP equivalent", n.op);
  const Value& x = g.value(n.inputs[0]);
  if (x.is_constant()) return "a constant input";
  // A copy moves bytes, so an int8 region moves its 8-bit tensors as they
  // are (a Slice, Split, Gather or Expand that passes/fold_qdq keeps on the
  // integers: the scale and zero point pass through; 16x8's int16 too);
  // PERMUTE's element size is the tensor's.
  if (lim.int8) {
    for (ValueId v : {n.inputs[0], n.outputs[0]})
      if (g.value(v).dtype != x.dtype || !is_int_act_type(x.dtype))
        return fmt::format("{} inside an int8 region moves int8, uint8 or int16 tensors only", n.op);
  }
  for (ValueId v : {n.inputs[0], n.outputs[0]}) {
    // A recurrent layer's Y [seq, dirs, batch, hidden] and its moves: the
    // first dimension is time, not a batch of images.
    if (g.value(v).shape.size() == 4 && sequence_tensor(g, v)) continue;
    Value as_float = g.value(v);  // the shape rules are the fp16 ones
    if (lim.int8) as_float.dtype = DType::Float32;
    if (std::string r = rowmajor_reason(as_float); !r.empty()) return r;
  }
  // The layout of a 4-D input is its writer's: either must work.
  for (bool nhwc : {false, true}) {
    if (nhwc && x.shape.size() != 4) continue;
    RTensor t;
    t.dims = x.shape;
    t.rowmajor = !nhwc;
    for (size_t o = 0; o < n.outputs.size(); ++o) {
      if (n.outputs[o] == kNoValue) return "an absent output";
      const permute_layer::Move m = permute_layer::move_of(g, n, storage_strides(t), o);
      if (!m.why.empty()) return m.why;
      if (m.view) continue;
      if (permute_layer::PermutePass{m.copy}.bytes(1, kF16Bytes) > lim.work_bytes)
        return fmt::format("one step of the copy does not fit the {} bytes of OCM", lim.work_bytes);
    }
  }
  return "";
}

namespace permute_layer {

void lower_output(LowerContext& ctx, const Node& n, size_t out) {
  const Graph& g = ctx.graph();
  const Shape& y = g.value(n.outputs[out]).shape;
  const ValueId xv = n.inputs[0];
  int src = ctx.tensor_as_is(xv);
  Move m = move_of(g, n, storage_strides(ctx.tensor(src)), out);
  if (!m.copy.ok) {  // merged in the other layout only: copy from row-major bytes
    src = ctx.rowmajor_of(xv);
    m = move_of(g, n, storage_strides(ctx.tensor(src)), out);
  }
  if (!m.why.empty()) fail("{}", m.why);
  if (m.copy.identity()) {
    ctx.alias_output(n, src, y, true, out);
    return;
  }
  if (y.size() == 3 && m.strides.size() == 3 && ctx.tensor(src).dims.size() == 3 && !ctx.tensor(src).rowmajor) {
    // A 3-D NHWC input (a 1-D convolution's: the Slice of a causal
    // convolution's padding) gives an NHWC output, axes 0, 2, 1 in order: a
    // view when those bytes are the input's, a copy in that order otherwise.
    const std::vector<int64_t>& st = m.strides;
    const StridedCopy c = strided_copy({y[0], y[2], y[1]}, {st[0], st[2], st[1]}, m.copy.offset);
    if (c.identity()) {
      ctx.alias_output(n, src, y, false, out);
      return;
    }
    if (c.ok) {
      RLayer& l = ctx.new_layer(MLIP_LAYER_PERMUTE, n);
      if (n.outputs.size() > 1) l.name = fmt::format("{}:{}", n.name, out);
      l.inputs = {src};
      l.params = c;
      l.output = ctx.nhwc_output(n, out);
      l.dtype = ctx.tensor(l.output).dtype;
      return;
    }
  }
  if (y.size() == 4 && m.strides.size() == 4) {  // the bytes of an NHWC output (axes 0, 2, 3, 1): a view
    const std::vector<int64_t>& st = m.strides;
    if (strided_copy({y[0], y[2], y[3], y[1]}, {st[0], st[2], st[3], st[1]}, m.copy.offset).identity()) {
      ctx.alias_output(n, src, y, false, out);
      return;
    }
  }
  RLayer& l = ctx.new_layer(MLIP_LAYER_PERMUTE, n);
  if (n.outputs.size() > 1) l.name = fmt::format("{}:{}", n.name, out);
  l.inputs = {src};
  l.params = m.copy;
  l.output = ctx.output_tensor(n, out, true);
  l.dtype = ctx.tensor(l.output).dtype;
}

}  // namespace permute_layer

void lower_move(LowerContext& ctx, const Node& n) {
  if (op_traits(n.op).view != View::None) {  // Reshape, Flatten, Squeeze, Unsqueeze: row-major bytes as they are
    ctx.alias_output(n, ctx.rowmajor_of(n.inputs[0]), ctx.graph().value(n.outputs[0]).shape, true);
    return;
  }
  for (size_t o = 0; o < n.outputs.size(); ++o) permute_layer::lower_output(ctx, n, o);
}

namespace permute_layer {

// The outermost output dimension split across tiles; per pass, the source
// range its steps read (DMA in), PERMUTE, DMA out.
void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const StridedCopy& c = params_of<StridedCopy>(l);
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const int64_t eb = y.elem_bytes();
  std::vector<int64_t> d = c.dims, s = c.strides;
  while (d.size() < 4) {  // padded to 4 on the inside
    d.push_back(1);
    s.push_back(0);
  }
  const size_t outer = d.size() - 4;  // dimensions outside d0: the command's d4 (and d5)
  const PermutePass pass{c};
  const int64_t inner = pass.inner();
  const auto parts = split_range(d[0], p.num_tiles());
  p.set_split(Split::Rows, parts);
  const int64_t cnt = largest(d[0], [&](int64_t v) { return pass.bytes(v, eb) <= p.work_limit(); });
  if (cnt == 0) fail("layer '{}' does not fit OCM", l.name);
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    const int64_t n0 = std::min(cnt, parts[t].second - parts[t].first);
    Ocm ocm(p.work_limit());
    const uint32_t src = ocm.take(pass.span(n0) * eb), dst = ocm.take(n0 * inner * eb);
    p.note_ocm(tile, ocm);
    for (int64_t a = parts[t].first; a < parts[t].second; a += cnt) {
      const int64_t an = std::min(cnt, parts[t].second - a);
      p.count_pass();
      p.dma_in(tile, p.binding(x), p.ddr_base(x) + (c.offset + a * s[0]) * eb, src, pass.span(an) * eb);
      mlip_permute_args pa{};
      pa.src = src;
      pa.dst = dst;
      pa.elem_bytes = u32(eb);
      std::vector<int64_t> pd = d;  // this pass's: an steps of the outermost
      pd[0] = an;
      pa.d0 = u32(pd[outer]);
      pa.d1 = u32(pd[outer + 1]);
      pa.d2 = u32(pd[outer + 2]);
      pa.d3 = u32(pd[outer + 3]);
      pa.s0 = u32(s[outer]);
      pa.s1 = u32(s[outer + 1]);
      pa.s2 = u32(s[outer + 2]);
      pa.s3 = u32(s[outer + 3]);
      if (outer >= 1) {  // a copy of 4 dimensions leaves d4, d5 (and their strides) 0: none
        pa.d4 = u32(pd[outer - 1]);
        pa.s4 = u32(s[outer - 1]);
      }
      if (outer == 2) {
        pa.d5 = u32(pd[0]);
        pa.s5 = u32(s[0]);
      }
      p.emit(MLIP_OP_PERMUTE, tile, pa);
      p.dma_out(tile, p.binding(y), p.ddr_base(y) + a * inner * eb, dst, an * inner * eb);
    }
  }
}

void json(const RLayer& l, nlohmann::json& a) {
  const StridedCopy& c = params_of<StridedCopy>(l);
  a["dims"] = c.dims;
  a["strides"] = c.strides;
  a["offset"] = c.offset;
}

}  // namespace permute_layer

extern const LayerKind kPermute = {MLIP_LAYER_PERMUTE, "permute", "Permute", "mrvl.permute", {"Gather", "Expand"},
                                   /*fuses_activation=*/false, move_reason, lower_move, permute_layer::plan, nullptr,
                                   permute_layer::json};

}  // namespace mlipc::mlip::layers
