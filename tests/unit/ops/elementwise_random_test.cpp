// Randomized elementwise models: for a few seeds, operators drawn from every
// elementwise family with random element types (among those each allows),
// random ranks and odd sizes, inputs broadcast along random axes (rank
// differences, size-1 axes, scalars). The generated C must give the
// reference's bits.
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_elementwise_random {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
namespace fs = std::filesystem;

const std::vector<DType> kFloat = {DType::Float16, DType::Float32, DType::Float64};
const std::vector<DType> kNumeric = {DType::Float16, DType::Float32, DType::Float64, DType::Int8,  DType::Int16,
                                     DType::Int32,   DType::Int64,   DType::UInt8,   DType::UInt16, DType::UInt32,
                                     DType::UInt64};

struct OpKind {
  std::string op;
  std::vector<DType> types;  // of input 0 (the others share it, except Pow's exponent)
  int min_inputs, max_inputs;
};

const std::vector<OpKind> kOps = {
    {"Add", kNumeric, 2, 2},        {"Sub", kNumeric, 2, 2},      {"Mul", kNumeric, 2, 2},
    {"Div", kNumeric, 2, 2},        {"Mod", kNumeric, 2, 2},      {"Max", kNumeric, 1, 4},
    {"Min", kNumeric, 1, 4},        {"Sum", kFloat, 1, 4},        {"Mean", kFloat, 1, 4},
    {"Equal", kNumeric, 2, 2},      {"Less", kNumeric, 2, 2},     {"GreaterOrEqual", kNumeric, 2, 2},
    {"And", {DType::Bool}, 2, 2},   {"Xor", {DType::Bool}, 2, 2}, {"Pow", {DType::Float32, DType::Int64}, 2, 2},
    {"PRelu", {DType::Float32, DType::Int32}, 2, 2},
    {"BitShift", {DType::UInt8, DType::UInt32}, 2, 2},
    {"Abs", kNumeric, 1, 1},        {"Neg", {DType::Float16, DType::Int16}, 1, 1},
    {"Round", kFloat, 1, 1},        {"Exp", {DType::Float32}, 1, 1}, {"HardSwish", {DType::Float32}, 1, 1},
    {"Not", {DType::Bool}, 1, 1},   {"IsInf", kFloat, 1, 1},      {"Sign", kNumeric, 1, 1},
};

// A shape that broadcasts to `out`: a random suffix of its axes, each kept or set to 1.
Shape broadcastable(const Shape& out, std::mt19937& rng) {
  const size_t rank = std::uniform_int_distribution<size_t>(0, out.size())(rng);
  Shape s(out.end() - static_cast<std::ptrdiff_t>(rank), out.end());
  for (int64_t& d : s)
    if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) d = 1;
  return s;
}

class ElementwiseRandom : public ::testing::TestWithParam<uint32_t> {};

TEST_P(ElementwiseRandom, GeneratedCMatchesReferenceBitForBit) {
  std::mt19937 rng(GetParam());
  OnnxBuilder m;
  io::NamedTensors inputs;
  int name = 0;
  for (int node = 0; node < 10; ++node) {
    const OpKind& k = kOps[std::uniform_int_distribution<size_t>(0, kOps.size() - 1)(rng)];
    const DType t = k.types[std::uniform_int_distribution<size_t>(0, k.types.size() - 1)(rng)];
    Shape out(std::uniform_int_distribution<size_t>(0, 4)(rng));
    for (int64_t& d : out) d = std::uniform_int_distribution<int64_t>(1, 7)(rng);
    const int count = std::uniform_int_distribution<int>(k.min_inputs, k.max_inputs)(rng);
    std::vector<std::string> args;
    std::vector<std::pair<std::string, AttrValue>> attrs;
    for (int i = 0; i < count; ++i) {
      // Input 0 of PRelu is the full shape (its slope broadcasts to it).
      const Shape s = (k.op == "PRelu" && i == 0) ? out : broadcastable(out, rng);
      DType ti = t;
      double lo = dtype_is_signed(t) ? -20 : 0, hi = 20;
      if (k.op == "Pow" && i == 1) {
        ti = kNumeric[std::uniform_int_distribution<size_t>(0, kNumeric.size() - 1)(rng)];
        lo = dtype_is_signed(ti) ? -3 : 0, hi = 5;
      }
      if (k.op == "BitShift" && i == 1) hi = static_cast<double>(dtype_size(t) * 8 + 1);
      if (ti == DType::Bool) lo = 0, hi = 1;
      args.push_back(fmt::format("in{}", name++));
      m.input(args.back(), ti, s);
      inputs.emplace_back(args.back(), random_tensor(ti, s, static_cast<uint32_t>(rng()), lo, hi));
    }
    if (k.op == "Mod") attrs.emplace_back("fmod", int64_t{dtype_is_float(t) ? 1 : static_cast<int64_t>(rng() % 2)});
    if (k.op == "BitShift") attrs.emplace_back("direction", std::string(rng() % 2 ? "LEFT" : "RIGHT"));
    if (k.op == "IsInf") attrs.emplace_back("detect_negative", static_cast<int64_t>(rng() % 2));
    const std::string y = fmt::format("{}_{}", k.op, node);
    m.node(k.op, args, {y}, attrs).output(y);
  }
  test::expect_matches_reference(m.save(test::scratch_dir(), fmt::format("elementwise_random_{}.onnx", GetParam())),
                                 inputs, 0, 0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, ElementwiseRandom, ::testing::Values(1u, 2u, 3u, 4u));

}  // namespace
}  // namespace mlipc::unit_ops_elementwise_random
