#include "mlip/lower.h"

#include <cmath>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "memory/planner.h"
#include "mlip/region.h"
#include "support/error.h"

namespace mlipc::mlip {

namespace {

class Lowering {
 public:
  Lowering(const Graph& body, const std::string& name) : g_(body) { r_.name = name; }

  LoweredRegion run() {
    for (size_t i = 0; i < g_.inputs.size(); ++i) convert_in(static_cast<int>(i), g_.inputs[i].value);
    const auto consumers = g_.consumers();
    for (const Node& n : g_.nodes) {
      try {
        lower_node(n);
      } catch (const Error& e) {
        throw Error(fmt::format("{}: MLIP lowering: {}", n.describe(), e.what()));
      }
    }
    for (size_t i = 0; i < g_.outputs.size(); ++i) convert_out(static_cast<int>(i), g_.outputs[i].value);
    return std::move(r_);
  }

 private:
  int add_tensor(RTensor t) {
    r_.tensors.push_back(std::move(t));
    return static_cast<int>(r_.tensors.size()) - 1;
  }

  static void set_dims(RTensor& t, const Shape& s) {
    if (s.size() == 4) {
      t.n = s[0];
      t.c = s[1];
      t.h = s[2];
      t.w = s[3];
    } else if (s.size() == 2) {
      t.n = s[0];
      t.c = s[1];
    } else {
      fail("only 2-D and 4-D tensors cross an MLIP region border, got {}", shape_str(s));
    }
  }

  int scratch_like(const std::string& name, const Shape& s) {
    RTensor t;
    t.name = name;
    set_dims(t, s);
    return add_tensor(t);
  }

  int tensor_of(ValueId v) const {
    auto it = vt_.find(v);
    if (it == vt_.end()) fail("internal: value '{}' has no MLIP tensor", g_.value(v).name);
    return it->second;
  }

  RLayer& new_layer(uint32_t kind, const Node& n, const std::string& composite) {
    RLayer l;
    l.kind = kind;
    l.name = n.name;
    l.composite = composite;
    l.origins = n.origins;
    r_.layers.push_back(std::move(l));
    return r_.layers.back();
  }

  // A region input or output: fp32 NCHW in its own binding.
  int border_tensor(const Value& val, RTensor::Home home, int index) {
    RTensor t;
    t.name = val.name;
    t.home = home;
    t.index = index;
    t.planar = true;
    set_dims(t, val.shape);
    return add_tensor(t);
  }

  void convert_in(int index, ValueId v) {
    const Value& val = g_.value(v);
    int ti = border_tensor(val, RTensor::Input, index);
    r_.inputs.push_back(ti);
    int si = scratch_like(val.name + ":fp16", val.shape);
    RLayer l;
    l.kind = MLIP_LAYER_CONVERT_IN;
    l.name = "convert_in:" + val.name;
    l.composite = "mrvl.layout_transform_nchw2nhwc";
    l.inputs = {ti};
    l.output = si;
    r_.layers.push_back(l);
    vt_[v] = si;
  }

  void convert_out(int index, ValueId v) {
    const Value& val = g_.value(v);
    int to = border_tensor(val, RTensor::Output, index);
    r_.outputs.push_back(to);
    RLayer l;
    l.kind = MLIP_LAYER_CONVERT_OUT;
    l.name = "convert_out:" + val.name;
    l.composite = "mrvl.layout_transform_nhwc2nchw";
    l.inputs = {tensor_of(v)};
    l.output = to;
    r_.layers.push_back(l);
  }

