// The error of a quantized tensor against its fp32 reference, summed over
// the calibration samples: SQNR and the largest absolute error.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "ir/tensor_data.h"
#include "ptq/calibration.h"

namespace mlipc::ptq {

// Sums of one comparison over the samples.
struct ErrorSum {
  double signal = 0.0, noise = 0.0, max_abs = 0.0;
  void add(const TensorData& ref, const TensorData& got) {
    const std::vector<double> r = ref.as_double(), q = got.as_double();
    for (size_t i = 0; i < r.size() && i < q.size(); ++i) {
      const double e = q[i] - r[i];
      signal += r[i] * r[i];
      noise += e * e;
      max_abs = std::max(max_abs, std::fabs(e));
    }
  }
  double sqnr() const { return calib::sqnr_db(signal, noise); }
};

}  // namespace mlipc::ptq
