// The Reduce* family (ops/reduce.cpp, c/kernels/reduce.cpp).
#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/tensors.h"

namespace mlipc::unit_ops_reduce {
namespace {

using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

const std::vector<std::string> kAllReduce = {"ReduceMax",    "ReduceMin",       "ReduceSum",      "ReduceProd",
                                             "ReduceL1",     "ReduceL2",        "ReduceLogSum",   "ReduceLogSumExp",
                                             "ReduceSumSquare", "ReduceMean"};

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("reduce_{}.onnx", k++));
}

// How a node receives its axes: none, the attribute (opset < 18, < 13 for
// ReduceSum) or an int64 initializer as input #1 (the newer form).
enum class AxesForm { None, Attr, Input };

struct Spec {
  Spec(std::string op_ = "ReduceSum", std::optional<ints> axes_ = std::nullopt,
       std::optional<int64_t> keepdims_ = std::nullopt, std::optional<int64_t> noop_ = std::nullopt,
       AxesForm form_ = AxesForm::Attr)
      : op(std::move(op_)), axes(std::move(axes_)), keepdims(keepdims_), noop(noop_), form(form_) {}
  std::string op;
  std::optional<ints> axes;
  std::optional<int64_t> keepdims;
  std::optional<int64_t> noop;
  AxesForm form;
};

// Adds node y = op(x) to m, its axes an initializer "<y>_axes" when asked.
void add_node(OnnxBuilder& m, const Spec& s, const std::string& x, const std::string& y) {
  std::vector<std::pair<std::string, AttrValue>> attrs;
  std::vector<std::string> inputs = {x};
  if (s.axes && s.form == AxesForm::Attr) attrs.emplace_back("axes", *s.axes);
  if (s.axes && s.form == AxesForm::Input) {
    m.initializer(y + "_axes", TensorData::from<int64_t>({static_cast<int64_t>(s.axes->size())}, *s.axes));
    inputs.push_back(y + "_axes");
  }
  if (s.keepdims) attrs.emplace_back("keepdims", *s.keepdims);
  if (s.noop) attrs.emplace_back("noop_with_empty_axes", *s.noop);
  m.node(s.op, inputs, {y}, attrs);
}

fs::path model(const Spec& s, const Shape& shape, int opset, DType t = DType::Float32) {
  OnnxBuilder m(opset);
  m.input("x", t, shape);
  add_node(m, s, "x", "y");
  m.output("y");
  return save(m);
}

Shape out_shape(const Spec& s, const Shape& shape, int opset = 11) {
  Graph g = frontend::import_onnx(model(s, shape, opset));
  return g.value(g.outputs[0].value).shape;
}

using test::import_error;

std::vector<float> values(const TensorData& t) { return std::vector<float>(t.data<float>(), t.data<float>() + t.numel()); }

TEST(Reduce, ShapeRuleAxesAttribute) {
  // opset 11: axes as an attribute; keepdims defaults to 1; no axes: all.
  EXPECT_EQ(out_shape({"ReduceMax", ints{1}}, {3, 2, 2}), (Shape{3, 1, 2}));
  EXPECT_EQ(out_shape({"ReduceMax", ints{1}, 0}, {3, 2, 2}), (Shape{3, 2}));
  EXPECT_EQ(out_shape({"ReduceL2", ints{-2, 0}, 1}, {3, 2, 2}), (Shape{1, 1, 2}));
  EXPECT_EQ(out_shape({"ReduceProd", std::nullopt, 1}, {3, 2, 2}), (Shape{1, 1, 1}));
  EXPECT_EQ(out_shape({"ReduceMean", ints{}, 0}, {3, 2, 2}), (Shape{}));
  EXPECT_EQ(out_shape({"ReduceSum", ints{2}, 0}, {3, 2, 2}, 11), (Shape{3, 2}));
}

