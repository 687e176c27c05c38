// Concat and BatchNormalization between convolutions in either layout
// (c/layout.h): a Concat that copies (its inputs are not written straight
// into it) and the BatchNormalization after it are channels-last where every
// kernel around them can be, as in DenseNet's blocks (each layer's Concat
// reads the block's input and every earlier layer's output), so the 1x1
// convolution after them reads whole pixels; an elided Concat, and one of
// an input of few channels, stay row-major. Bits against the reference
// evaluator at tolerance 0 (a copy and a per-channel multiply and add have
// one answer in either order).
#include <gtest/gtest.h>

#include "driver/compile.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/tensors.h"

namespace mlipc::unit_c_concat_layout {
namespace {

namespace fs = std::filesystem;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using test::stored_channels_last;

void conv(OnnxBuilder& b, const std::string& x, int64_t c, int64_t m, int64_t k, const std::string& y, uint32_t seed) {
  b.initializer(y + "_w", random_tensor(DType::Float32, {m, c, k, k}, seed));
  b.initializer(y + "_b", random_tensor(DType::Float32, {m}, seed + 1000));
  b.node("Conv", {x, y + "_w", y + "_b"}, {y}, {{"pads", ints{k / 2, k / 2, k / 2, k / 2}}});
}

// BatchNormalization with random positive variances, then ReLU. Only after
// a tensor that is not one Conv's alone: there it would fold into the Conv's
// weights, whose bits the reference (on the unfolded graph) does not give.
void bn_relu(OnnxBuilder& b, const std::string& x, int64_t c, const std::string& y, uint32_t seed) {
  b.initializer(y + "_g", random_tensor(DType::Float32, {c}, seed));
  b.initializer(y + "_be", random_tensor(DType::Float32, {c}, seed + 1));
  b.initializer(y + "_m", random_tensor(DType::Float32, {c}, seed + 2));
  b.initializer(y + "_v", random_tensor(DType::Float32, {c}, seed + 3, 0.25, 2.0));
  b.node("BatchNormalization", {x, y + "_g", y + "_be", y + "_m", y + "_v"}, {y + "_bn"});
  b.node("Relu", {y + "_bn"}, {y});
}

// Two DenseNet layers of growth 12 on a 9-channel block input (odd sizes,
// batch 2), a Concat along H, one of few channels, and an elided one.
TEST(ConcatLayout, DenseBlocksStayChannelsLastAndMatchTheReferenceBitForBit) {
  OnnxBuilder b;
  const Shape in = {2, 3, 11, 13};
  b.input("x", DType::Float32, in);
  conv(b, "x", 3, 9, 3, "f0", 1);  // the block's input, read by both Concats
  bn_relu(b, "f0", 9, "l1_in", 10);
  conv(b, "l1_in", 9, 16, 1, "l1_a", 20);
  b.node("Relu", {"l1_a"}, {"l1_ar"});
  conv(b, "l1_ar", 16, 12, 3, "l1", 40);
  b.node("Concat", {"f0", "l1"}, {"cat1"}, {{"axis", int64_t{1}}});
  bn_relu(b, "cat1", 21, "l2_in", 50);
  conv(b, "l2_in", 21, 16, 1, "l2_a", 60);
  b.node("Relu", {"l2_a"}, {"l2_ar"});
  conv(b, "l2_ar", 16, 12, 3, "l2", 80);
  b.node("Concat", {"f0", "l1", "l2"}, {"cat2"}, {{"axis", int64_t{1}}});
  bn_relu(b, "cat2", 33, "t_in", 90);
  conv(b, "t_in", 33, 10, 1, "t", 100);
  // Along H: chunks of whole rows of pixels in either layout.
  conv(b, "f0", 9, 10, 1, "h2", 110);
  b.node("Concat", {"t", "h2"}, {"cath"}, {{"axis", int64_t{2}}});
  conv(b, "cath", 10, 8, 3, "out", 120);
  // Batch 2: e1 and e2 are copied into cate, channels-last.
  conv(b, "t", 10, 8, 1, "e1", 130);
  conv(b, "t", 10, 8, 3, "e2", 140);
  b.node("Concat", {"e1", "e2"}, {"cate"}, {{"axis", int64_t{1}}});
  conv(b, "cate", 16, 4, 1, "out2", 150);
  // Batch 1: u1 and u2 are written into their slices of catu (elided).
  b.input("z", DType::Float32, {1, 3, 7, 9});
  conv(b, "z", 3, 8, 1, "u0", 180);
  conv(b, "u0", 8, 8, 1, "u1", 185);
  conv(b, "u0", 8, 9, 3, "u2", 190);
  b.node("Concat", {"u1", "u2"}, {"catu"}, {{"axis", int64_t{1}}});
  conv(b, "catu", 17, 4, 1, "out4", 195);
  // A 4-channel input: its pixels' chunks would be 4 floats.
  conv(b, "x", 3, 4, 1, "n1", 160);
  conv(b, "x", 3, 9, 3, "n2", 165);
  b.node("Concat", {"n1", "n2", "n2"}, {"catn"}, {{"axis", int64_t{1}}});
  conv(b, "catn", 22, 4, 1, "out3", 170);
  b.output("out").output("out2").output("out3").output("out4");
  const fs::path p = b.save(test::scratch_dir(), "concat_layout.onnx");
  const io::NamedTensors inputs = {{"x", random_tensor(DType::Float32, in, 7)},
                                   {"z", random_tensor(DType::Float32, {1, 3, 7, 9}, 8)}};
  test::expect_matches_reference(p, inputs, 0.0, 0.0);

  driver::CompileResult r = driver::compile_model(p, {});
  auto cl = [&](const std::string& name) { return stored_channels_last(r, name); };
  for (const char* v : {"f0", "l1", "cat1", "l2_in", "l2", "cat2", "t_in", "t", "h2", "cath", "e1", "e2", "cate"})
    EXPECT_TRUE(cl(v)) << v;
  for (const char* v : {"n1", "n2", "catn", "u1", "u2", "catu"}) EXPECT_FALSE(cl(v)) << v;
}

}  // namespace
}  // namespace mlipc::unit_c_concat_layout
