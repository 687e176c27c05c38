// The fp16 error bound of a compiled model's MLIP regions against fp32
// outputs (docs/user-guide.md, "Accuracy", derives it): the model tests and
// the ONNX node tests through the MLIP compare with it.
#pragma once

#include <string>

#include "driver/compile.h"
#include "ir/tensor_data.h"

namespace mlipc::test {

// R: the fp16 roundings of the model's MLIP regions, counted per layer
// (the rules are at the definition).
int fp16_roundings(const driver::CompileResult& r);

// The bound for R roundings as a fraction of max|ref|.
double fp16_bound(int roundings);

// max|t| over its finite elements.
double max_abs(const TensorData& t);

// The worst |got - want| as a fraction of max|want| (NaN where one is NaN and the other not).
double worst_error(const TensorData& got, const TensorData& want);

// "" when every element of `got` is within the bound of `compiled` times max|want|.
std::string within_fp16_bound(const TensorData& got, const TensorData& want, const driver::CompileResult& compiled);

}  // namespace mlipc::test
