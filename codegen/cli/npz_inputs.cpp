#include "cli/npz_inputs.h"

#include <algorithm>

#include "support/error.h"
#include "support/text.h"

namespace mlipc::cli {

NpzInputs::NpzInputs(const io::NamedTensors& given, std::vector<ModelInput> inputs, const std::string& npz_path,
                     const std::string& tarball)
    : npz(printable(npz_path)), tar(printable(tarball)), given_(given), inputs_(std::move(inputs)) {
  for (const ModelInput& in : inputs_) names_ += (names_.empty() ? "" : ", ") + printable(in.name);
  for (const auto& entry : given_) {
    const std::string& key = entry.first;
    if (std::none_of(inputs_.begin(), inputs_.end(), [&](const ModelInput& in) { return in.name == key; }))
      fail("{}: array '{}' is not an input of {} (its inputs: {})", npz, printable(key), tar, names_);
  }
}

const TensorData& NpzInputs::array(size_t i) const {
  const ModelInput& in = inputs_.at(i);
  const std::string name = printable(in.name);
  auto it = std::find_if(given_.begin(), given_.end(), [&](const auto& g) { return g.first == in.name; });
  if (it == given_.end())
    fail("{}: no array '{}' for the input '{}' of {} (its inputs: {})", npz, name, name, tar, names_);
  if (it->second.dtype() != in.dtype)
    fail("{}: array '{}' is {}, but the input '{}' of {} is {}", npz, name, dtype_name(it->second.dtype()), name, tar,
         dtype_name(in.dtype));
  return it->second;
}

void NpzInputs::wrong_shape(size_t i, const Shape& got, const std::string& want) const {
  const std::string name = printable(inputs_.at(i).name);
  fail("{}: array '{}' has shape {}, but the input '{}' of {} {}", npz, name, shape_str(got), name, tar, want);
}

void check_run_inputs(const io::NamedTensors& given, const std::vector<mlf::TensorInfo>& model_inputs,
                      const std::string& npz_path, const std::string& tarball) {
  std::vector<ModelInput> ins;
  for (const mlf::TensorInfo& in : model_inputs) ins.push_back({in.name, in.dtype});
  const NpzInputs arrays(given, std::move(ins), npz_path, tarball);
  for (size_t i = 0; i < model_inputs.size(); ++i) {
    const Shape& want = model_inputs[i].shape;
    const Shape& got = arrays.array(i).shape();
    if (got != want) arrays.wrong_shape(i, got, "has shape " + shape_str(want));
  }
}

}  // namespace mlipc::cli