  // Appends fp16 values (128-byte aligned) to the WEIGHTS section.
  int64_t add_f16(const std::vector<float>& v) {
    align_weights();
    int64_t off = static_cast<int64_t>(r_.weights.size());
    for (float f : v) {
      uint16_t h = mlip_f32_to_f16(f);
      r_.weights.push_back(static_cast<uint8_t>(h & 0xff));
      r_.weights.push_back(static_cast<uint8_t>(h >> 8));
    }
    return off;
  }
  int64_t add_f32(const std::vector<float>& v) {
    align_weights();
    int64_t off = static_cast<int64_t>(r_.weights.size());
    for (float f : v) {
      uint32_t u;
      std::memcpy(&u, &f, 4);
      for (int k = 0; k < 4; ++k) r_.weights.push_back(static_cast<uint8_t>(u >> (8 * k)));
    }
    return off;
  }
  void align_weights() {
    while (r_.weights.size() % MLIP_OCM_ALIGN) r_.weights.push_back(0);
  }

  const TensorData& constant(const Node& n, size_t i) const {
    if (!n.has_input(i) || !g_.value(n.inputs[i]).is_constant()) fail("input #{} must be a constant", i);
    const TensorData& t = *g_.value(n.inputs[i]).constant;
    if (t.dtype() != DType::Float32) fail("input #{} must be float32", i);
    return t;
  }

  int output_tensor(const Node& n) {
    const Value& v = g_.value(n.outputs[0]);
    int t = scratch_like(v.name, v.shape);
    vt_[n.outputs[0]] = t;
    return t;
  }

  void lower_node(const Node& n) {
    if (n.op == "Conv") conv(n);
    else if (n.op == "Gemm" || n.op == "MatMul") fc(n);
    else if (n.op == "MaxPool" || n.op == "AveragePool") pool(n);
    else if (n.op == "GlobalAveragePool" || n.op == "GlobalMaxPool") global_pool(n);
    else if (n.op == "Add") add(n);
    else if (n.op == "Concat") concat(n);
    else if (n.op == "Relu" || n.op == "Clip") activation(n);
    else if (n.op == "Flatten" || n.op == "Reshape") flatten(n);
    else if (n.op == "Transpose") transpose_to_nhwc(n);
    else fail("operator {} cannot run on the MLIP", n.op);
  }

  void conv(const Node& n) {
    RLayer& l = new_layer(MLIP_LAYER_CONV2D, n, "mrvl.conv2d_nhwc2nhwc");
    l.inputs = {tensor_of(n.inputs[0])};
    const TensorData& w = constant(n, 1);  // [M, C/g, kh, kw]
    const int64_t m = w.shape()[0], cg = w.shape()[1], kh = w.shape()[2], kw = w.shape()[3];
    std::vector<int64_t> pads = n.attrs.get_ints("pads", {0, 0, 0, 0});
    std::vector<int64_t> strides = n.attrs.get_ints("strides", {1, 1});
    std::vector<int64_t> dil = n.attrs.get_ints("dilations", {1, 1});
    l.kh = kh;
    l.kw = kw;
    l.sh = strides[0];
    l.sw = strides[1];
    l.dh = dil[0];
    l.dw = dil[1];
    l.pt = pads[0];
    l.pl = pads[1];
    l.pb = pads[2];
    l.pr = pads[3];
    l.groups = n.attrs.get_int("group", 1);
    std::vector<float> ohwi(static_cast<size_t>(w.numel()));
    const float* src = w.data<float>();
    for (int64_t o = 0; o < m; ++o)
      for (int64_t i = 0; i < cg; ++i)
        for (int64_t y = 0; y < kh; ++y)
          for (int64_t x = 0; x < kw; ++x)
            ohwi[((o * kh + y) * kw + x) * cg + i] = src[((o * cg + i) * kh + y) * kw + x];
    l.weight_offset = add_f16(ohwi);
    l.weight_bytes = static_cast<int64_t>(ohwi.size()) * 2;
    l.weight_name = g_.value(n.inputs[1]).name;
    r_.consts.push_back({l.weight_name, {m, kh, kw, cg}, ohwi});
    if (n.has_input(2)) {
      const TensorData& b = constant(n, 2);
      std::vector<float> bias(b.data<float>(), b.data<float>() + b.numel());
      l.bias_offset = add_f32(bias);
      l.bias_bytes = m * 4;
      l.bias_name = g_.value(n.inputs[2]).name;
      r_.consts.push_back({l.bias_name, {m}, bias});
    }
    l.output = output_tensor(n);
    const RTensor& out = r_.tensors[l.output];
    l.macs = static_cast<uint64_t>(out.elems() * kh * kw * cg);
  }

