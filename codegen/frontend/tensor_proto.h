// ONNX TensorProto <-> TensorData: initializers, Constant nodes and the
// input_K.pb / output_K.pb files of ONNX backend tests.
#pragma once

#include <filesystem>
#include <string>

#include <onnx/onnx_pb.h>

#include "ir/tensor_data.h"

namespace mlipc::frontend {

// Maps an ONNX TensorProto.DataType; throws Error naming `what` for types
// mlipc has no use for (string, complex).
DType dtype_from_onnx(int32_t onnx_type, const std::string& what);

// The ONNX element type of a DType (its inverse).
onnx::TensorProto::DataType onnx_dtype(DType t);

// A tensor as a TensorProto named `name` (raw_data, little-endian).
void tensor_to_proto(const TensorData& t, const std::string& name, onnx::TensorProto& out);

// Decodes raw_data or the typed fields; external data is read relative to
// `base_dir`. `what` names the tensor in errors.
TensorData tensor_from_proto(const onnx::TensorProto& t, const std::filesystem::path& base_dir,
                             const std::string& what);

// Reads a serialized TensorProto file; `name` receives the tensor's name.
TensorData load_tensor_pb(const std::filesystem::path& path, std::string* name = nullptr);

}  // namespace mlipc::frontend
