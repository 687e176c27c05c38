// QLinearMatMul on mlip/kq8.h's int8 product (templates/kernels/qlinear_matmul_q8.c):
// taken for a constant 2-D int8 B whose zero points are 0 with one A zero
// point and A scale, and only then; the generated C against the reference
// evaluator at tolerance 0 (uint8 A with zero point 128 and int8 with -128,
// and others; per-column and per-tensor B scales; batched A; sizes that
// are not multiples of 4 or 16). The product's variants against its
// reference: tests/variants.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_c_q8_matmul {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("q8_matmul_{}.onnx", k++));
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string lib1(const fs::path& onnx) {
  return driver::compile_model(onnx, {}).files.at("codegen/host/src/default_lib1.c");
}

// Four fully-connected QLinearMatMuls on one B: uint8 A (zero point 128 and
// 77) and int8 A (-128 and 5), batched and not, per-column and per-tensor
// B scales and zero points, uint8 and int8 outputs.
void check(int64_t k, int64_t n, uint32_t seed) {
  OnnxBuilder m;
  const Shape au = {2, 3, k}, a8 = {5, k};
  m.input("au", DType::UInt8, au).input("a8", DType::Int8, a8);
  m.initializer("b", random_tensor(DType::Int8, {k, n}, seed, -128, 127));
  std::vector<float> bs;
  for (int64_t j = 0; j < n; ++j) bs.push_back(0.0017f + 0.0004f * static_cast<float>(j % 5));
  m.initializer("bsc", TensorData::from<float>({n}, bs)).initializer("bst", TensorData::scalar<float>(0.0023f));
  m.initializer("zbc", TensorData::from<int8_t>({n}, std::vector<int8_t>(static_cast<size_t>(n), 0)));
  m.initializer("zb", TensorData::scalar<int8_t>(0));
  m.initializer("as", TensorData::scalar<float>(0.03f)).initializer("ys", TensorData::scalar<float>(0.02f));
  m.initializer("za128", TensorData::scalar<uint8_t>(128)).initializer("zau", TensorData::scalar<uint8_t>(77));
  m.initializer("zam128", TensorData::scalar<int8_t>(-128)).initializer("za8", TensorData::scalar<int8_t>(5));
  m.initializer("zyu", TensorData::scalar<uint8_t>(131)).initializer("zy8", TensorData::scalar<int8_t>(-7));
  m.node("QLinearMatMul", {"au", "as", "za128", "b", "bsc", "zbc", "ys", "zyu"}, {"y0"}).output("y0");
  m.node("QLinearMatMul", {"au", "as", "zau", "b", "bst", "zb", "ys", "zy8"}, {"y1"}).output("y1");
  m.node("QLinearMatMul", {"a8", "as", "zam128", "b", "bst", "zb", "ys", "zyu"}, {"y2"}).output("y2");
  m.node("QLinearMatMul", {"a8", "as", "za8", "b", "bsc", "zbc", "ys", "zy8"}, {"y3"}).output("y3");
  const fs::path onnx = save(m);
  SCOPED_TRACE(fmt::format("K {} N {}", k, n));
  EXPECT_EQ(count(lib1(onnx), "  mlip_kq8_gemm("), 4);
  test::expect_matches_reference(onnx,
                                 {{"au", random_tensor(DType::UInt8, au, seed + 1, 0, 255)},
                                  {"a8", random_tensor(DType::Int8, a8, seed + 2, -128, 127)}},
                                 0.0, 0.0);
}

TEST(Q8MatMul, GeneratedCMatchesReference) {
  check(1, 1, 3);
  check(37, 13, 5);
  check(64, 10, 7);
  check(150, 21, 9);
}

// Only a constant int8 B with zero points 0: a uint8 B, a non-zero B zero
// point and a B computed at run time keep matmul_integer.c (and the
// reference's bits).
TEST(Q8MatMul, TakenOnlyForConstantInt8BWithZeroPointsZero) {
  const Shape a = {3, 20}, b = {20, 6};
  OnnxBuilder m;
  m.input("a", DType::UInt8, a).input("br", DType::Int8, b);
  m.initializer("b8", random_tensor(DType::Int8, b, 3, -128, 127));
  m.initializer("bu", random_tensor(DType::UInt8, b, 4, 0, 255));
  m.initializer("as", TensorData::scalar<float>(0.02f)).initializer("za", TensorData::scalar<uint8_t>(128));
  m.initializer("bs", TensorData::scalar<float>(0.003f)).initializer("ys", TensorData::scalar<float>(0.05f));
  m.initializer("z0", TensorData::scalar<int8_t>(0)).initializer("z1", TensorData::scalar<int8_t>(1));
  m.initializer("zu", TensorData::scalar<uint8_t>(128)).initializer("zy", TensorData::scalar<uint8_t>(128));
  m.node("QLinearMatMul", {"a", "as", "za", "b8", "bs", "z0", "ys", "zy"}, {"fast"}).output("fast");
  m.node("QLinearMatMul", {"a", "as", "za", "b8", "bs", "z1", "ys", "zy"}, {"zb1"}).output("zb1");
  m.node("QLinearMatMul", {"a", "as", "za", "bu", "bs", "zu", "ys", "zy"}, {"u8"}).output("u8");
  m.node("QLinearMatMul", {"a", "as", "za", "br", "bs", "z0", "ys", "zy"}, {"runtime"}).output("runtime");
  const fs::path onnx = save(m);
  const std::string code = lib1(onnx);
  EXPECT_EQ(count(code, "  mlip_kq8_gemm("), 1) << code;
  EXPECT_EQ(count(code, "mlip_requantize(acc, qm["), 3) << code;  // matmul_integer.c
  test::expect_matches_reference(onnx,
                                 {{"a", random_tensor(DType::UInt8, a, 5, 0, 255)},
                                  {"br", random_tensor(DType::Int8, b, 6, -128, 127)}},
                                 0.0, 0.0);
}

}  // namespace
}  // namespace mlipc::unit_c_q8_matmul
