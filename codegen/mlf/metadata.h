// metadata.json of a Model Library Format archive, TVM version 7 layout
// (python/tvm/micro/model_library_format.py, v0.18), plus mlipc's own keys.
// See docs/mlf.md for the full key list.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/dtype.h"
#include "ir/tensor_data.h"

namespace mlipc::mlf {

inline constexpr int kMlfVersion = 7;
// Written as external_dependencies[0].version_spec (TVM writes its own version there).
inline constexpr std::string_view kMlipcVersion = "0.1.0";

struct TensorInfo {
  std::string name;
  DType dtype = DType::Undefined;
  Shape shape;
  size_t size_bytes = 0;

  bool operator==(const TensorInfo& o) const {
    return name == o.name && dtype == o.dtype && shape == o.shape && size_bytes == o.size_bytes;
  }
};

struct Metadata {
  std::string module_name = "default";
  std::string model_name;
  // Target kinds ("c", "mrvl"); written as TVM target strings (see
  // tvm_target_string). A full target string ("c -keys=cpu -mcpu=x") is kept as is.
  std::vector<std::string> targets;
  std::string export_datetime;  // "%Y-%m-%d %H:%M:%SZ" UTC; filled by the writer if empty
  size_t workspace_size_bytes = 0;
  size_t constants_size_bytes = 0;
  std::vector<TensorInfo> inputs, outputs;  // in call order
  size_t workspace_alignment = 16;
  std::string version_spec{kMlipcVersion};
  // Top-level keys are copied into the module object ("mlipc": compiler info,
  // "mlip": accelerator regions, ...). Must be null or an object whose keys do
  // not collide with TVM's. Reading puts every non-TVM module key here.
  nlohmann::json extra = nlohmann::json::object();
};

// What TVM's str(tvm.target.Target(kind)) gives in v0.18: "c" -> "c -keys=cpu "
// (default keys, then a space before the empty attribute list), "mrvl" -> "mrvl ".
std::string tvm_target_string(std::string_view kind);

// Serializes like TVM (json.dump indent=2, sort_keys=True, ASCII only) plus a
// final newline. Inputs and outputs are JSON objects keyed by name, as in TVM,
// so their order is also written as "input_order"/"output_order" arrays.
// Throws Error "metadata.json: ..." for duplicate or empty tensor names,
// undefined dtypes, or `extra` keys that collide with TVM keys.
std::string metadata_to_json(const Metadata& m);

// Parses and validates (version 7, exactly one module, required keys and their
// types, known dtypes, sizes consistent with shapes). Throws Error
// "metadata.json: <what is wrong>".
Metadata metadata_from_json(std::string_view text);

// Throws "<file>: nested deeper than <max_depth> levels" before the JSON
// library (which recurses) reads a text nested deeper (metadata.json,
// pipeline.json).
void check_json_nesting(std::string_view text, int max_depth, std::string_view file);

// The reason of a JSON exception without its "[json.exception.type_error.302] "
// prefix, for "<tarball>: metadata.json is damaged (<reason>)" when a reader
// of the `extra` keys (inspect, run --profile) meets a value of the wrong type.
std::string json_error_reason(const nlohmann::json::exception& e);

}  // namespace mlipc::mlf
