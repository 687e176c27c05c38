// TVM's .params format (relay.save_param_dict / runtime::SaveParams in
// src/runtime/file_utils.cc, NDArray::Save in include/tvm/runtime/ndarray.h),
// so parameters/<m>.params in an MLF archive loads with tvm.runtime.load_param_dict.
// Byte layout: docs/mlf.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/tensor_data.h"

namespace mlipc::mlf {

inline constexpr uint64_t kTVMNDArrayListMagic = 0xF7E58D4F05049CB7ull;
inline constexpr uint64_t kTVMNDArrayMagic = 0xDD5E40F096B4A13Full;

// Arrays in the given order. Bool is written as TVM's bool (kDLUInt, 1 bit,
// one byte per element). Throws Error for a null tensor or an undefined dtype.
std::string write_params(const std::vector<std::pair<std::string, const TensorData*>>& params);

// Throws Error "<what>: ..." on a wrong magic number, truncated or corrupt
// input, a non-CPU device, vector lanes or an unsupported dtype.
std::vector<std::pair<std::string, TensorData>> read_params(std::string_view bytes,
                                                            std::string_view what = "params");

}  // namespace mlipc::mlf