  void fc(const Node& n) {
    RLayer& l = new_layer(MLIP_LAYER_FC, n, "mrvl.fc_ni2no");
    int in = tensor_of(n.inputs[0]);
    l.inputs = {in};
    if (auto it = view_origins_.find(in); it != view_origins_.end())
      l.origins.insert(l.origins.begin(), it->second.begin(), it->second.end());
    // A copy: output_tensor() below grows r_.tensors, which would leave a
    // reference dangling.
    const RTensor x = r_.tensors[in];
    const TensorData& b = constant(n, 1);
    const bool trans_b = n.op == "Gemm" && n.attrs.get_int("transB", 0) != 0;
    const int64_t k = trans_b ? b.shape()[1] : b.shape()[0];
    const int64_t o = trans_b ? b.shape()[0] : b.shape()[1];
    if (k != x.image_elems()) fail("dense input has {} elements per row, weights expect {}", x.image_elems(), k);
    const float alpha = n.op == "Gemm" ? n.attrs.get_float("alpha", 1.0f) : 1.0f;
    std::vector<float> w(static_cast<size_t>(o * k));
    const float* src = b.data<float>();
    for (int64_t oo = 0; oo < o; ++oo)
      for (int64_t kk = 0; kk < k; ++kk) {
        // A flattened NHWC input holds element (c, h, w) of the ONNX
        // (NCHW) flattening at position (h, w, c).
        int64_t dst = kk;
        if (x.flat) {
          int64_t c = kk / (x.h * x.w), hw = kk % (x.h * x.w);
          dst = hw * x.c + c;
        }
        w[oo * k + dst] = alpha * (trans_b ? src[oo * k + kk] : src[kk * o + oo]);
      }
    l.weight_offset = add_f16(w);
    l.weight_bytes = o * k * 2;
    l.weight_name = g_.value(n.inputs[1]).name;
    r_.consts.push_back({l.weight_name, {o, k}, w});
    if (n.op == "Gemm" && n.has_input(2)) {
      const TensorData& c = constant(n, 2);
      const float beta = n.attrs.get_float("beta", 1.0f);
      std::vector<float> bias(static_cast<size_t>(o));
      for (int64_t oo = 0; oo < o; ++oo) bias[oo] = beta * c.data<float>()[c.numel() == 1 ? 0 : oo];
      l.bias_offset = add_f32(bias);
      l.bias_bytes = o * 4;
      l.bias_name = g_.value(n.inputs[2]).name;
      r_.consts.push_back({l.bias_name, {o}, bias});
    }
    l.output = output_tensor(n);
    l.macs = static_cast<uint64_t>(x.n * k * o);
  }

  void window(RLayer& l, const Node& n) {
    std::vector<int64_t> k = n.attrs.get_ints("kernel_shape");
    std::vector<int64_t> pads = n.attrs.get_ints("pads", {0, 0, 0, 0});
    std::vector<int64_t> strides = n.attrs.get_ints("strides", {1, 1});
    if (k.size() != 2 || pads.size() != 4 || strides.size() != 2) fail("only 2-D windows run on the MLIP");
    l.kh = k[0];
    l.kw = k[1];
    l.sh = strides[0];
    l.sw = strides[1];
    l.pt = pads[0];
    l.pl = pads[1];
    l.pb = pads[2];
    l.pr = pads[3];
  }

  void pool(const Node& n) {
    bool avg = n.op == "AveragePool";
    RLayer& l = new_layer(avg ? MLIP_LAYER_AVGPOOL : MLIP_LAYER_MAXPOOL, n,
                          avg ? "mrvl.avgpool2d_nhwc2nhwc" : "mrvl.maxpool2d_nhwc2nhwc");
    l.inputs = {tensor_of(n.inputs[0])};
    window(l, n);
    l.count_include_pad = avg && n.attrs.get_int("count_include_pad", 0) != 0;
    l.output = output_tensor(n);
  }