TEST(Reduce, ShapeRuleAxesInput) {
  // ReduceSum takes axes as an input from opset 13 on (the others from 18,
  // which reach the IR in the same form: frontend/opset.cpp).
  auto sum = [](std::optional<ints> axes, std::optional<int64_t> keep, std::optional<int64_t> noop) {
    return Spec{"ReduceSum", std::move(axes), keep, noop, AxesForm::Input};
  };
  EXPECT_EQ(out_shape(sum(ints{1}, 0, std::nullopt), {3, 2, 2}, 13), (Shape{3, 2}));
  EXPECT_EQ(out_shape(sum(ints{-1, 0}, 1, std::nullopt), {3, 2, 2}, 13), (Shape{1, 2, 1}));
  EXPECT_EQ(out_shape(sum(ints{}, 0, std::nullopt), {3, 2, 2}, 13), (Shape{}));     // empty: all axes
  EXPECT_EQ(out_shape(sum(ints{}, 0, 1), {3, 2, 2}, 13), (Shape{3, 2, 2}));        // empty with noop: none
  EXPECT_EQ(out_shape(sum(std::nullopt, 1, 1), {3, 2, 2}, 13), (Shape{3, 2, 2}));  // omitted with noop: none
  EXPECT_EQ(out_shape(sum(std::nullopt, 1, 0), {3, 2, 2}, 13), (Shape{1, 1, 1}));
  EXPECT_EQ(out_shape({"ReduceLogSumExp", ints{0}, 0, std::nullopt, AxesForm::Input}, {3, 2}, 18), (Shape{2}));
  EXPECT_EQ(out_shape({"ReduceMax", std::nullopt, 0, 1, AxesForm::Input}, {3, 2}, 18), (Shape{3, 2}));
  EXPECT_EQ(out_shape({"ReduceL1", std::nullopt, 0, std::nullopt, AxesForm::Input}, {3, 2}, 18), (Shape{}));
}

TEST(Reduce, ShapeRuleErrors) {
  EXPECT_THAT(import_error(model({"ReduceMean", ints{2}, 1}, {3, 2}, 13)),
              HasSubstr("axis 2 is out of range for rank 2"));
  EXPECT_THAT(import_error(model({"ReduceMax", ints{1, -1}, 1}, {3, 2}, 13)), HasSubstr("axes [1,-1] repeats axis 1"));
  EXPECT_THAT(import_error(model({"ReduceL2", ints{0}}, {3, 2}, 13, DType::Int32)),
              HasSubstr("has element type int32; supported: float32, float64"));
  EXPECT_THAT(import_error(model({"ReduceSum", ints{0}}, {3, 2}, 13, DType::UInt8)),
              HasSubstr("has element type uint8; supported: float32, float64, int32, int64"));
  // ReduceSum-13 and ReduceMean-18 with the old attribute.
  EXPECT_THAT(import_error(model({"ReduceSum", ints{0}}, {3, 2}, 13)),
              HasSubstr("the axes attribute belongs to opsets before 18 (13 for ReduceSum)"));
  EXPECT_THAT(import_error(model({"ReduceMean", ints{0}}, {3, 2}, 18)),
              HasSubstr("the axes attribute belongs to opsets before 18"));
  // Axes computed at run time: the output shape would depend on them.
  OnnxBuilder m(13);
  m.input("x", DType::Float32, {3, 2}).input("axes", DType::Int64, {1});
  m.node("ReduceSum", {"x", "axes"}, {"y"}).output("y");
  EXPECT_THAT(import_error(save(m)), HasSubstr("input #1 ('axes', axes) must be a constant known at compile time"));
}

TEST(Reduce, ReferenceHandComputed) {
  const TensorData x = TensorData::from<float>({2, 3}, {1, -2, 3, 4, 5, -6});
  auto eval = [&](const std::string& op, std::optional<ints> axes) {
    return values(test::reference_run(model({op, std::move(axes), 0}, {2, 3}, 11), {{"x", x}}).at(0).second);
  };
  EXPECT_EQ(eval("ReduceMax", ints{1}), (std::vector<float>{3, 5}));
  EXPECT_EQ(eval("ReduceMin", ints{0}), (std::vector<float>{1, -2, -6}));
  EXPECT_EQ(eval("ReduceSum", ints{1}), (std::vector<float>{2, 3}));
  EXPECT_EQ(eval("ReduceProd", ints{1}), (std::vector<float>{-6, -120}));
  EXPECT_EQ(eval("ReduceL1", ints{1}), (std::vector<float>{6, 15}));
  EXPECT_EQ(eval("ReduceSumSquare", ints{1}), (std::vector<float>{14, 77}));
  EXPECT_EQ(eval("ReduceL2", ints{1}), (std::vector<float>{std::sqrt(14.0f), std::sqrt(77.0f)}));
  EXPECT_EQ(eval("ReduceMean", std::nullopt), (std::vector<float>{5.0f / 6.0f}));
  const std::vector<float> ls = eval("ReduceLogSum", ints{0});
  EXPECT_EQ(ls[0], std::log(5.0f));
  EXPECT_EQ(ls[1], std::log(3.0f));
  EXPECT_TRUE(std::isnan(ls[2]));  // log(-3)
  const std::vector<float> lse = eval("ReduceLogSumExp", ints{1});
  EXPECT_NEAR(lse[0], std::log(std::exp(1.0) + std::exp(-2.0) + std::exp(3.0)), 1e-6);
  EXPECT_NEAR(lse[1], std::log(std::exp(4.0) + std::exp(5.0) + std::exp(-6.0)), 1e-6);
  // The maximum is subtracted first, so large inputs do not overflow.
  const TensorData big = TensorData::from<float>({2}, {1000, 1000});
  const TensorData y = test::reference_run(model({"ReduceLogSumExp", ints{0}, 0}, {2}, 11), {{"x", big}}).at(0).second;
  EXPECT_FLOAT_EQ(y.data<float>()[0], 1000.0f + std::log(2.0f));
}

