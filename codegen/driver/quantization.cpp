#include "driver/quantization.h"

#include <cmath>

#include "driver/calibration_data.h"
#include "passes/passes.h"
#include "support/error.h"
#include "support/text.h"

namespace mlipc::driver {

bool wants_int8(const CompileOptions& o, const Target& t) {
  if (o.quantize != "none" && o.quantize != "int8") fail("--quantize '{}' (allowed: none, int8)", o.quantize);
  const bool mlip_int8 = t.mlip && o.mlip.quantize == "int8";
  if (t.mlip && o.quantize == "int8" && !mlip_int8)
    fail("--quantize int8 with target '{}': say -quantize=int8 in --target-mrvl-mattr too", t.text);
  const bool int8 = o.quantize == "int8" || mlip_int8;
  const std::string ask = t.mlip ? "-quantize=int8" : "--quantize int8";
  if (!o.calibration.empty() && !int8) fail("--calibration needs int8 quantization ({})", ask);
  if (!o.emit_qdq.empty() && o.calibration.empty())
    fail("--emit-qdq writes the model calibration quantized: it needs --calibration FILE.npz");
  const ptq::QuantizeOptions& q = o.quantize_options;
  if (!(q.percentile > 0.0 && q.percentile <= 100.0))
    fail("--calibration-percentile {} must be above 0 and at most 100", q.percentile);
  if (std::isnan(q.min_sqnr_db)) fail("--quantize-min-sqnr-db must be a number");
  return int8;
}

void quantize_model(CompileResult& r, const CompileOptions& o, mlip::Options& mlip_options) {
  const std::string ask = r.target.mlip ? "-quantize=int8" : "--quantize int8";
  if (passes::has_quantized_tensors(r.graph)) {
    if (!o.calibration.empty())
      fail("--calibration: the model is quantized already (QDQ or QOperator); {} takes it as it is", ask);
    return;
  }
  if (o.calibration.empty())
    fail("{} on an fp32 model needs calibration data: --calibration FILE.npz (one array per model input, named "
         "as the input, with a leading sample axis)", ask);
  const CalibrationSet data = read_calibration(o.calibration, r.graph);
  ptq::QuantizeOptions qo = o.quantize_options;
  qo.data_name = printable(o.calibration.string());
  r.quantization = ptq::quantize(r.graph, data.samples, qo);
  r.quantization->samples_in_data = static_cast<size_t>(data.in_file);
  // The layers mixed precision keeps float may be fp16 layers on the MLIP.
  mlip_options.fp16_float_layers = true;
}

}  // namespace mlipc::driver
