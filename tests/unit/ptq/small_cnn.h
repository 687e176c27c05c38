// The PTQ unit tests' model (quantize_test.cpp, int4_weights_test.cpp): a
// small Conv -> Relu -> Flatten -> Gemm on [1, 2, 6, 6] with random weights,
// and calibration samples for it.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "frontend/onnx_import.h"
#include "testlib/onnx_builder.h"
#include "testlib/reference.h"
#include "testlib/tensors.h"

namespace mlipc::unit_ptq {

// Saved as scratch_dir()/<tag>_<k>.onnx, k counting the calls.
inline Graph small_cnn(const std::string& tag) {
  test::OnnxBuilder b;
  b.input("x", DType::Float32, {1, 2, 6, 6});
  b.initializer("w", test::random_tensor(DType::Float32, {4, 2, 3, 3}, 1));
  b.initializer("b", test::random_tensor(DType::Float32, {4}, 2));
  b.initializer("fw", test::random_tensor(DType::Float32, {5, 64}, 3));
  b.initializer("fb", test::random_tensor(DType::Float32, {5}, 4));
  b.node("Conv", {"x", "w", "b"}, {"c"}, {}, "conv");
  b.node("Relu", {"c"}, {"r"}, {}, "relu");
  b.node("Flatten", {"r"}, {"f"}, {}, "flatten");
  b.node("Gemm", {"f", "fw", "fb"}, {"y"}, {{"transB", int64_t{1}}}, "fc");
  b.output("y");
  return test::import_built(b, tag);
}

// n random inputs of small_cnn, from seed, seed + 1, ...
inline std::vector<std::vector<TensorData>> small_cnn_samples(int n, uint32_t seed) {
  std::vector<std::vector<TensorData>> s;
  for (int i = 0; i < n; ++i)
    s.push_back({test::random_tensor(DType::Float32, {1, 2, 6, 6}, seed + static_cast<uint32_t>(i))});
  return s;
}

}  // namespace mlipc::unit_ptq
