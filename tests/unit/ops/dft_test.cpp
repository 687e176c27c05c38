#include <cmath>
#include <complex>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_dft {
namespace {

using test::import_error;
using test::OnnxBuilder;
using ::testing::HasSubstr;

using AttrList = std::vector<std::pair<std::string, AttrValue>>;
using cld = std::complex<long double>;

std::filesystem::path dft_model(const Shape& in, const AttrList& attrs, const std::string& file, int64_t dft_length = -1,
                                DType dt = DType::Float32) {
  OnnxBuilder b;
  b.input("x", dt, in);
  std::vector<std::string> ins = {"x"};
  if (dft_length >= 0) {
    b.initializer("len", TensorData::scalar<int64_t>(dft_length));
    ins.push_back("len");
  }
  b.node("DFT", ins, {"y"}, attrs).output("y");
  return b.save(test::scratch_dir(), file);
}

// The spec's definition in long double over one signal.
std::vector<cld> naive_dft(const std::vector<cld>& x, int64_t length, bool inverse) {
  const long double pi = 3.141592653589793238462643383279L;
  std::vector<cld> y(static_cast<size_t>(length));
  for (int64_t k = 0; k < length; ++k) {
    for (int64_t j = 0; j < std::min<int64_t>(length, static_cast<int64_t>(x.size())); ++j) {
      const long double a = (inverse ? 2 : -2) * pi * static_cast<long double>((j * k) % length) / length;
      y[k] += x[j] * cld(std::cos(a), std::sin(a));
    }
    if (inverse) y[k] /= static_cast<long double>(length);
  }
  return y;
}

void expect_complex_near(const TensorData& y, int64_t at, cld want, const std::string& what) {
  EXPECT_NEAR(y.data<float>()[2 * at], static_cast<float>(want.real()), 2e-6 * (1 + std::abs(want))) << what;
  EXPECT_NEAR(y.data<float>()[2 * at + 1], static_cast<float>(want.imag()), 2e-6 * (1 + std::abs(want))) << what;
}

TEST(DFT, ReferenceByHand) {
  const TensorData x = TensorData::from<float>({1, 4, 1}, {1, 2, 3, 4});
  const TensorData y = test::reference_run(dft_model({1, 4, 1}, {}, "dft_h1.onnx"), {{"x", x}})[0].second;
  ASSERT_EQ(y.shape(), (Shape{1, 4, 2}));
  const float want[] = {10, 0, -2, 2, -2, 0, -2, -2};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(y.data<float>()[i], want[i], 1e-6) << i;
  // The inverse gives the signal back.
  const TensorData back = test::reference_run(dft_model({1, 4, 2}, {{"inverse", int64_t{1}}}, "dft_h2.onnx"), {{"x", y}})[0].second;
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(back.data<float>()[2 * i], i + 1, 1e-6);
    EXPECT_NEAR(back.data<float>()[2 * i + 1], 0, 1e-6);
  }
  // One-sided: bins 0 .. 2.
  const TensorData half = test::reference_run(dft_model({1, 4, 1}, {{"onesided", int64_t{1}}}, "dft_h3.onnx"), {{"x", x}})[0].second;
  EXPECT_EQ(half.shape(), (Shape{1, 3, 2}));
}

TEST(DFT, ReferenceFollowsTheDefinition) {
  // Axis 2 of [2, 3, 5, 2] (complex), dft_length 7 (zero-padded) and 4 (truncated), both directions.
  const TensorData x = test::random_tensor(DType::Float32, {2, 3, 5, 2}, 7);
  int f = 0;
  for (int64_t length : {7, 4, 5})
    for (int64_t inverse : {0, 1}) {
      const TensorData y = test::reference_run(dft_model({2, 3, 5, 2}, {{"axis", int64_t{-2}}, {"inverse", inverse}},
                                                         "dft_d" + std::to_string(f++) + ".onnx", length),
                                               {{"x", x}})[0].second;
      ASSERT_EQ(y.shape(), (Shape{2, 3, length, 2}));
      for (int64_t o = 0; o < 6; ++o) {
        std::vector<cld> sig;
        for (int64_t j = 0; j < 5; ++j) sig.emplace_back(x.data<float>()[(o * 5 + j) * 2], x.data<float>()[(o * 5 + j) * 2 + 1]);
        const std::vector<cld> want = naive_dft(sig, length, inverse != 0);
        for (int64_t k = 0; k < length; ++k) expect_complex_near(y, o * length + k, want[k], "length " + std::to_string(length));
      }
    }
}

