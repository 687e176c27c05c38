// TfIdfVectorizer: shape rule and its errors (pool_strings refused), the
// reference on the ONNX examples and hand-computed weighting, duplicates and
// permuted columns, and the generated C (a baked trie) against the reference
// (a map) on random tokens and pools for every mode, weights, gram lengths,
// skips, int32/int64 and 1-D/2-D input, on both targets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

#include "frontend/onnx_import.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_tfidf {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::floats;
using test::import_error;
using test::ints;
using test::OnnxBuilder;
using Attr = std::pair<std::string, AttrValue>;

std::vector<float> floats_of(const TensorData& t) {
  const float* p = t.data<float>();
  return std::vector<float>(p, p + t.numel());
}

struct Tfidf {
  std::string mode = "TF";
  int64_t min = 1, max = 2, skip = 0;
  ints counts = {0, 4}, indexes = {0, 1, 2, 3, 4, 5, 6}, pool = {2, 3, 5, 4, 5, 6, 7, 8, 6, 7};
  floats weights;

  std::vector<Attr> attrs() const {
    std::vector<Attr> a = {{"mode", mode},          {"min_gram_length", min}, {"max_gram_length", max},
                           {"max_skip_count", skip}, {"ngram_counts", counts}, {"ngram_indexes", indexes},
                           {"pool_int64s", pool}};
    if (!weights.empty()) a.emplace_back("weights", weights);
    return a;
  }
};

fs::path model(const std::string& name, const Tfidf& t, const Shape& x, DType dt = DType::Int32,
               std::vector<Attr> extra = {}) {
  OnnxBuilder b(9);
  b.input("x", dt, x);
  std::vector<Attr> a = t.attrs();
  a.insert(a.end(), extra.begin(), extra.end());
  b.node("TfIdfVectorizer", {"x"}, {"y"}, a).output("y");
  return b.save(test::scratch_dir(), "tfidf_" + name + ".onnx");
}

std::vector<float> run1(const fs::path& m, const TensorData& x) {
  return floats_of(test::reference_run(m, {{"x", x}})[0].second);
}

const std::vector<int32_t> kTokens = {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8};

TEST(TfIdfVectorizer, ShapeRule) {
  Graph g1 = frontend::import_onnx(model("shape1", {}, {12}));
  EXPECT_EQ(g1.value(g1.outputs[0].value).shape, (Shape{7}));
  Graph g2 = frontend::import_onnx(model("shape2", {}, {2, 6}, DType::Int64));
  EXPECT_EQ(g2.value(g2.outputs[0].value).shape, (Shape{2, 7}));
}

TEST(TfIdfVectorizer, Errors) {
  Tfidf t;
  EXPECT_THAT(import_error(model("e_str", t, {12}, DType::Int32, {{"pool_strings", std::vector<std::string>{"a"}}})),
              HasSubstr("pool_strings (string n-grams) is not supported: strings are out of scope"));
  EXPECT_THAT(import_error(model("e_type", t, {12}, DType::Float32)),
              HasSubstr("has element type float32; supported: int32, int64"));
  EXPECT_THAT(import_error(model("e_rank", t, {2, 3, 2})), HasSubstr("input X has shape [2,3,2]; it must be [C] or [N, C]"));
  Tfidf m = t;
  m.mode = "BM25";
  EXPECT_THAT(import_error(model("e_mode", m, {12})), HasSubstr("mode 'BM25' is not supported (supported: TF, IDF, TFIDF)"));
  Tfidf len = t;
  len.min = 3;
  EXPECT_THAT(import_error(model("e_len", len, {12})),
              HasSubstr("min_gram_length 3, max_gram_length 2 and max_skip_count 0 must satisfy"));
  Tfidf counts = t;
  counts.counts = {4, 0};
  EXPECT_THAT(import_error(model("e_counts", counts, {12})), HasSubstr("ngram_counts [4,0] must be non-decreasing"));
  Tfidf odd = t;
  odd.counts = {0, 3};
  EXPECT_THAT(import_error(model("e_odd", odd, {12})),
              HasSubstr("the 2-grams of pool_int64s (entries 3 to 10) are not a whole number of 2-grams"));
  Tfidf idx = t;
  idx.indexes = {0, 1, 2, 3, 4, 5};
  EXPECT_THAT(import_error(model("e_idx", idx, {12})), HasSubstr("ngram_indexes has 6 entries; the pool holds more"));
  Tfidf w = t;
  w.mode = "TFIDF";
  w.weights = {1, 2, 3};
  EXPECT_THAT(import_error(model("e_w", w, {12})), HasSubstr("weights has 3 entries for 7 output columns"));
}

