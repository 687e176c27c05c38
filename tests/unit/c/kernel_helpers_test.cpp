#include "c/kernel.h"

#include <gtest/gtest.h>

#include "ops/activation.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::c::unit_c_kernel_helpers {
namespace {

TEST(CKernelHelpers, FloatLiteralsRoundTrip) {
  EXPECT_EQ(c_float(1.0f), "1.0f");
  EXPECT_EQ(c_float(0.1f), "0.1f");
  EXPECT_EQ(c_float(-2.5e-20f), "-2.5e-20f");
  EXPECT_EQ(c_float(INFINITY), "INFINITY");
  EXPECT_EQ(c_float(-INFINITY), "(-INFINITY)");
  EXPECT_EQ(c_float(NAN), "NAN");
  EXPECT_EQ(c_int(-2147483647LL - 1), "(-2147483647 - 1)");
  EXPECT_EQ(c_int(1LL << 40), "1099511627776LL");
}

TEST(CKernelHelpers, IdentifiersAreSanitizedAndNeverKeywords) {
  EXPECT_EQ(c_ident("conv1/out:0"), "conv1_out_0");
  EXPECT_EQ(c_ident("0input"), "_0input");
  EXPECT_EQ(c_ident("const"), "const_");
  EXPECT_EQ(c_ident("int"), "int_");
  EXPECT_EQ(c_ident("_Bool"), "_Bool_");
  EXPECT_EQ(c_ident("output"), "output");
}

// ONNX applies Clip's bounds in sequence: with min > max every value is max.
TEST(CKernelHelpers, FusedClipWithCrossedBoundsMatchesOnnx) {
  Activation a;
  a.kind = Activation::Clip;
  a.lo = 1.0f;
  a.hi = 0.0f;
  EXPECT_EQ(a.apply(-5.0f), 0.0f);
  EXPECT_EQ(a.apply(0.5f), 0.0f);
  EXPECT_EQ(a.apply(5.0f), 0.0f);
  test::OnnxBuilder b;
  b.input("x", DType::Float32, {1, 4});
  b.input("y", DType::Float32, {1, 4});
  b.initializer("lo", TensorData::scalar<float>(1.0f));
  b.initializer("hi", TensorData::scalar<float>(0.0f));
  b.node("Add", {"x", "y"}, {"s"});
  b.node("Clip", {"s", "lo", "hi"}, {"const"});
  b.output("const");
  auto model = b.save(test::scratch_dir(), "crossed_clip.onnx");
  io::NamedTensors in = {{"x", TensorData::from<float>({1, 4}, {-3, 0, 0.5f, 4})},
                         {"y", TensorData::from<float>({1, 4}, {0, 0, 0, 0})}};
  io::NamedTensors out = test::compile_and_run(model, in);
  EXPECT_EQ(test::compare(out[0].second, TensorData::from<float>({1, 4}, {0, 0, 0, 0}), 0, 0), "");
  EXPECT_EQ(out[0].first, "const");  // a C keyword as output name still compiles
}

}  // namespace
}  // namespace mlipc::c::unit_c_kernel_helpers
