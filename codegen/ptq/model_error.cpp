#include "ptq/model_error.h"

#include <cmath>

#include "ops/evaluator.h"
#include "support/error.h"

namespace mlipc::ptq {

namespace {

using ops::QParam;

TensorData dequantize(const TensorData& q, const QParam& p) {
  TensorData f(DType::Float32, q.shape());
  const std::vector<int64_t> v = q.as_int64();
  for (size_t i = 0; i < v.size(); ++i)
    f.data<float>()[i] = static_cast<float>(v[i] - p.zero_point) * p.scale;
  return f;
}

}  // namespace

void report_errors(const Graph& fp32, const Graph& qdq, const Graph& folded_qdq, const std::vector<Layer>& layers,
                   const Inserted& ins, const Precision& precision, const Samples& samples, QuantizeReport& r) {
  const std::vector<bool>& int8 = precision.int8;
  struct Cmp {
    ValueId ref, got;
    bool dequantize;
    QParam p;
  };
  std::vector<Cmp> cmp;
  for (size_t k = 0; k < layers.size(); ++k) {
    const Layer& l = layers[k];
    const std::string& name = qdq.value(l.out).name;
    Cmp c{fp32.find(name), kNoValue, false, {}};
    if (int8[k]) {
      c.got = folded_qdq.find(ins.quantized.at(name));
      c.dequantize = true;
      c.p = ins.params.at(name);
    } else {
      c.got = folded_qdq.find(name);
    }
    cmp.push_back(c);
  }
  std::vector<ErrorSum> model(cmp.size());
  std::vector<ErrorSum> outputs(qdq.outputs.size());
  samples.progress("model error", 0);
  for (size_t s = 0; s < samples.size(); ++s) {
    const std::vector<TensorData> ref = samples.run_fp32(fp32, s);
    std::vector<TensorData> got;
    try {
      got = evaluate_values(folded_qdq, samples.inputs[s]);
    } catch (const Error& e) {
      fail("calibration sample {} on the int8 model: {}", s, e.what());
    }
    for (size_t k = 0; k < cmp.size(); ++k) {
      const Cmp& c = cmp[k];
      if (c.ref == kNoValue || c.got == kNoValue || got[static_cast<size_t>(c.got)].dtype() == DType::Undefined) continue;
      const TensorData& v = got[static_cast<size_t>(c.got)];
      model[k].add(ref[static_cast<size_t>(c.ref)], c.dequantize ? dequantize(v, c.p) : v);
    }
    for (size_t o = 0; o < qdq.outputs.size(); ++o) {
      const ValueId rv = fp32.outputs[o].value, gv = folded_qdq.outputs[o].value;
      const TensorData& a = fp32.value(rv).is_constant() ? *fp32.value(rv).constant : ref[static_cast<size_t>(rv)];
      const TensorData& b = folded_qdq.value(gv).is_constant() ? *folded_qdq.value(gv).constant : got[static_cast<size_t>(gv)];
      if (a.dtype() != DType::Undefined && b.dtype() != DType::Undefined) outputs[o].add(a, b);
    }
    samples.progress("model error", s + 1);
  }
  for (size_t k = 0; k < layers.size(); ++k) {
    const Layer& l = layers[k];
    if (l.rearranges) continue;
    LayerQuantization q;
    q.node = l.name;
    q.op = l.op;
    q.origins = fp32.nodes[static_cast<size_t>(l.node)].origins;
    if (l.act >= 0)
      for (const std::string& s : fp32.nodes[static_cast<size_t>(l.act)].origins) q.origins.push_back(s);
    q.int8 = int8[k];
    q.weight_bits = int8[k] && k < precision.bits.size() ? precision.bits[k] : 8;
    // 16x8 when the layer writes int16 (a 16x8 layer, or one whose output a 16x8 layer reads).
    if (int8[k])
      if (auto it = ins.params.find(qdq.value(l.out).name); it != ins.params.end() && it->second.dtype == DType::Int16)
        q.act_bits = 16;
    q.why = int8[k] ? "" : precision.why[k].empty() ? "no int8 layer reads or writes it" : precision.why[k];
    if (l.kind != Kind::SameScale && !precision.measured[k]) {  // it did not fold alone: no int8 figure
      q.sqnr_db = q.max_abs_error = std::nan("");
    } else if (l.kind != Kind::SameScale) {
      q.sqnr_db = precision.alone[k].sqnr();
      q.max_abs_error = precision.alone[k].max_abs;
    } else {  // a layer that keeps the scale adds no error of its own
      q.sqnr_db = model[k].sqnr();
      q.max_abs_error = model[k].max_abs;
    }
    q.model_sqnr_db = model[k].sqnr();
    q.model_max_abs_error = model[k].max_abs;
    if (auto it = ins.bias_raised.find(l.name); it != ins.bias_raised.end() && int8[k]) q.bias_raised = it->second;
    r.layers.push_back(std::move(q));
  }
  for (size_t o = 0; o < qdq.outputs.size(); ++o)
    r.outputs.push_back({qdq.outputs[o].name, outputs[o].sqnr(), outputs[o].max_abs});
}

}  // namespace mlipc::ptq