TEST(TfIdfVectorizer, ReferenceOnnxExamples) {
  const TensorData x1 = TensorData::from<int32_t>({12}, kTokens);
  Tfidf t;  // uni- and bigrams, skip up to 5: 1-grams counted once
  t.skip = 5;
  EXPECT_EQ(run1(model("uni_bi_skip5", t, {12}), x1), (std::vector<float>{0, 3, 1, 0, 1, 3, 1}));
  t.min = 2;  // bigrams only
  EXPECT_EQ(run1(model("bi_skip5", t, {12}), x1), (std::vector<float>{0, 0, 0, 0, 1, 3, 1}));
  t.skip = 0;
  EXPECT_EQ(run1(model("bi_skip0", t, {12}), x1), (std::vector<float>{0, 0, 0, 0, 1, 1, 1}));
  // Two rows: n-grams do not cross rows.
  const TensorData x2 = TensorData::from<int32_t>({2, 6}, kTokens);
  EXPECT_EQ(run1(model("batch_bi_skip0", t, {2, 6}), x2), (std::vector<float>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1}));
}

TEST(TfIdfVectorizer, ReferenceWeighting) {
  // Unigrams 2, 3, 5, 4 in columns 0..3; tokens 3, 3, 5, 9: counts 0, 2, 1, 0.
  Tfidf t;
  t.max = 1;
  t.counts = {0};
  t.pool = {2, 3, 5, 4};
  t.indexes = {0, 1, 2, 3};
  const TensorData x = TensorData::from<int64_t>({4}, {3, 3, 5, 9});
  EXPECT_EQ(run1(model("w_tf", t, {4}, DType::Int64), x), (std::vector<float>{0, 2, 1, 0}));
  t.mode = "IDF";
  EXPECT_EQ(run1(model("w_idf", t, {4}, DType::Int64), x), (std::vector<float>{0, 1, 1, 0}));
  t.mode = "TFIDF";
  EXPECT_EQ(run1(model("w_tfidf", t, {4}, DType::Int64), x), (std::vector<float>{0, 2, 1, 0}));
  t.weights = {0.5f, 1, 2, 4};
  EXPECT_EQ(run1(model("w_tfidf_w", t, {4}, DType::Int64), x), (std::vector<float>{0, 2, 2, 0}));
  t.mode = "IDF";
  EXPECT_EQ(run1(model("w_idf_w", t, {4}, DType::Int64), x), (std::vector<float>{0, 1, 2, 0}));
  // A repeated n-gram counts in its last occurrence's column; columns may be
  // permuted.
  Tfidf d;
  d.max = 1;
  d.counts = {0};
  d.pool = {7, 8, 7};
  d.indexes = {2, 0, 1};
  EXPECT_EQ(run1(model("dup", d, {4}), TensorData::from<int32_t>({4}, {7, 7, 8, 7})), (std::vector<float>{1, 3, 0}));
}

