// Randomized tests of the data-movement kernels: per seed, one model with a
// random case of each operator (random ranks and odd sizes, negative axes,
// broadcasting, element types, attributes), the generated C checked against
// the reference evaluator bit for bit. Shape-setting inputs computed at run
// time (with the output shape the model declares) get a case each too.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "driver/compile.h"
#include "ops/broadcast.h"
#include "ops/slice.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_datamove_random {
namespace {

using test::ints;
using test::OnnxBuilder;

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed), seed_(seed) {}

  int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  bool coin() { return uniform(0, 1) == 1; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[static_cast<size_t>(uniform(0, static_cast<int64_t>(v.size()) - 1))]; }

  Shape shape(int rank, int64_t lo = 1, int64_t hi = 5) {
    Shape s;
    for (int i = 0; i < rank; ++i) s.push_back(uniform(lo, hi));
    return s;
  }
  // A run-time input of random content.
  std::string input(DType t, const Shape& s, double lo = -50, double hi = 50) {
    const std::string name = "in" + std::to_string(inputs.size());
    b.input(name, t, s);
    TensorData v = t == DType::Bool ? test::random_tensor(DType::UInt8, s, seed_ + 97 * counter_++, 0, 1).cast(DType::Bool)
                                    : test::random_tensor(t, s, seed_ + 97 * counter_++, t == DType::UInt8 ? 0 : lo, hi);
    inputs.emplace_back(name, v);
    return name;
  }
  // A run-time input holding `v`.
  std::string given(const TensorData& v) {
    const std::string name = "in" + std::to_string(inputs.size());
    b.input(name, v.dtype(), v.shape());
    inputs.emplace_back(name, v);
    return name;
  }
  std::string constant(const TensorData& v) {
    const std::string name = "c" + std::to_string(counter_++);
    b.initializer(name, v);
    return name;
  }
  std::string ints_const(const ints& v) { return constant(TensorData::from<int64_t>({static_cast<int64_t>(v.size())}, v)); }
  // Adds the node, its outputs graph outputs; returns their names.
  std::vector<std::string> node(const std::string& op, const std::vector<std::string>& ins, int outputs,
                                const std::vector<std::pair<std::string, AttrValue>>& attrs = {}) {
    std::vector<std::string> outs;
    for (int i = 0; i < outputs; ++i) outs.push_back(op + "_" + std::to_string(counter_++));
    b.node(op, ins, outs, attrs);
    for (const std::string& o : outs) b.output(o);
    return outs;
  }
  DType any_type() { return pick<DType>({DType::Float32, DType::Int64, DType::Int32, DType::UInt8, DType::Int8,
                                         DType::Float16, DType::Bool}); }
  DType numeric_type() { return pick<DType>({DType::Float32, DType::Int64, DType::Int32, DType::UInt8, DType::Float64}); }

  OnnxBuilder b;
  io::NamedTensors inputs;

 private:
  std::mt19937 rng_;
  uint32_t seed_;
  int counter_ = 0;
};

void add_slice(Gen& g) {
  const Shape s = g.shape(static_cast<int>(g.uniform(1, 4)), 1, 7);
  const int rank = static_cast<int>(s.size());
  ints starts, ends, axes, steps;
  for (int a = 0; a < rank; ++a) {
    if (g.coin()) continue;
    axes.push_back(g.coin() ? a : a - rank);
    starts.push_back(g.uniform(-9, 9));
    ends.push_back(g.pick<int64_t>({-9, -2, 0, 3, 9, INT64_MAX, INT64_MIN}));
    steps.push_back(g.pick<int64_t>({-3, -2, -1, 1, 2, 3}));
  }
  if (axes.empty()) axes = {0}, starts = {0}, ends = {INT64_MAX}, steps = {-1};
  g.node("Slice", {g.input(g.any_type(), s), g.ints_const(starts), g.ints_const(ends), g.ints_const(axes),
                   g.ints_const(steps)}, 1);
}

