// Resource limits on what mlipc reads, builds and runs. A hostile or broken
// model, tarball or .npz hits one of these with a one-line message instead
// of exhausting memory or time. docs/security.md lists each limit, its
// message and how to raise it (the time limits are options of `mlipc run`;
// the others are fixed here).
#pragma once

#include <cstdint>

namespace mlipc::limits {

// Any file mlipc reads (model, external data, tarball, .npz): protobuf
// cannot parse a larger model anyway.
inline constexpr uint64_t kMaxFileBytes = (uint64_t{1} << 31) - 1;
// One tensor: a constant, a graph input or output, an intermediate value, an
// .npz array. The CPU kernels index with int32_t.
inline constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 30;
// The tensor limit in force: kMaxTensorBytes, unless a fuzz target lowered
// it (so that it explores shapes rather than gigabyte allocations).
uint64_t max_tensor_bytes();
void set_max_tensor_bytes(uint64_t bytes);
// Constants that compile-time folding makes, all together (ConstantOfShape,
// Expand, Tile ... of constants): a model of a few bytes cannot make
// gigabytes of constants, tarball and C. The model's own initializers are
// bounded by the file limit.
inline constexpr uint64_t kMaxFoldedBytes = uint64_t{128} << 20;
// ONNX nodes of one graph (the host driver also times at most this many layers).
inline constexpr int64_t kMaxNodes = 65536;
// The header of one .npy array (numpy writes a few hundred bytes).
inline constexpr uint64_t kMaxNpyHeaderBytes = 65536;
// Calibration samples post-training quantization runs (--calibration): a
// set that holds more is calibrated on its first kMaxCalibrationSamples, and
// the summary says so. Ranges settle within a few hundred samples (TensorRT
// suggests about 500); each sample costs a run of the fp32 model per phase.
inline constexpr int64_t kMaxCalibrationSamples = 2048;
// Processing elements of a mesh build (--pes), so stages of pipeline.json.
inline constexpr int64_t kMaxPes = 4096;
// --workspace-byte-alignment: a power of two up to one page.
inline constexpr uint64_t kMaxWorkspaceAlignment = 4096;
// Host emulation (`mlipc run --build-timeout / --timeout`).
inline constexpr int kDefaultBuildSeconds = 600;
inline constexpr int kDefaultRunSeconds = 600;
// The longest either may be set to: about 11.6 days (a deadline in the
// steady clock's nanoseconds never overflows).
inline constexpr int kMaxSeconds = 1000000;

}  // namespace mlipc::limits
