#include "ir/tensor_data.h"

#include <gtest/gtest.h>

#include "support/error.h"

namespace mlipc::unit_ir_tensor_data {
namespace {

TEST(TensorData, ShapeAndBytes) {
  TensorData t(DType::Float32, {2, 3});
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.nbytes(), 24u);
  EXPECT_EQ(shape_str(t.shape()), "[2,3]");
  EXPECT_EQ(strides_of({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
}

TEST(TensorData, TypedAccessChecksDtype) {
  TensorData t = TensorData::from<float>({2}, {1.5f, -2.0f});
  EXPECT_FLOAT_EQ(t.data<float>()[1], -2.0f);
  EXPECT_THROW(t.data<int32_t>(), Error);
  EXPECT_THROW(t.as_int64(), Error);
}

TEST(TensorData, CastFollowsOnnx) {
  TensorData f = TensorData::from<float>({4}, {1.9f, -1.9f, 300.0f, 65520.0f});
  EXPECT_EQ(f.cast(DType::Int32).as_int64(), (std::vector<int64_t>{1, -1, 300, 65520}));
  // float16: 65520 rounds to infinity, 1.9 to the nearest binary16.
  TensorData h = f.cast(DType::Float16);
  EXPECT_TRUE(std::isinf(h.at(3)));
  EXPECT_NEAR(h.at(0), 1.9, 1e-3);
  TensorData i = TensorData::from<int64_t>({2}, {258, -1});
  EXPECT_EQ(i.cast(DType::UInt8).as_int64(), (std::vector<int64_t>{2, 255}));
  EXPECT_EQ(i.cast(DType::Bool).as_int64(), (std::vector<int64_t>{1, 1}));
}

TEST(TensorData, SizeMismatchIsAnError) {
  EXPECT_THROW(TensorData(DType::Float32, {2}, std::vector<uint8_t>(7)), Error);
  EXPECT_THROW(TensorData::from<float>({3}, {1.0f}), Error);
  EXPECT_THROW(TensorData(DType::Float32, {-1}), Error);
}

TEST(TensorData, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3f80);
  // 1 + 2^-8 is exactly between two bfloat16 values: ties go to even.
  EXPECT_EQ(float_to_bfloat16(1.00390625f), 0x3f80);
  EXPECT_EQ(bfloat16_to_float(0x4049), 3.140625f);
}

}  // namespace
}  // namespace mlipc::unit_ir_tensor_data