void add_gathers(Gen& g) {
  {  // Gather
    const Shape s = g.shape(static_cast<int>(g.uniform(1, 3)));
    const int64_t axis = g.uniform(-static_cast<int64_t>(s.size()), static_cast<int64_t>(s.size()) - 1);
    const int64_t dim = s[static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(s.size()) : axis)];
    const DType it = g.coin() ? DType::Int64 : DType::Int32;
    g.node("Gather", {g.input(g.any_type(), s), g.input(it, g.shape(static_cast<int>(g.uniform(0, 2))), -dim, dim - 1)}, 1,
           {{"axis", axis}});
  }
  {  // GatherElements
    const Shape s = g.shape(static_cast<int>(g.uniform(1, 3)));
    const int64_t axis = g.uniform(-static_cast<int64_t>(s.size()), static_cast<int64_t>(s.size()) - 1);
    const size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(s.size()) : axis);
    Shape is = s;
    for (size_t d = 0; d < s.size(); ++d) is[d] = d == a ? g.uniform(1, 6) : g.uniform(1, s[d]);
    g.node("GatherElements", {g.input(g.any_type(), s), g.input(DType::Int64, is, -s[a], s[a] - 1)}, 1, {{"axis", axis}});
  }
  {  // GatherND with batch_dims
    const Shape s = g.shape(static_cast<int>(g.uniform(2, 4)));
    const int64_t b = g.uniform(0, static_cast<int64_t>(s.size()) - 2);
    const int64_t k = g.uniform(1, static_cast<int64_t>(s.size()) - b);
    Shape is(s.begin(), s.begin() + b);
    is.push_back(g.uniform(1, 4));
    is.push_back(k);
    int64_t lo = s[static_cast<size_t>(b)];
    for (int64_t d = b; d < b + k; ++d) lo = std::min(lo, s[static_cast<size_t>(d)]);
    g.node("GatherND", {g.input(g.any_type(), s), g.input(DType::Int64, is, -lo, lo - 1)}, 1, {{"batch_dims", b}});
  }
}

void add_scatters(Gen& g) {
  const std::string red = g.pick<std::string>({"none", "add", "mul", "max", "min"});
  const DType dt = red == "none" ? g.any_type() : g.numeric_type();
  {  // ScatterElements
    const Shape s = g.shape(static_cast<int>(g.uniform(1, 3)));
    const int64_t axis = g.uniform(-static_cast<int64_t>(s.size()), static_cast<int64_t>(s.size()) - 1);
    const size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(s.size()) : axis);
    Shape is = s;
    for (size_t d = 0; d < s.size(); ++d) is[d] = d == a ? g.uniform(1, 6) : g.uniform(1, s[d]);
    g.node("ScatterElements", {g.input(dt, s, -9, 9), g.input(DType::Int64, is, -s[a], s[a] - 1), g.input(dt, is, -9, 9)}, 1,
           {{"axis", axis}, {"reduction", red}});
  }
  {  // ScatterND
    const Shape s = g.shape(static_cast<int>(g.uniform(1, 3)));
    const int64_t k = g.uniform(1, static_cast<int64_t>(s.size()));
    Shape is = {g.uniform(1, 5), k};
    Shape us = {is[0]};
    us.insert(us.end(), s.begin() + k, s.end());
    int64_t lo = s[0];
    for (int64_t d = 0; d < k; ++d) lo = std::min(lo, s[static_cast<size_t>(d)]);
    g.node("ScatterND", {g.input(dt, s, -9, 9), g.input(DType::Int64, is, -lo, lo - 1), g.input(dt, us, -9, 9)}, 1,
           {{"reduction", red}});
  }
}

void add_shapes(Gen& g) {
  {  // Expand: random broadcasting both ways
    const Shape s = g.shape(static_cast<int>(g.uniform(1, 3)), 1, 3);
    ints target;
    const int extra = static_cast<int>(g.uniform(0, 2));
    for (int i = 0; i < extra; ++i) target.push_back(g.uniform(1, 3));
    for (int64_t d : s) target.push_back(d == 1 ? g.uniform(1, 4) : (g.coin() ? d : 1));
    g.node("Expand", {g.input(g.any_type(), s), g.ints_const(target)}, 1);
  }
  {  // Tile
    const Shape s = g.shape(static_cast<int>(g.uniform(1, 3)), 1, 4);
    ints reps;
    for (size_t i = 0; i < s.size(); ++i) reps.push_back(g.uniform(1, 3));
    g.node("Tile", {g.input(g.any_type(), s), g.ints_const(reps)}, 1);
  }
  {  // Split
    const Shape s = g.shape(static_cast<int>(g.uniform(1, 3)), 2, 7);
    const int64_t axis = g.uniform(-static_cast<int64_t>(s.size()), static_cast<int64_t>(s.size()) - 1);
    const int64_t dim = s[static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(s.size()) : axis)];
    const int64_t first = g.uniform(0, dim);
    g.node("Split", {g.input(g.any_type(), s), g.ints_const({first, dim - first})}, 2, {{"axis", axis}});
  }
  {  // DepthToSpace / SpaceToDepth
    const int64_t b = g.uniform(1, 3);
    if (g.coin())
      g.node("DepthToSpace", {g.input(g.any_type(), {g.uniform(1, 2), b * b * g.uniform(1, 3), g.uniform(1, 3), g.uniform(1, 3)})},
             1, {{"blocksize", b}, {"mode", g.pick<std::string>({"DCR", "CRD"})}});
    else
      g.node("SpaceToDepth", {g.input(g.any_type(), {g.uniform(1, 2), g.uniform(1, 3), b * g.uniform(1, 3), b * g.uniform(1, 3)})},
             1, {{"blocksize", b}});
  }
}

