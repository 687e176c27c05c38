// The .npz given to `run` and to a mesh run against the model's inputs: the
// messages both commands give, written once. Each names the .npz, the array
// and the tarball.
#pragma once

#include <string>
#include <vector>

#include "io/npz.h"
#include "mlf/metadata.h"

namespace mlipc::cli {

struct ModelInput {
  std::string name;
  DType dtype = DType::Undefined;
};

class NpzInputs {
 public:
  // Refuses an array that is not one of `inputs`.
  NpzInputs(const io::NamedTensors& given, std::vector<ModelInput> inputs, const std::string& npz_path,
            const std::string& tarball);
  // The array for input `i`, of its dtype (refused: missing, another dtype);
  // its shape is the caller's to check.
  const TensorData& array(size_t i) const;
  // Refuses the array of input `i`: its shape `got` is not `want`.
  [[noreturn]] void wrong_shape(size_t i, const Shape& got, const std::string& want) const;

  const std::string npz, tar;

 private:
  const io::NamedTensors& given_;
  std::vector<ModelInput> inputs_;
  std::string names_;  // the model's inputs, for the messages
};

// `run`'s inputs (a .npz, or the Python module's arrays, `npz_path` naming
// them) against the model's: each once, of its dtype and shape.
void check_run_inputs(const io::NamedTensors& given, const std::vector<mlf::TensorInfo>& model_inputs,
                      const std::string& npz_path, const std::string& tarball);

}  // namespace mlipc::cli
