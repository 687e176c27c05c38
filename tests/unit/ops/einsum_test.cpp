// Einsum: shape rule and the accepted forms, reference kernel on
// hand-computed cases, generated C against the reference (bit-identical).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_einsum {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::OnnxBuilder;
using test::random_tensor;

struct Case {
  std::string equation;
  std::vector<Shape> shapes;
};

fs::path model(const std::string& name, const std::vector<Case>& cases, DType t = DType::Float32) {
  OnnxBuilder m;
  for (size_t c = 0; c < cases.size(); ++c) {
    std::vector<std::string> ins;
    for (size_t k = 0; k < cases[c].shapes.size(); ++k) {
      ins.push_back("x" + std::to_string(c) + "_" + std::to_string(k));
      m.input(ins.back(), t, cases[c].shapes[k]);
    }
    m.node("Einsum", ins, {"y" + std::to_string(c)}, {{"equation", cases[c].equation}});
    m.output("y" + std::to_string(c));
  }
  return m.save(test::scratch_dir(), "einsum_" + name + ".onnx");
}

Shape out_shape(const Case& c) {
  Graph g = frontend::import_onnx(model("shape", {c}));
  return g.value(g.outputs[0].value).shape;
}

std::string import_error(const Case& c, DType t = DType::Float32) {
  try {
    frontend::import_onnx(model("err", {c}, t));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Einsum, ShapeRuleForms) {
  EXPECT_EQ(out_shape({"bij,bjk->bik", {{5, 2, 3}, {5, 3, 4}}}), (Shape{5, 2, 4}));
  EXPECT_EQ(out_shape({"bhid,bhjd->bhij", {{2, 3, 4, 8}, {2, 3, 5, 8}}}), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(out_shape({"bhij,bhjd->bhid", {{2, 3, 4, 5}, {2, 3, 5, 8}}}), (Shape{2, 3, 4, 8}));
  EXPECT_EQ(out_shape({"ij,jk", {{2, 3}, {3, 4}}}), (Shape{2, 4}));     // implicit: labels once, sorted
  EXPECT_EQ(out_shape({"ba,ca", {{2, 3}, {4, 3}}}), (Shape{2, 4}));     // implicit b, c
  EXPECT_EQ(out_shape({"i,i", {{5}, {5}}}), (Shape{}));
  EXPECT_EQ(out_shape({"i,j->ij", {{2}, {3}}}), (Shape{2, 3}));
  EXPECT_EQ(out_shape({"ij->ji", {{3, 4}}}), (Shape{4, 3}));
  EXPECT_EQ(out_shape({"ij->i", {{3, 4}}}), (Shape{3}));
  EXPECT_EQ(out_shape({"ii->i", {{4, 4}}}), (Shape{4}));
  EXPECT_EQ(out_shape({"ii", {{4, 4}}}), (Shape{}));
  EXPECT_EQ(out_shape({"...ii ->...i", {{3, 5, 5}}}), (Shape{3, 5}));
  // Ellipsis axes broadcast numpy-style and lead the implicit output.
  EXPECT_EQ(out_shape({"...ij,...jk->...ik", {{2, 1, 3, 4}, {5, 4, 2}}}), (Shape{2, 5, 3, 2}));
  EXPECT_EQ(out_shape({"...ij,...jk", {{2, 1, 3, 4}, {5, 4, 2}}}), (Shape{2, 5, 3, 2}));
  EXPECT_EQ(out_shape({"i...->...", {{3, 2, 4}}}), (Shape{2, 4}));
}

TEST(Einsum, ShapeRuleErrors) {
  EXPECT_THAT(import_error({"i,i,i", {{2}, {2}, {2}}}), HasSubstr("Einsum with 3 operands is not supported"));
  EXPECT_THAT(import_error({"ij,jk->ik", {{2, 3}}}), HasSubstr("has 2 input terms but the node has 1 inputs"));
  EXPECT_THAT(import_error({"i1->i", {{2, 3}}}), HasSubstr("'1' is not a label"));
  EXPECT_THAT(import_error({"ij,jk->ik", {{2, 3}, {4, 5}}}), HasSubstr("label 'j' has extent 3 in one place and 4"));
  EXPECT_THAT(import_error({"ij->ik", {{2, 3}}}), HasSubstr("output label 'k' does not appear in any input"));
  EXPECT_THAT(import_error({"ij->ii", {{2, 3}}}), HasSubstr("output label 'i' appears twice"));
  EXPECT_THAT(import_error({"ijk->i", {{2, 3}}}), HasSubstr("term 'ijk' names 3 axes; input 0 has shape [2,3]"));
  EXPECT_THAT(import_error({"...i...->i", {{2, 3}}}), HasSubstr("more than one ellipsis"));
  EXPECT_THAT(import_error({"...i,...i->...i", {{2, 3}, {4, 3}}}), HasSubstr("label '...0' has extent 2"));
  EXPECT_THAT(import_error({"ij->ji", {{2, 3}}}, DType::Int64), HasSubstr("element type int64; supported: float32"));
}

std::vector<float> values(const TensorData& t) { return std::vector<float>(t.data<float>(), t.data<float>() + t.numel()); }

TEST(Einsum, ReferenceSmallCases) {
  TensorData a = TensorData::from<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TensorData b = TensorData::from<float>({3, 2}, {1, 0, 0, 1, 1, 1});
  auto run = [&](const Case& c, io::NamedTensors in) { return values(test::reference_run(model("ref", {c}), in)[0].second); };
  EXPECT_EQ(run({"ij,jk->ik", {{2, 3}, {3, 2}}}, {{"x0_0", a}, {"x0_1", b}}), (std::vector<float>{4, 5, 10, 11}));
  EXPECT_EQ(run({"ij->ji", {{2, 3}}}, {{"x0_0", a}}), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(run({"ij->j", {{2, 3}}}, {{"x0_0", a}}), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(run({"ij->", {{2, 3}}}, {{"x0_0", a}}), (std::vector<float>{21}));
  TensorData sq = TensorData::from<float>({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(run({"ii->i", {{2, 2}}}, {{"x0_0", sq}}), (std::vector<float>{1, 4}));
  EXPECT_EQ(run({"ii", {{2, 2}}}, {{"x0_0", sq}}), (std::vector<float>{5}));
  TensorData u = TensorData::from<float>({2}, {1, 2}), v = TensorData::from<float>({3}, {1, 10, 100});
  EXPECT_EQ(run({"i,j->ij", {{2}, {3}}}, {{"x0_0", u}, {"x0_1", v}}), (std::vector<float>{1, 10, 100, 2, 20, 200}));
  EXPECT_EQ(run({"i,i", {{2}, {2}}}, {{"x0_0", u}, {"x0_1", u}}), (std::vector<float>{5}));
}

// Every form, several nodes per model, float32 and float64.
void expect_c_matches(const std::string& name, const std::vector<Case>& cases, DType t) {
  SCOPED_TRACE(name);
  io::NamedTensors in;
  uint32_t seed = 1;
  for (size_t c = 0; c < cases.size(); ++c)
    for (size_t k = 0; k < cases[c].shapes.size(); ++k)
      in.emplace_back("x" + std::to_string(c) + "_" + std::to_string(k), random_tensor(t, cases[c].shapes[k], seed++));
  test::expect_matches_reference(model(name, cases, t), in, 0.0, 0.0);
}

const std::vector<Case> kForms = {
    {"bij,bjk->bik", {{5, 2, 3}, {5, 3, 4}}},
    {"bhid,bhjd->bhij", {{2, 3, 4, 8}, {2, 3, 5, 8}}},
    {"bhij,bhjd->bhid", {{2, 3, 4, 5}, {2, 3, 5, 7}}},
    {"ij,jk", {{3, 7}, {7, 5}}},
    {"ik,jk->ij", {{3, 7}, {5, 7}}},
    {"bi,bi->b", {{4, 9}, {4, 9}}},
    {"i,i", {{6}, {6}}},
    {"i,j->ij", {{3}, {4}}},
    {"bn,anm->bam", {{2, 3}, {4, 3, 5}}},
    {"...ij,...jk->...ik", {{2, 1, 3, 4}, {5, 4, 2}}},
    {"ij->ji", {{3, 4}}},
    {"ij->i", {{3, 4}}},
    {"abc->cb", {{2, 3, 4}}},
    {"ii->i", {{4, 4}}},
    {"ii", {{5, 5}}},
    {"...ii ->...i", {{3, 5, 5}}},
    {"bii,bj->bij", {{2, 3, 3}, {2, 4}}},
};

TEST(Einsum, GeneratedCMatchesReferenceFloat) { expect_c_matches("forms_f32", kForms, DType::Float32); }
TEST(Einsum, GeneratedCMatchesReferenceDouble) { expect_c_matches("forms_f64", kForms, DType::Float64); }

// Random equations: random labels and extents shared by both operands,
// random output order and summed labels, a few seeds, one model each.
TEST(Einsum, GeneratedCMatchesReferenceRandomized) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::vector<Case> cases;
    for (int c = 0; c < 6; ++c) {
      std::string pool = "abcdefg";
      std::shuffle(pool.begin(), pool.end(), rng);
      pool.resize(static_cast<size_t>(pick(2, 5)));
      std::map<char, int64_t> ext;
      for (char l : pool) ext[l] = pick(1, 4);
      const int operands = c % 3 == 0 ? 1 : 2;
      std::vector<std::string> terms;
      std::string used;
      Case k;
      for (int o = 0; o < operands; ++o) {
        std::string t = pool;
        std::shuffle(t.begin(), t.end(), rng);
        t.resize(static_cast<size_t>(pick(1, static_cast<int>(t.size()))));
        Shape shape;
        for (char l : t) shape.push_back(ext[l]);
        k.shapes.push_back(shape);
        terms.push_back(t);
        for (char l : t)
          if (used.find(l) == std::string::npos) used += l;
      }
      std::string out = used;
      std::shuffle(out.begin(), out.end(), rng);
      out.resize(static_cast<size_t>(pick(0, static_cast<int>(out.size()))));
      k.equation = terms[0] + (operands == 2 ? "," + terms[1] : "") + "->" + out;
      cases.push_back(k);
    }
    expect_c_matches("rand" + std::to_string(seed), cases, DType::Float32);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_einsum
