// Pass 5 of post-training quantization, the report: the quantized model
// (folded as the driver will fold it) runs the samples beside the fp32
// model; per layer the SQNR and the largest absolute error of the layer
// alone (mixed_precision.h) and in the model, per output the same.
#pragma once

#include <vector>

#include "ptq/classify.h"
#include "ptq/insert_qdq.h"
#include "ptq/mixed_precision.h"
#include "ptq/report.h"
#include "ptq/samples.h"

namespace mlipc::ptq {

// Fills r.layers and r.outputs. qdq: fp32 with the pairs (insert_qdq);
// folded_qdq: qdq after fold_qdq.
void report_errors(const Graph& fp32, const Graph& qdq, const Graph& folded_qdq, const std::vector<Layer>& layers,
                   const Inserted& ins, const Precision& precision, const Samples& samples, QuantizeReport& r);

}  // namespace mlipc::ptq