TEST(Reduce, ReferenceNoopAndNaN) {
  // noop_with_empty_axes: each output folds one element (|x| for L1, x^2
  // for SumSquare), as the ONNX reference does.
  const TensorData x = TensorData::from<float>({3}, {-2, NAN, 3});
  auto eval = [&](const std::string& op) {
    return values(test::reference_run(model({op, std::nullopt, 1, 1, AxesForm::Input}, {3}, 13), {{"x", x}})
                      .at(0).second);
  };
  std::vector<float> sq = eval("ReduceSumSquare");
  EXPECT_EQ(sq[0], 4.0f);
  EXPECT_TRUE(std::isnan(sq[1]));
  EXPECT_EQ(sq[2], 9.0f);
  EXPECT_EQ(eval("ReduceL1")[0], 2.0f);
  // Max and Min propagate NaN wherever it is.
  for (const char* op : {"ReduceMax", "ReduceMin"})
    for (const std::vector<float>& v : {std::vector<float>{NAN, 1, 2}, std::vector<float>{1, NAN, 2},
                                        std::vector<float>{1, 2, NAN}}) {
      const TensorData t = TensorData::from<float>({3}, v);
      const TensorData y = test::reference_run(model({op, ints{0}, 0}, {3}, 11), {{"x", t}}).at(0).second;
      EXPECT_TRUE(std::isnan(y.data<float>()[0])) << op;
    }
}

TEST(Reduce, ReferenceIntegers) {
  const TensorData x = TensorData::from<int32_t>({2, 2}, {std::numeric_limits<int32_t>::max(), 1, -3, 4});
  auto eval = [&](const std::string& op) {
    return test::reference_run(model({op, ints{1}, 0}, {2, 2}, 11, DType::Int32), {{"x", x}}).at(0).second.as_int64();
  };
  // Sums wrap around as two's complement.
  EXPECT_EQ(eval("ReduceSum"), (std::vector<int64_t>{std::numeric_limits<int32_t>::min(), 1}));
  EXPECT_EQ(eval("ReduceMax"), (std::vector<int64_t>{std::numeric_limits<int32_t>::max(), 4}));
  EXPECT_EQ(eval("ReduceMin"), (std::vector<int64_t>{1, -3}));
  EXPECT_EQ(eval("ReduceProd"), (std::vector<int64_t>{std::numeric_limits<int32_t>::max(), -12}));
  EXPECT_EQ(eval("ReduceL1"), (std::vector<int64_t>{std::numeric_limits<int32_t>::min(), 7}));
  EXPECT_EQ(eval("ReduceSumSquare"), (std::vector<int64_t>{2, 25}));
}

// Reducing an axis of size 0 gives each kind's identity.
TEST(Reduce, EmptyReductions) {
  const TensorData x(DType::Float32, {2, 0, 3});
  const std::vector<std::pair<std::string, float>> want = {
      {"ReduceMax", -INFINITY}, {"ReduceMin", INFINITY},   {"ReduceSum", 0},     {"ReduceProd", 1},
      {"ReduceL1", 0},          {"ReduceL2", 0},           {"ReduceSumSquare", 0}, {"ReduceLogSum", -INFINITY},
      {"ReduceLogSumExp", -INFINITY}};
  for (const auto& [op, v] : want) {
    const TensorData y = test::reference_run(model({op, ints{1}, 1}, {2, 0, 3}, 11), {{"x", x}}).at(0).second;
    EXPECT_EQ(y.shape(), (Shape{2, 1, 3}));
    EXPECT_EQ(values(y), std::vector<float>(6, v)) << op;
  }
  const TensorData mean = test::reference_run(model({"ReduceMean", ints{1}, 0}, {2, 0, 3}, 11), {{"x", x}}).at(0).second;
  EXPECT_TRUE(std::isnan(mean.data<float>()[0]));  // 0 / 0
  const TensorData xi(DType::Int64, {0, 2});
  const TensorData yi =
      test::reference_run(model({"ReduceMax", ints{0}, 0}, {0, 2}, 11, DType::Int64), {{"x", xi}}).at(0).second;
  EXPECT_EQ(yi.as_int64(), (std::vector<int64_t>(2, std::numeric_limits<int64_t>::lowest())));
}