TEST(DFT, Errors) {
  EXPECT_THAT(import_error(dft_model({4}, {}, "dft_e1.onnx")), HasSubstr("must have rank 2 or more"));
  EXPECT_THAT(import_error(dft_model({1, 4, 3}, {}, "dft_e2.onnx")), HasSubstr("it must be 1 (real) or 2 (complex)"));
  EXPECT_THAT(import_error(dft_model({1, 4, 1}, {{"axis", int64_t{2}}}, "dft_e3.onnx")), HasSubstr("axis 2 is out of range"));
  EXPECT_THAT(import_error(dft_model({1, 4, 1}, {{"axis", int64_t{-1}}}, "dft_e4.onnx")), HasSubstr("axis -1 is the real/imaginary axis"));
  EXPECT_THAT(import_error(dft_model({1, 4, 2}, {{"onesided", int64_t{1}}}, "dft_e5.onnx")), HasSubstr("needs a real input"));
  EXPECT_THAT(import_error(dft_model({1, 4, 1}, {}, "dft_e6.onnx", 0)), HasSubstr("dft_length is 0"));
  EXPECT_THAT(import_error(dft_model({1, 4, 1}, {{"inverse", int64_t{3}}}, "dft_e7.onnx")), HasSubstr("inverse is 3"));
  EXPECT_THAT(import_error(dft_model({1, 4, 1}, {}, "dft_e8.onnx", -1, DType::Int32)), HasSubstr("int32"));
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 8, 1}).input("n", DType::Int64, {}).node("DFT", {"x", "n"}, {"y"}).output("y");
  EXPECT_THAT(import_error(b.save(test::scratch_dir(), "dft_e9.onnx")),
              HasSubstr("('n', dft_length) must be a constant known at compile time"));
}

std::filesystem::path stft_model(const Shape& signal, int64_t step, const Shape* window, int64_t frame_length,
                                 const AttrList& attrs, const std::string& file) {
  OnnxBuilder b;
  b.input("x", DType::Float32, signal).initializer("step", TensorData::scalar<int64_t>(step));
  std::vector<std::string> ins = {"x", "step", "", ""};
  if (window) {
    b.input("w", DType::Float32, *window);
    ins[2] = "w";
  }
  if (frame_length >= 0) {
    b.initializer("len", TensorData::scalar<int64_t>(frame_length));
    ins[3] = "len";
  }
  while (ins.back().empty()) ins.pop_back();
  b.node("STFT", ins, {"y"}, attrs).output("y");
  return b.save(test::scratch_dir(), file);
}

TEST(STFT, ReferenceFollowsTheDefinition) {
  // [2, 23, 1] real signal, frames of 6 every 4 samples: 5 frames, 4 one-sided bins.
  const Shape wshape = {6};
  const TensorData x = test::random_tensor(DType::Float32, {2, 23, 1}, 11);
  const TensorData w = test::random_tensor(DType::Float32, {6}, 12, 0, 1);
  const TensorData y = test::reference_run(stft_model({2, 23, 1}, 4, &wshape, -1, {}, "stft_d1.onnx"), {{"x", x}, {"w", w}})[0].second;
  ASSERT_EQ(y.shape(), (Shape{2, 5, 4, 2}));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t f = 0; f < 5; ++f) {
      std::vector<cld> frame;
      for (int64_t j = 0; j < 6; ++j)
        frame.emplace_back(static_cast<long double>(x.data<float>()[b * 23 + f * 4 + j]) * w.data<float>()[j], 0);
      const std::vector<cld> want = naive_dft(frame, 6, false);
      for (int64_t k = 0; k < 4; ++k) expect_complex_near(y, (b * 5 + f) * 4 + k, want[k], "stft");
    }
  // Without a window, two-sided: frame_length sets the frame.
  const TensorData x2 = test::random_tensor(DType::Float32, {1, 10, 1}, 13);
  const TensorData z =
      test::reference_run(stft_model({1, 10, 1}, 3, nullptr, 4, {{"onesided", int64_t{0}}}, "stft_d2.onnx"), {{"x", x2}})[0].second;
  ASSERT_EQ(z.shape(), (Shape{1, 3, 4, 2}));
  for (int64_t f = 0; f < 3; ++f) {
    std::vector<cld> frame;
    for (int64_t j = 0; j < 4; ++j) frame.emplace_back(x2.data<float>()[f * 3 + j], 0);
    const std::vector<cld> want = naive_dft(frame, 4, false);
    for (int64_t k = 0; k < 4; ++k) expect_complex_near(z, f * 4 + k, want[k], "stft two-sided");
  }
}

TEST(STFT, Errors) {
  const Shape w6 = {6}, w2d = {2, 3};
  EXPECT_THAT(import_error(stft_model({1, 20}, 4, &w6, -1, {}, "stft_e1.onnx")), HasSubstr("must be 3-D"));
  EXPECT_THAT(import_error(stft_model({1, 20, 1}, 0, &w6, -1, {}, "stft_e2.onnx")), HasSubstr("frame_step is 0"));
  EXPECT_THAT(import_error(stft_model({1, 20, 1}, 4, nullptr, -1, {}, "stft_e3.onnx")), HasSubstr("one of window and frame_length"));
  EXPECT_THAT(import_error(stft_model({1, 20, 1}, 4, &w6, 5, {}, "stft_e4.onnx")), HasSubstr("must agree"));
  EXPECT_THAT(import_error(stft_model({1, 4, 1}, 4, &w6, -1, {}, "stft_e5.onnx")), HasSubstr("longer than the signal"));
  EXPECT_THAT(import_error(stft_model({1, 20, 2}, 4, &w6, -1, {}, "stft_e6.onnx")), HasSubstr("needs a real input"));
  EXPECT_THAT(import_error(stft_model({1, 20, 1}, 4, &w2d, -1, {}, "stft_e7.onnx")), HasSubstr("must be 1-D"));
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 16, 1}).input("s", DType::Int64, {}).initializer("len", TensorData::scalar<int64_t>(4));
  b.node("STFT", {"x", "s", "", "len"}, {"y"}).output("y");
  EXPECT_THAT(import_error(b.save(test::scratch_dir(), "stft_e8.onnx")),
              HasSubstr("('s', frame_step) must be a constant known at compile time"));
}