  void global_pool(const Node& n) {
    bool avg = n.op == "GlobalAveragePool";
    RLayer& l = new_layer(avg ? MLIP_LAYER_GLOBAL_AVGPOOL : MLIP_LAYER_GLOBAL_MAXPOOL, n,
                          avg ? "mrvl.globalavgpool2d_nhwc2nhwc" : "mrvl.globalmaxpool2d_nhwc2nhwc");
    l.inputs = {tensor_of(n.inputs[0])};
    l.output = output_tensor(n);
  }

  void add(const Node& n) {
    RLayer& l = new_layer(MLIP_LAYER_ADD, n, "mrvl.sum");
    l.inputs = {tensor_of(n.inputs[0]), tensor_of(n.inputs[1])};
    l.output = output_tensor(n);
  }

  void concat(const Node& n) {
    RLayer& l = new_layer(MLIP_LAYER_CONCAT, n, "mrvl.concat");
    for (ValueId in : n.inputs) l.inputs.push_back(tensor_of(in));
    l.output = output_tensor(n);
  }

  void activation(const Node& n) {
    int t = tensor_of(n.inputs[0]);
    RLayer* producer = nullptr;
    for (RLayer& l : r_.layers)
      if (l.output == t) producer = &l;
    if (!producer || producer->act.kind != MLIP_ACT_NONE ||
        (producer->kind != MLIP_LAYER_CONV2D && producer->kind != MLIP_LAYER_FC && producer->kind != MLIP_LAYER_ADD))
      fail("an activation must follow a conv, fc or add in the same region");
    if (n.op == "Relu") {
      producer->act.kind = MLIP_ACT_RELU;
    } else {
      producer->act.kind = MLIP_ACT_CLIP;
      producer->act.lo = n.has_input(1) ? static_cast<float>(g_.value(n.inputs[1]).constant->at(0)) : -INFINITY;
      producer->act.hi = n.has_input(2) ? static_cast<float>(g_.value(n.inputs[2]).constant->at(0)) : INFINITY;
    }
    producer->origins.insert(producer->origins.end(), n.origins.begin(), n.origins.end());
    r_.tensors[t].name = g_.value(n.outputs[0]).name;
    vt_[n.outputs[0]] = t;
  }

  // Transpose(0, 2, 3, 1): the NHWC bytes already are the result.
  void transpose_to_nhwc(const Node& n) {
    if (n.attrs.get_ints("perm", {}) != std::vector<int64_t>{0, 2, 3, 1}) fail("only NCHW -> NHWC transposes");
    int in = tensor_of(n.inputs[0]);
    RTensor t = r_.tensors[in];
    t.name = g_.value(n.outputs[0]).name;
    t.hwc_order = true;
    t.alias_of = t.alias_of >= 0 ? t.alias_of : in;
    int ti = add_tensor(t);
    vt_[n.outputs[0]] = ti;
    view_origins_[ti] = n.origins;
  }

  void flatten(const Node& n) {
    int in = tensor_of(n.inputs[0]);
    RTensor t = r_.tensors[in];
    t.name = g_.value(n.outputs[0]).name;
    t.flat = !t.hwc_order;
    t.alias_of = t.alias_of >= 0 ? t.alias_of : in;
    int ti = add_tensor(t);
    vt_[n.outputs[0]] = ti;
    // The consuming FC's composite includes the flatten (and a transpose before it).
    std::vector<std::string> origins = view_origins_.count(in) ? view_origins_[in] : std::vector<std::string>{};
    origins.insert(origins.end(), n.origins.begin(), n.origins.end());
    view_origins_[ti] = origins;
  }

  const Graph& g_;
  LoweredRegion r_;
  std::map<ValueId, int> vt_;
  std::map<int, std::vector<std::string>> view_origins_;
};

}  // namespace

LoweredRegion lower_region(const Graph& body, const std::string& name) { return Lowering(body, name).run(); }

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