// One model per kind with every axes/keepdims combination that changes the
// loops; the kernel must give the reference's bits.
TEST(Reduce, GeneratedCMatchesReferenceFloat) {
  const std::vector<Spec> forms = {{"", ints{0}, 1},     {"", ints{1}, 0},     {"", ints{3}, 1},
                                   {"", ints{2, 3}, 1},  {"", ints{-1, 1}, 0}, {"", ints{0, 2}, 0},
                                   {"", std::nullopt, 1}, {"", ints{1, 2, 3}, 1}, {"", ints{-4}, 0}};
  const Shape shape = {2, 3, 4, 5};
  // Two models of five kinds each (the runtime takes at most 64 inputs and
  // outputs per model).
  for (size_t half = 0; half < 2; ++half) {
    OnnxBuilder m(11);
    // LogSum needs positive sums; Prod stays finite near 1.
    m.input("x", DType::Float32, shape).input("pos", DType::Float32, shape);
    for (size_t k = half * 5; k < half * 5 + 5; ++k)
      for (size_t i = 0; i < forms.size(); ++i) {
        const std::string& op = kAllReduce[k];
        Spec s = forms[i];
        s.op = op;
        const std::string y = fmt::format("{}{}", op, i);
        add_node(m, s, op == "ReduceLogSum" || op == "ReduceProd" ? "pos" : "x", y);
        m.output(y);
      }
    test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, shape, 7, -2.0, 2.0)},
                                             {"pos", random_tensor(DType::Float32, shape, 8, 0.6, 1.5)}},
                                   0, 0);
  }
}

TEST(Reduce, GeneratedCAxesInputNoopAndEmpty) {
  OnnxBuilder m(18);
  m.input("x", DType::Float32, {3, 1, 4}).input("e", DType::Float32, {2, 0, 3});
  int k = 0;
  for (const std::string& op : kAllReduce) {
    // Axes as input #1 for every kind (the opset-18 form), and an empty
    // reduction of each kind.
    const std::string a = fmt::format("a{}", k), e = fmt::format("e{}", k++);
    add_node(m, {op, ints{-1}, 0, std::nullopt, AxesForm::Input}, "x", a);
    m.output(a);
    add_node(m, {op, ints{1}, 1, std::nullopt, AxesForm::Input}, "e", e);
    m.output(e);
  }
  add_node(m, {"ReduceSum", std::nullopt, 1, 1, AxesForm::Input}, "x", "noop");
  m.output("noop");
  add_node(m, {"ReduceSum", ints{}, 0, 1, AxesForm::Input}, "x", "noop_empty");
  m.output("noop_empty");
  add_node(m, {"ReduceSum", ints{}, 0, 0, AxesForm::Input}, "x", "all");
  m.output("all");
  for (const char* op : {"ReduceL1", "ReduceLogSumExp", "ReduceSumSquare", "ReduceMean"}) {
    add_node(m, {op, std::nullopt, 1, 1, AxesForm::Input}, "x", std::string("noop_") + op);
    m.output(std::string("noop_") + op);
  }
  test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, {3, 1, 4}, 3, 0.1, 2.0)},
                                           {"e", TensorData(DType::Float32, {2, 0, 3})}},
                                 0, 0);
}

TEST(Reduce, GeneratedCFloat64) {
  OnnxBuilder m(11);
  m.input("x", DType::Float64, {3, 4, 5}).input("pos", DType::Float64, {3, 4, 5});
  for (const std::string& op : kAllReduce)
    for (const Spec& form : {Spec{"", ints{1}, 0}, Spec{"", ints{0, -1}, 1}}) {
      Spec s = form;
      s.op = op;
      const std::string y = fmt::format("{}{}", op, form.axes->size());
      add_node(m, s, op == "ReduceLogSum" || op == "ReduceProd" ? "pos" : "x", y);
      m.output(y);
    }
  test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float64, {3, 4, 5}, 5, -3.0, 3.0)},
                                           {"pos", random_tensor(DType::Float64, {3, 4, 5}, 6, 0.6, 1.5)}},
                                 0, 0);
}