void add_elementwise(Gen& g) {
  {  // Where: three shapes broadcasting to one
    const Shape out = g.shape(static_cast<int>(g.uniform(1, 3)));
    auto part = [&]() {
      Shape s(out.begin() + g.uniform(0, static_cast<int64_t>(out.size()) - 1), out.end());
      for (int64_t& d : s)
        if (g.coin()) d = 1;
      return s;
    };
    const DType dt = g.any_type();
    g.node("Where", {g.input(DType::Bool, part()), g.input(dt, part()), g.input(dt, part())}, 1);
  }
  {  // Cast between random types, with values around the narrow types' limits
    const DType from = g.pick<DType>({DType::Float32, DType::Float64, DType::Int64, DType::Int16, DType::UInt8,
                                      DType::Float16, DType::Bool});
    g.node("Cast", {g.input(from, g.shape(2), -300, 300)}, 1,
           {{"to", g.pick<int64_t>({1, 2, 3, 5, 6, 7, 9, 10, 11, 12, 13, 16})}});
  }
  {  // Trilu
    const Shape s = g.shape(static_cast<int>(g.uniform(2, 3)));
    g.node("Trilu", {g.input(g.any_type(), s), g.constant(TensorData::scalar<int64_t>(g.uniform(-3, 3)))}, 1,
           {{"upper", g.uniform(0, 1)}});
  }
  {  // CumSum
    const Shape s = g.shape(static_cast<int>(g.uniform(1, 3)));
    const int64_t axis = g.uniform(-static_cast<int64_t>(s.size()), static_cast<int64_t>(s.size()) - 1);
    g.node("CumSum", {g.input(g.pick<DType>({DType::Float32, DType::Int64, DType::Int32}), s),
                      g.constant(TensorData::scalar<int64_t>(axis))},
           1, {{"exclusive", g.uniform(0, 1)}, {"reverse", g.uniform(0, 1)}});
  }
  {  // OneHot
    const Shape s = g.shape(static_cast<int>(g.uniform(1, 2)));
    const int64_t depth = g.uniform(1, 5);
    g.node("OneHot", {g.input(g.pick<DType>({DType::Int64, DType::Int32, DType::Float32}), s, -depth - 1, depth),
                      g.constant(TensorData::scalar<int64_t>(depth)), g.input(g.any_type(), {2})},
           1, {{"axis", g.uniform(-static_cast<int64_t>(s.size()) - 1, static_cast<int64_t>(s.size()))}});
  }
  {  // ReverseSequence
    const int64_t t = g.uniform(0, 1);
    const Shape s = g.shape(static_cast<int>(g.uniform(2, 3)));
    g.node("ReverseSequence", {g.input(g.any_type(), s), g.input(DType::Int64, {s[static_cast<size_t>(1 - t)]}, 0,
                                                                 static_cast<double>(s[static_cast<size_t>(t)]))},
           1, {{"time_axis", t}, {"batch_axis", 1 - t}});
  }
}

TensorData int64s(const ints& v) { return TensorData::from<int64_t>({static_cast<int64_t>(v.size())}, v); }

