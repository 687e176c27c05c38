// libFuzzer target: calibration data (`mlipc compile --calibration`): the
// .npz read and checked against a model's inputs (driver/calibration_data.h)
// and the range computation over its samples (ptq/ranges.h), by each
// method, on a small model of one input 'x' [1,4] (Gemm, Relu, Exp: a layer
// that overflows on large values). Any input may be refused with
// mlipc::Error; nothing else is acceptable, and every range it gives is a
// usable int8 scale (finite, positive).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "driver/calibration_data.h"
#include "frontend/onnx_import.h"
#include "io/npz.h"
#include "ptq/ranges.h"
#include "support/error.h"
#include "support/limits.h"

namespace {
const mlipc::Graph* g_model = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  mlipc::limits::set_max_tensor_bytes(uint64_t{1} << 20);
  static const mlipc::Graph model = mlipc::frontend::import_onnx(MLIPC_FUZZ_CALIB_MODEL);
  g_model = &model;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    const mlipc::driver::CalibrationSet set =
        mlipc::driver::calibration_set(mlipc::io::read_npz_bytes(bytes, "fuzz.npz"), "fuzz.npz", *g_model);
    if (set.samples.empty() || set.samples.size() > static_cast<size_t>(mlipc::limits::kMaxCalibrationSamples)) std::abort();
    for (mlipc::calib::Method m : {mlipc::calib::Method::MinMax, mlipc::calib::Method::Percentile, mlipc::calib::Method::Entropy}) {
      mlipc::ptq::QuantizeOptions o;
      o.method = m;
      o.data_name = "fuzz.npz";
      try {
        for (const auto& [name, p] : mlipc::ptq::calibrate_ranges(*g_model, mlipc::ptq::Samples{set.samples, o}))
          if (!(std::isfinite(p.scale) && p.scale > 0.0f)) std::abort();
      } catch (const mlipc::Error&) {
      }
    }
  } catch (const mlipc::Error&) {
  }
  return 0;
}