TEST(Reduce, GeneratedCIntegers) {
  for (DType t : {DType::Int32, DType::Int64, DType::Int8, DType::UInt8}) {
    const bool narrow = t == DType::Int8 || t == DType::UInt8;
    OnnxBuilder m(11);
    m.input("x", t, {3, 4, 5});
    int k = 0;
    for (const char* op : {"ReduceMax", "ReduceMin", "ReduceSum", "ReduceProd", "ReduceL1", "ReduceSumSquare"}) {
      if (narrow && op != std::string("ReduceMax") && op != std::string("ReduceMin")) continue;
      for (const Spec& form : {Spec{"", ints{1}, 0}, Spec{"", ints{0, 2}, 1}, Spec{"", std::nullopt, 0}}) {
        Spec s = form;
        s.op = op;
        const std::string y = fmt::format("y{}", k++);
        add_node(m, s, "x", y);
        m.output(y);
      }
    }
    SCOPED_TRACE(std::string(dtype_name(t)));
    // Wide enough that int32 sums and products wrap.
    const double lo = t == DType::UInt8 ? 0 : t == DType::Int8 ? -128 : -100000, hi = t == DType::UInt8 ? 255 : t == DType::Int8 ? 127 : 100000;
    test::expect_matches_reference(save(m), {{"x", random_tensor(t, {3, 4, 5}, 11, lo, hi)}}, 0, 0);
  }
}

// Random shapes (rank 1-4, odd sizes), axes (negative ones too, as attribute
// or input), keepdims and kinds; a few seeds, several nodes per model.
TEST(Reduce, GeneratedCRandomized) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int rank = pick(1, 4);
    Shape shape;
    for (int i = 0; i < rank; ++i) shape.push_back(pick(1, 7));
    const int opset = seed % 3 == 0 ? 11 : seed % 3 == 1 ? 13 : 18;
    OnnxBuilder m(opset);
    m.input("x", DType::Float32, shape);
    for (int j = 0; j < 8; ++j) {
      Spec s;
      s.op = kAllReduce[static_cast<size_t>(pick(0, static_cast<int>(kAllReduce.size()) - 1))];
      ints axes;
      for (int a = 0; a < rank; ++a)
        if (pick(0, 1)) axes.push_back(pick(0, 1) ? a : a - rank);
      if (!axes.empty() || pick(0, 1)) s.axes = axes;
      s.keepdims = pick(0, 1);
      s.form = opset >= 18 || (opset >= 13 && s.op == "ReduceSum") ? AxesForm::Input : AxesForm::Attr;
      const std::string y = fmt::format("y{}", j);
      add_node(m, s, "x", y);
      m.output(y);
    }
    SCOPED_TRACE(fmt::format("seed {} shape {}", seed, shape_str(shape)));
    test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, shape, seed, 0.05, 1.5)}}, 0, 0);
  }
}

// The kernel folds 8 outputs side by side (reduce.c): output counts that
// leave a short last group (1 to 7 outputs over), fewer outputs than a
// group, one output, every kind but LogSumExp (its own loop), reductions
// over inner, outer and middle axes, with NaN, infinities and -0 among the
// inputs; the reference's bits.
TEST(Reduce, GeneratedCGroupsOfOutputsKeepEachFold) {
  const std::vector<std::pair<Shape, ints>> cases = {
      {{2, 19, 33}, ints{2}},    {{2, 19, 33}, ints{1}},  {{2, 19, 33}, ints{0}}, {{2, 19, 33}, ints{0, 2}},
      {{1, 13, 7, 9}, ints{2, 3}}, {{5, 3}, ints{1}},      {{9, 4}, ints{0}},      {{6, 17}, ints{0, 1}}};
  std::mt19937 rng(29);
  int k = 0;
  for (const auto& [shape, axes] : cases) {
    OnnxBuilder m(13);
    m.input("x", DType::Float32, shape).input("pos", DType::Float32, shape);
    for (const std::string& op : kAllReduce) {
      if (op == "ReduceLogSumExp") continue;  // its own loop
      const std::string y = fmt::format("y{}", k++);
      add_node(m, {op, axes, 0, std::nullopt, op == "ReduceSum" ? AxesForm::Input : AxesForm::Attr},
               op == "ReduceLogSum" || op == "ReduceProd" ? "pos" : "x", y);
      m.output(y);
    }
    TensorData x = random_tensor(DType::Float32, shape, static_cast<uint32_t>(k), -2.0, 2.0);
    float* p = x.data<float>();
    const int64_t n = x.numel();
    for (float special : {std::nanf(""), INFINITY, -INFINITY, -0.0f}) p[test::pick(rng, 0, n - 1)] = special;
    SCOPED_TRACE(fmt::format("{} axes {}", shape_str(shape), fmt::join(axes, ",")));
    test::expect_matches_reference(save(m), {{"x", x}, {"pos", random_tensor(DType::Float32, shape, 3, 0.9, 1.1)}}, 0, 0);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_reduce
