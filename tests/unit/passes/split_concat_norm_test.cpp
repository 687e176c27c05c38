// passes/split_concat_norm: a BatchNormalization (and Relu) that alone
// reads a channel Concat becomes one per Concat input, and the Concat of
// their results is elided (its inputs written into its slices).
#include <gtest/gtest.h>

#include <cstring>

#include "driver/compile.h"
#include "testlib/graph_query.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/reference.h"
#include "testlib/tensors.h"
#include "testlib/text_query.h"

namespace mlipc::unit_passes_split_concat_norm {
namespace {

using test::count_ops;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;

void bn(OnnxBuilder& b, const std::string& x, int64_t c, const std::string& y, uint32_t seed) {
  b.initializer(y + "_g", random_tensor(DType::Float32, {c}, seed, 0.5, 2.0));
  b.initializer(y + "_b", random_tensor(DType::Float32, {c}, seed + 1));
  b.initializer(y + "_m", random_tensor(DType::Float32, {c}, seed + 2));
  b.initializer(y + "_v", random_tensor(DType::Float32, {c}, seed + 3, 0.1, 3.0));
  b.node("BatchNormalization", {x, y + "_g", y + "_b", y + "_m", y + "_v"}, {y}, {{"epsilon", 1e-3f}}, y);
}

// Three Concats of 5, 7 and 3 channels (a graph input, a Conv's output, a
// Relu's) into a BatchNormalization: with a Relu and a 1x1 Conv after it
// (DenseNet's layer), alone (to an output), and one whose Concat another
// node reads too (not split). Outputs byte for byte against the reference
// (x with zeros of both signs and a NaN); the Concats of the split ones
// elided, the parts' BatchNormalizations with the Relus fused.
TEST(SplitConcatNorm, PartsNormalizedIntoTheElidedConcatKeepTheReferenceBytes) {
  OnnxBuilder b;
  const Shape in = {1, 5, 9, 11};
  b.input("x", DType::Float32, in);
  b.initializer("w7", random_tensor(DType::Float32, {7, 5, 3, 3}, 1));
  b.node("Conv", {"x", "w7"}, {"c7"}, {{"pads", ints{1, 1, 1, 1}}});
  b.initializer("w3", random_tensor(DType::Float32, {3, 5, 1, 1}, 2));
  b.node("Conv", {"x", "w3"}, {"c3"});
  b.node("Relu", {"c3"}, {"r3"});
  b.node("Concat", {"x", "c7", "r3"}, {"cat1"}, {{"axis", int64_t{1}}});
  bn(b, "cat1", 15, "n1", 10);
  b.node("Relu", {"n1"}, {"a1"});
  b.initializer("w1", random_tensor(DType::Float32, {4, 15, 1, 1}, 3));
  b.node("Conv", {"a1", "w1"}, {"out1"});
  b.node("Concat", {"c7", "x"}, {"cat2"}, {{"axis", int64_t{-3}}});
  bn(b, "cat2", 12, "out2", 20);
  b.node("Concat", {"r3", "c7"}, {"cat3"}, {{"axis", int64_t{1}}});
  bn(b, "cat3", 10, "n3", 30);
  b.node("Relu", {"n3"}, {"out3"});
  b.node("ReduceMax", {"cat3"}, {"m3"});
  b.output("out1").output("out2").output("out3").output("m3");
  const auto p = b.save(test::scratch_dir(), "split_concat_norm.onnx");
  TensorData xt = random_tensor(DType::Float32, in, 4, -3, 3);
  for (int64_t i = 0; i < numel(in); i += 5) xt.data<float>()[i] = (i / 5) % 2 ? 0.0f : -0.0f;
  xt.data<float>()[17] = std::nanf("");
  const io::NamedTensors inputs = {{"x", xt}};
  const io::NamedTensors want = test::reference_run(p, inputs);
  driver::CompileResult r;
  const io::NamedTensors got = test::compile_and_run(p, inputs, {}, &r);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(test::compare(got[k].second, want[k].second, 0.0, 0.0), "") << want[k].first;
    ASSERT_EQ(got[k].second.nbytes(), want[k].second.nbytes()) << want[k].first;
    EXPECT_EQ(std::memcmp(got[k].second.raw(), want[k].second.raw(), want[k].second.nbytes()), 0) << want[k].first;
  }
  // cat1 and cat2 split (3 + 2 parts), cat3 (read by the ReduceMax too) not.
  EXPECT_EQ(count_ops(r.graph, "BatchNormalization"), 6);
  EXPECT_EQ(count_ops(r.graph, "Relu"), 0);  // each fused into its producer
  EXPECT_EQ(count_ops(r.graph, "Concat"), 3);
  const std::string& lib1 = r.files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, "_concat("), 2u);  // cat3's kernel: its definition and its call
}

}  // namespace
}  // namespace mlipc::unit_passes_split_concat_norm