void add_resize(Gen& g) {
  const std::string mode = g.pick<std::string>({"nearest", "linear", "cubic"});
  const std::string coord = g.pick<std::string>({"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                                 "align_corners", "asymmetric", "tf_half_pixel_for_nn"});
  const Shape s = {1, g.uniform(1, 2), g.uniform(1, 6), g.uniform(1, 6)};
  const DType dt = mode == "nearest" ? g.any_type() : DType::Float32;
  std::vector<std::pair<std::string, AttrValue>> attrs = {
      {"mode", mode},
      {"coordinate_transformation_mode", coord},
      {"nearest_mode", g.pick<std::string>({"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})},
      {"exclude_outside", g.uniform(0, 1)}};
  const std::string x = g.input(dt, s);
  if (g.coin()) {
    const std::vector<float> scales = {1, 1, static_cast<float>(g.uniform(3, 25)) / 10, static_cast<float>(g.uniform(3, 25)) / 10};
    g.node("Resize", {x, "", g.constant(TensorData::from<float>({4}, scales))}, 1, attrs);
  } else if (g.coin()) {
    g.node("Resize", {x, "", "", g.ints_const({1, s[1], g.uniform(1, 9), g.uniform(1, 9)})}, 1, attrs);
  } else {  // sizes computed at run time, the output shape declared
    const ints sizes = {1, s[1], g.uniform(1, 9), g.uniform(1, 9)};
    const auto y = g.node("Resize", {x, "", "", g.given(int64s(sizes))}, 1, attrs);
    g.b.declare(y[0], dt, sizes);
  }
}

// Shape-setting inputs computed at run time; the model declares each output's
// shape, computed here as the shape rule would from constants.
void add_runtime_shapes(Gen& g) {
  {  // Slice: random bounds, as add_slice
    const Shape s = g.shape(static_cast<int>(g.uniform(1, 3)), 1, 7);
    const int rank = static_cast<int>(s.size());
    ints starts, ends, axes, steps;
    for (int a = 0; a < rank; ++a) {
      if (g.coin() && a + 1 < rank) continue;
      axes.push_back(g.coin() ? a : a - rank);
      starts.push_back(g.uniform(-9, 9));
      ends.push_back(g.pick<int64_t>({-9, -2, 0, 3, 9, INT64_MAX, INT64_MIN}));
      steps.push_back(g.pick<int64_t>({-3, -2, -1, 1, 2, 3}));
    }
    const TensorData st = int64s(starts), en = int64s(ends), ax = int64s(axes), sp = int64s(steps);
    const DType dt = g.any_type();
    const auto y = g.node("Slice", {g.input(dt, s), g.given(st), g.given(en), g.given(ax), g.given(sp)}, 1);
    g.b.declare(y[0], dt, ops::slice_params(s, st, en, &ax, &sp).out_shape);
  }
  {  // Expand
    const Shape s = g.shape(static_cast<int>(g.uniform(1, 3)), 1, 3);
    ints target;
    for (int i = 0, extra = static_cast<int>(g.uniform(0, 2)); i < extra; ++i) target.push_back(g.uniform(1, 3));
    for (int64_t d : s) target.push_back(d == 1 ? g.uniform(1, 4) : (g.coin() ? d : 1));
    const DType dt = g.any_type();
    const auto y = g.node("Expand", {g.input(dt, s), g.given(int64s(target))}, 1);
    g.b.declare(y[0], dt, ops::broadcast_shapes(s, target));
  }
  {  // Tile
    const Shape s = g.shape(static_cast<int>(g.uniform(1, 3)), 1, 4);
    ints reps;
    Shape out = s;
    for (size_t i = 0; i < s.size(); ++i) reps.push_back(g.uniform(1, 3)), out[i] *= reps[i];
    const DType dt = g.any_type();
    const auto y = g.node("Tile", {g.input(dt, s), g.given(int64s(reps))}, 1);
    g.b.declare(y[0], dt, out);
  }
  {  // Split
    const Shape s = g.shape(static_cast<int>(g.uniform(1, 3)), 2, 7);
    const int64_t axis = g.uniform(-static_cast<int64_t>(s.size()), static_cast<int64_t>(s.size()) - 1);
    const size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(s.size()) : axis);
    const int64_t first = g.uniform(0, s[a]);
    const DType dt = g.any_type();
    const auto y = g.node("Split", {g.input(dt, s), g.given(int64s({first, s[a] - first}))}, 2, {{"axis", axis}});
    Shape s0 = s, s1 = s;
    s0[a] = first;
    s1[a] = s[a] - first;
    g.b.declare(y[0], dt, s0).declare(y[1], dt, s1);
  }
  {  // OneHot: a float depth is truncated
    const Shape s = g.shape(static_cast<int>(g.uniform(1, 2)));
    const int64_t depth = g.uniform(1, 5);
    const int64_t axis = g.uniform(-static_cast<int64_t>(s.size()) - 1, static_cast<int64_t>(s.size()));
    const TensorData d = g.coin() ? TensorData::scalar<float>(static_cast<float>(depth) + 0.5f) : TensorData::scalar<int64_t>(depth);
    const DType vt = g.any_type();
    const auto y = g.node("OneHot", {g.input(g.pick<DType>({DType::Int64, DType::Int32}), s, -depth - 1, depth), g.given(d),
                                     g.input(vt, {2})},
                          1, {{"axis", axis}});
    Shape out = s;
    out.insert(out.begin() + (axis < 0 ? axis + static_cast<int64_t>(s.size()) + 1 : axis), depth);
    g.b.declare(y[0], vt, out);
  }
  {  // Range, up or down
    const double start = static_cast<double>(g.uniform(-20, 20)), delta = static_cast<double>(g.pick<int64_t>({-3, -2, -1, 1, 2, 5}));
    const double limit = start + delta * static_cast<double>(g.uniform(0, 9)) + (g.coin() ? delta / 2 : 0);
    const DType dt = g.pick<DType>({DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Int16});
    auto scalar = [&](double v) { return TensorData::scalar<double>(v).cast(dt); };
    const TensorData s = scalar(start), l = scalar(limit), d = scalar(delta);
    const double n = std::ceil((l.at(0) - s.at(0)) / d.at(0));
    const auto y = g.node("Range", {g.given(s), g.given(l), g.given(d)}, 1);
    g.b.declare(y[0], dt, {n > 0 ? static_cast<int64_t>(n) : 0});
  }
}

class DatamoveRandom : public ::testing::TestWithParam<uint32_t> {};

TEST_P(DatamoveRandom, GeneratedCMatchesReference) {
  Gen g(GetParam());
  add_slice(g);
  add_gathers(g);
  add_scatters(g);
  add_shapes(g);
  add_elementwise(g);
  add_resize(g);
  add_resize(g);
  const auto model = g.b.save(test::scratch_dir(), "datamove_random" + std::to_string(GetParam()) + ".onnx");
  test::expect_matches_reference(model, g.inputs, 0, 0);
}

// A model of its own: with the cases above it would pass the runtime's 64
// input and output tensors.
TEST_P(DatamoveRandom, RuntimeShapeInputsMatchReference) {
  Gen g(GetParam() + 100);
  add_runtime_shapes(g);
  add_resize(g);
  add_resize(g);
  const auto model = g.b.save(test::scratch_dir(), "datamove_random_rt" + std::to_string(GetParam()) + ".onnx");
  test::expect_matches_reference(model, g.inputs, 0, 0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, DatamoveRandom, ::testing::Values(1u, 2u, 3u, 4u, 5u));

// One seed through the MLIP target: since the row-major layers (PERMUTE,
// CONCAT_ROWS, ELTWISE of trailing dimensions) its Slices, Gathers of one
// index, Expands and elementwise nodes run in MLIP regions (fp16): the
// suite's fp16 tolerance; the bit-exact CPU kernels are the seeds above.
TEST(DatamoveRandomMrvl, GeneratedCMatchesReference) {
  Gen g(11);
  add_slice(g);
  add_gathers(g);
  add_scatters(g);
  add_shapes(g);
  add_elementwise(g);
  add_resize(g);
  driver::CompileOptions opt;
  opt.target = "mrvl, c";
  test::expect_matches_reference(g.b.save(test::scratch_dir(), "datamove_random_mrvl.onnx"), g.inputs, 2e-2, 2e-2, opt);
}

TEST(DatamoveRandomMrvl, RuntimeShapeInputsMatchReference) {
  Gen g(111);
  add_runtime_shapes(g);
  add_resize(g);
  add_resize(g);
  driver::CompileOptions opt;
  opt.target = "mrvl, c";
  // Its Resize of constant sizes runs in an MLIP region (fp16) since the
  // RESIZE layer: the suite's fp16 tolerance; the bit-exact CPU kernels are
  // the DatamoveRandom seeds above.
  test::expect_matches_reference(g.b.save(test::scratch_dir(), "datamove_random_rt_mrvl.onnx"), g.inputs, 2e-2, 2e-2,
                                 opt);
}

}  // namespace
}  // namespace mlipc::unit_ops_datamove_random
