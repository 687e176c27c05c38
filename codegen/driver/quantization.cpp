#include "driver/quantization.h"

#include <cmath>

#include <fmt/format.h>

#include "driver/calibration_data.h"
#include "passes/passes.h"
#include "support/error.h"
#include "support/text.h"

namespace mlipc::driver {

bool wants_int8(const CompileOptions& o, const Target& t) {
  if (o.quantize != "none" && o.quantize != "int8" && o.quantize != "int16x8")
    fail("--quantize '{}' (allowed: none, int8, int16x8)", o.quantize);
  // int16x8: PTQ as int8's, every layer 16x8 (int16 activations); the MLIP
  // runs the 16x8 layers that have an int16 form (docs/mlip-spec.md 4a),
  // the others stay on the CPU.
  const bool asked = o.quantize != "none";
  const bool mlip_int8 = t.mlip && (o.mlip.quantize == "int8" || (o.mlip.quantize.empty() && asked));
  if (t.mlip && asked && !mlip_int8)
    fail("--quantize {} with target '{}': say -quantize=int8 in --target-mrvl-mattr too", o.quantize, t.text);
  const bool int8 = asked || mlip_int8;
  const std::string ask = t.mlip ? "-quantize=int8" : "--quantize int8";
  const bool calibration = !o.calibration.empty() || o.calibration_arrays;
  if (calibration && !int8) fail("--calibration needs int8 quantization ({})", ask);
  if (!o.emit_qdq.empty() && !calibration)
    fail("--emit-qdq writes the model calibration quantized: it needs --calibration FILE.npz");
  const ptq::QuantizeOptions& q = o.quantize_options;
  if (!(q.percentile > 0.0 && q.percentile <= 100.0))
    fail("--calibration-percentile {} must be above 0 and at most 100", q.percentile);
  if (std::isnan(q.min_sqnr_db)) fail("--quantize-min-sqnr-db must be a number");
  if (q.weight_bits != 8 && !int8) fail("--weight-bits {} needs int8 quantization ({})", q.weight_bits, ask);
  if (q.weight_rounding == ptq::WeightRounding::Gptq && !int8)
    fail("--weight-rounding gptq needs int8 quantization ({})", ask);
  if (q.weight_bits != 8 && o.quantize == "int16x8")
    fail("--weight-bits {} with --quantize int16x8: 16x8 layers take 8-bit weights only", q.weight_bits);
  return int8;
}

namespace {

std::string count_text(const passes::QuantizedNodes& q) {
  auto nodes = [](int n, const char* kind) { return fmt::format("{} {} node{}", n, kind, n == 1 ? "" : "s"); };
  if (q.qdq && q.qoperator) return fmt::format("{} QDQ and {}", q.qdq, nodes(q.qoperator, "QOperator"));
  return q.qdq ? nodes(q.qdq, "QDQ") : nodes(q.qoperator, "QOperator");
}

}  // namespace

bool choose_mlip_quantize(CompileResult& r, const CompileOptions& o) {
  mlip::Options& m = r.mlip_options;
  const passes::QuantizedNodes q = passes::quantized_nodes(r.graph);
  const std::string model = q.any() ? "the model is quantized: " + count_text(q) : "the model is not quantized";
  // An int8 build of an fp32 model is calibrated first (quantize_model).
  const std::string calibrated = q.any() ? "" : ": --calibration quantizes it";
  if (!o.mlip.quantize.empty()) {
    m.quantize = o.mlip.quantize;
    m.quantize_why = fmt::format("set by -quantize={}; {}", m.quantize, model);
    if (q.any() && m.quantize == "fp16") m.quantize_why += ", whose int8 operators stay on the CPU";
    if (m.quantize == "int8") m.quantize_why += calibrated;
  } else if (o.quantize != "none") {
    m.quantize = "int8";
    m.quantize_why = fmt::format("--quantize {}; {}{}", o.quantize, model, calibrated);
  } else {
    m.quantize = q.any() ? "int8" : "fp16";
    m.quantize_why = q.any() ? model + "; set -quantize=fp16 to override"
                             : model + "; -quantize=int8 with --calibration quantizes it";
  }
  return m.quantize == "int8";
}

std::string quantize_line(const mlip::Options& o) {
  return fmt::format("MLIP quantization: {} ({})", o.quantize.empty() ? "fp16" : o.quantize,
                     o.quantize_why.empty() ? "-quantize" : o.quantize_why);
}

void quantize_model(CompileResult& r, const CompileOptions& o, mlip::Options& mlip_options) {
  const std::string ask = r.target.mlip ? "-quantize=int8" : "--quantize int8";
  if (passes::has_quantized_tensors(r.graph)) {
    if (o.quantize_options.weight_bits != 8)
      fail("--weight-bits {}: the model is quantized already (QDQ or QOperator); its weights keep their width",
           o.quantize_options.weight_bits);
    if (o.quantize_options.weight_rounding == ptq::WeightRounding::Gptq)
      fail("--weight-rounding gptq: the model is quantized already (QDQ or QOperator); its weights are given");
    if (!o.calibration.empty() || o.calibration_arrays)
      fail("--calibration: the model is quantized already (QDQ or QOperator); {} takes it as it is", ask);
    return;
  }
  if (o.calibration.empty() && !o.calibration_arrays)
    fail("{} on an fp32 model needs calibration data: --calibration FILE.npz (one array per model input, named "
         "as the input, with a leading sample axis)", ask);
  // In memory, the arrays are named "calibration" in messages.
  const std::string name = o.calibration_arrays ? "calibration" : printable(o.calibration.string());
  const CalibrationSet data = o.calibration_arrays ? calibration_set(*o.calibration_arrays, name, r.graph)
                                                   : read_calibration(o.calibration, r.graph);
  ptq::QuantizeOptions qo = o.quantize_options;
  qo.data_name = name;
  if (o.quantize == "int16x8") qo.act_bits = 16;
  // On "mrvl, c" a layer int8 cannot hold is better an fp16 MLIP layer than
  // a 16x8 CPU one (docs/user-guide.md "16x8 quantization").
  if (r.target.mlip) qo.try_16x8 = false;
  r.quantization = ptq::quantize(r.graph, data.samples, qo);
  r.quantization->samples_in_data = static_cast<size_t>(data.in_file);
  // The layers mixed precision keeps float may be fp16 layers on the MLIP.
  mlip_options.fp16_float_layers = true;
}

}  // namespace mlipc::driver
