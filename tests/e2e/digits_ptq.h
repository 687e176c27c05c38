// The digits CNN's PTQ scoring, shared by the PTQ tests (ptq_test.cpp,
// ptq_int4_test.cpp): the model, one image of the test set, a build's
// generated program and its correct top-1 answers on the 397 test images
// (tests/data/ptq/digits_test397.npz).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "driver/compile.h"
#include "host/host_model.h"
#include "io/npz.h"
#include "testlib/reference.h"

namespace mlipc::test::digits_ptq {

inline std::filesystem::path digits_model() { return std::filesystem::path(MLIPC_EXAMPLES) / "digits" / "model.onnx"; }

// The generated program of `r`, its tarball written as scratch_dir()/<name>.tar.
inline host::HostModel build_program(const driver::CompileResult& r, const std::string& name) {
  const std::filesystem::path tar = scratch_dir() / fmt::format("{}.tar", name);
  driver::write_tarball(r, tar);
  host::BuildOptions bo = test_build_options();
  return host::HostModel::build(tar, bo);
}

// Sample i of a [N, ...] array, as the input shape `shape`.
inline TensorData sample(const TensorData& all, int64_t i, const Shape& shape) {
  const size_t bytes = static_cast<size_t>(numel(shape)) * dtype_size(all.dtype());
  std::vector<uint8_t> b(all.raw() + static_cast<size_t>(i) * bytes, all.raw() + static_cast<size_t>(i + 1) * bytes);
  return TensorData(all.dtype(), shape, std::move(b));
}

// Correct top-1 answers of the program built from `r` (tarball `name`) on
// the 397 test images; its outputs appended to `outputs` when given.
inline int digits_correct(const driver::CompileResult& r, const std::string& name,
                          std::vector<TensorData>* outputs = nullptr) {
  const io::NamedTensors data = io::read_npz(std::filesystem::path(MLIPC_TEST_DATA) / "ptq" / "digits_test397.npz");
  const TensorData& images = data[0].second;
  const std::vector<int64_t> labels = data[1].second.as_int64();
  EXPECT_EQ(images.shape(), (Shape{397, 1, 28, 28}));
  host::HostModel m = build_program(r, name);
  // All 397 in one run of the program (HostModel::run_each), not one
  // process per image: the same bits per image, a fraction of the CPU.
  std::vector<io::NamedTensors> in;
  for (int64_t i = 0; i < 397; ++i) in.push_back({{"Input3", sample(images, i, {1, 1, 28, 28})}});
  std::vector<io::NamedTensors> outs = m.run_each(in);
  int correct = 0;
  for (int64_t i = 0; i < 397; ++i) {
    TensorData out = std::move(outs[static_cast<size_t>(i)][0].second);
    const std::vector<double> v = out.as_double();
    correct += std::max_element(v.begin(), v.end()) - v.begin() == labels[static_cast<size_t>(i)];
    if (outputs) outputs->push_back(std::move(out));
  }
  return correct;
}

}  // namespace mlipc::test::digits_ptq