TEST(DFT, GeneratedCMatchesReference) {
  // DFT: axes, real and complex, inverse, one-sided, padded and truncated
  // lengths, float64; STFT: run-time window, frame_length only, two-sided,
  // complex signal. One model, tolerance 0.
  OnnxBuilder b;
  io::NamedTensors in;
  auto add_input = [&](const std::string& name, DType dt, const Shape& s, uint32_t seed) {
    b.input(name, dt, s);
    in.emplace_back(name, test::random_tensor(dt, s, seed));
  };
  add_input("r", DType::Float32, {2, 5, 3, 1}, 1);
  add_input("c", DType::Float32, {3, 6, 2}, 2);
  add_input("d", DType::Float64, {4, 7, 1}, 3);
  add_input("s", DType::Float32, {2, 19, 1}, 4);
  add_input("sc", DType::Float32, {1, 15, 2}, 5);
  add_input("w", DType::Float32, {5}, 6);
  b.initializer("l8", TensorData::scalar<int64_t>(8)).initializer("l4", TensorData::scalar<int32_t>(4));
  b.initializer("st3", TensorData::scalar<int64_t>(3)).initializer("fl5", TensorData::scalar<int64_t>(5));
  int n = 0;
  auto node = [&](const std::string& op, const std::vector<std::string>& ins, const AttrList& attrs) {
    const std::string y = "y" + std::to_string(n++);
    b.node(op, ins, {y}, attrs).output(y);
  };
  node("DFT", {"r"}, {});
  node("DFT", {"r"}, {{"axis", int64_t{2}}, {"onesided", int64_t{1}}});
  node("DFT", {"r", "l8"}, {{"axis", int64_t{-3}}, {"inverse", int64_t{1}}});
  node("DFT", {"r", "l4"}, {{"axis", int64_t{0}}});
  node("DFT", {"c"}, {});
  node("DFT", {"c", "l4"}, {{"inverse", int64_t{1}}});
  node("DFT", {"c"}, {{"axis", int64_t{0}}, {"inverse", int64_t{1}}});
  node("DFT", {"d", "l8"}, {{"onesided", int64_t{1}}});
  node("STFT", {"s", "st3", "w"}, {});
  node("STFT", {"s", "st3", "", "fl5"}, {{"onesided", int64_t{0}}});
  node("STFT", {"s", "st3", "w", "fl5"}, {});
  node("STFT", {"sc", "st3", "w"}, {{"onesided", int64_t{0}}});
  test::expect_matches_reference(b.save(test::scratch_dir(), "dft_c.onnx"), in, 0, 0);
}

TEST(DFT, RandomizedMatchesReference) {
  // A few seeds of random shapes and attributes, several nodes per model.
  for (uint32_t seed : {21u, 22u, 23u}) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return static_cast<int64_t>(std::uniform_int_distribution<int>(lo, hi)(rng)); };
    OnnxBuilder b;
    io::NamedTensors in;
    for (int i = 0; i < 4; ++i) {
      const int rank = static_cast<int>(pick(2, 4));
      Shape s;
      for (int d = 0; d < rank - 1; ++d) s.push_back(pick(1, 9));
      const int64_t c = pick(1, 2);
      s.push_back(c);
      const std::string x = "x" + std::to_string(i), y = "y" + std::to_string(i);
      b.input(x, DType::Float32, s);
      in.emplace_back(x, test::random_tensor(DType::Float32, s, seed * 10 + i, -3, 3));
      const int64_t axis = pick(0, rank - 2) - (pick(0, 1) ? rank : 0);
      AttrList attrs = {{"axis", axis}, {"inverse", pick(0, 1)}};
      if (c == 1) attrs.push_back({"onesided", pick(0, 1)});
      std::vector<std::string> ins = {x};
      if (pick(0, 1)) {
        const std::string len = "len" + std::to_string(i);
        b.initializer(len, TensorData::scalar<int64_t>(pick(1, 12)));
        ins.push_back(len);
      }
      b.node("DFT", ins, {y}, attrs).output(y);
    }
    test::expect_matches_reference(b.save(test::scratch_dir(), "dft_r" + std::to_string(seed) + ".onnx"), in, 0, 0);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_dft