// A random pool of 1- to 3-grams over tokens 0..4 (so that they occur).
Tfidf random_pool(std::mt19937& rng) {
  Tfidf t;
  t.pool.clear();
  t.counts.clear();
  t.indexes.clear();
  int64_t k = 0;
  for (int64_t n = 1; n <= 3; ++n) {
    t.counts.push_back(static_cast<int64_t>(t.pool.size()));
    const int64_t grams = rng() % 6;
    for (int64_t g = 0; g < grams; ++g, ++k)
      for (int64_t j = 0; j < n; ++j) t.pool.push_back(rng() % 5);
  }
  for (int64_t i = 0; i < k; ++i) t.indexes.push_back(i);
  std::shuffle(t.indexes.begin(), t.indexes.end(), rng);
  if (k == 0) {  // at least one n-gram
    t.pool = {1};
    t.counts = {0};
    t.indexes = {0};
  }
  return t;
}

void every_form(const std::string& target) {
  OnnxBuilder b(9);
  io::NamedTensors in;
  std::mt19937 rng(target == "c" ? 17 : 23);
  int k = 0;
  for (const char* mode : {"TF", "IDF", "TFIDF"})
    for (bool weighted : {false, true})
      for (const auto& [mn, mx, skip] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{1, 1, 0}, {1, 3, 2}, {2, 3, 0}, {2, 2, 7}}) {
        Tfidf t = random_pool(rng);
        t.mode = mode;
        t.min = mn;
        t.max = mx;
        t.skip = skip;
        if (weighted)
          for (size_t i = 0; i < t.indexes.size(); ++i) t.weights.push_back(0.25f + static_cast<float>(rng() % 8));
        const DType dt = k % 2 ? DType::Int64 : DType::Int32;
        const Shape xs = k % 3 ? Shape{11} : Shape{3, 7};
        const std::string x = "x" + std::to_string(k), y = "y" + std::to_string(k);
        b.input(x, dt, xs);
        b.node("TfIdfVectorizer", {x}, {y}, t.attrs()).output(y);
        in.emplace_back(x, test::random_tensor(dt, xs, 40 + static_cast<uint32_t>(k), 0, 4));
        ++k;
      }
  driver::CompileOptions opt;
  opt.target = target;
  test::expect_matches_reference(b.save(test::scratch_dir(), std::string("tfidf_all_") + (target == "c" ? "c" : "mrvl") + ".onnx"),
                                 in, 0, 0, opt);
}

TEST(TfIdfVectorizer, GeneratedCMatchesReferenceEveryForm) { every_form("c"); }
TEST(TfIdfVectorizer, GeneratedCMatchesReferenceOnMrvlTarget) { every_form("mrvl, c"); }

TEST(TfIdfVectorizer, Randomized) {
  OnnxBuilder b(9);
  io::NamedTensors in;
  const char* modes[] = {"TF", "IDF", "TFIDF"};
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    std::mt19937 rng(seed * 31337);
    Tfidf t = random_pool(rng);
    t.mode = modes[rng() % 3];
    t.min = 1 + static_cast<int64_t>(rng() % 3);
    t.max = t.min + static_cast<int64_t>(rng() % 3);
    t.skip = static_cast<int64_t>(rng() % 4);
    if (rng() % 2)
      for (size_t i = 0; i < t.indexes.size(); ++i) t.weights.push_back(static_cast<float>(rng() % 100) / 7);
    const Shape xs = rng() % 2 ? Shape{1 + static_cast<int64_t>(rng() % 20)}
                               : Shape{1 + static_cast<int64_t>(rng() % 4), 1 + static_cast<int64_t>(rng() % 9)};
    const DType dt = rng() % 2 ? DType::Int64 : DType::Int32;
    const std::string x = "x" + std::to_string(seed), y = "y" + std::to_string(seed);
    b.input(x, dt, xs);
    b.node("TfIdfVectorizer", {x}, {y}, t.attrs()).output(y);
    in.emplace_back(x, test::random_tensor(dt, xs, seed, 0, 4));
  }
  test::expect_matches_reference(b.save(test::scratch_dir(), "tfidf_random.onnx"), in, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_tfidf
