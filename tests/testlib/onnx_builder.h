// Builds small ONNX models in tests, so that operator tests go through the
// same frontend users do. Example:
//   OnnxBuilder b;                       // opset 17
//   b.input("x", DType::Float32, {1, 3, 8, 8});
//   b.initializer("w", random_tensor(DType::Float32, {4, 3, 3, 3}, 1));
//   b.node("Conv", {"x", "w"}, {"y"}, {{"pads", ints{1, 1, 1, 1}}});
//   b.output("y");
//   fs::path model = b.save(dir.path());
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "ir/attrs.h"
#include "ir/tensor_data.h"

namespace mlipc::test {

using ints = std::vector<int64_t>;
using floats = std::vector<float>;

class OnnxBuilder {
 public:
  explicit OnnxBuilder(int opset = 17, std::string name = "test_model");
  ~OnnxBuilder();
  OnnxBuilder(const OnnxBuilder&) = delete;
  OnnxBuilder& operator=(const OnnxBuilder&) = delete;

  // An input; a negative dimension becomes a dynamic one named "N".
  OnnxBuilder& input(const std::string& name, DType dtype, const Shape& shape);
  OnnxBuilder& initializer(const std::string& name, const TensorData& value);
  OnnxBuilder& node(const std::string& op, const std::vector<std::string>& inputs,
                    const std::vector<std::string>& outputs,
                    const std::vector<std::pair<std::string, AttrValue>>& attrs = {}, const std::string& name = "");
  OnnxBuilder& output(const std::string& name);
  // Puts the last node in operator domain `domain` (version 1), e.g. "com.microsoft".
  OnnxBuilder& in_domain(const std::string& domain);
  // Declares a computed value's type and shape (a value_info entry), as
  // exporters that run shape inference do.
  OnnxBuilder& declare(const std::string& name, DType dtype, const Shape& shape);

  // Serialized ModelProto.
  std::string bytes() const;
  // Writes <dir>/<file> and returns its path.
  std::filesystem::path save(const std::filesystem::path& dir, const std::string& file = "model.onnx") const;

 private:
  struct Impl;
  Impl* impl_;
};

// LayerNormalization over the last axis of `x` as the opset-13 exporters
// write it: ReduceMean, Sub, Pow by the scalar initializer `two` (or, with
// `two` empty, Mul by itself), ReduceMean, Add the scalar `eps`, Sqrt, Div,
// then Mul by `gamma` and Add `beta` where given. Its tensors are named
// `prefix` + mean, d, sq, var, ve, sd, n (the Div), ng (the Mul); the last
// one `y` where given. Returns the last one's name.
std::string layer_norm_decomposition(OnnxBuilder& b, const std::string& x, const std::string& prefix,
                                     const std::string& eps, const std::string& two, const std::string& gamma = "",
                                     const std::string& beta = "", const std::string& y = "");

}  // namespace mlipc::test
