// GridSample, RoiAlign and TfIdfVectorizer compile cleanly as strict C99
// (-std=c99 -Wall -Wextra -Werror -pedantic), as every generated file must:
// one model with every form whose template text differs (each mode, padding
// rule and align_corners; avg/max, both coordinate modes, fixed and adaptive
// sampling; each weighting with and without weights, int32 and int64, an
// empty trie).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace fs = std::filesystem;

namespace mlipc::unit_ops_sample_ops_strict_c {
namespace {

using test::ints;
using test::OnnxBuilder;
using Attrs_ = std::vector<std::pair<std::string, AttrValue>>;

TEST(SampleOpsStrictC, EveryFormCompilesAsStrictC99) {
  OnnxBuilder m(16);
  int k = 0;
  auto node = [&](const std::string& op, const std::vector<std::string>& in, const Attrs_& attrs) {
    const std::string y = fmt::format("y{}", k++);
    m.node(op, in, {y}, attrs).output(y);
  };
  m.input("x", DType::Float32, {1, 2, 5, 4}).input("g", DType::Float32, {1, 3, 2, 2});
  m.input("rois", DType::Float32, {3, 4}).input("b", DType::Int64, {3});
  m.input("t32", DType::Int32, {2, 5}).input("t64", DType::Int64, {6});
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* pad : {"zeros", "border", "reflection"})
      for (int64_t align : {0, 1})
        node("GridSample", {"x", "g"}, {{"mode", std::string(mode)}, {"padding_mode", std::string(pad)}, {"align_corners", align}});
  for (const char* mode : {"avg", "max"})
    for (const char* coord : {"half_pixel", "output_half_pixel"})
      for (int64_t ratio : {0, 2})
        node("RoiAlign", {"x", "rois", "b"},
             {{"mode", std::string(mode)}, {"coordinate_transformation_mode", std::string(coord)}, {"sampling_ratio", ratio}});
  for (const char* mode : {"TF", "IDF", "TFIDF"})
    for (bool weighted : {false, true})
      for (const char* t : {"t32", "t64"}) {
        Attrs_ a = {{"mode", std::string(mode)}, {"min_gram_length", int64_t{1}}, {"max_gram_length", int64_t{2}},
                    {"max_skip_count", int64_t{1}}, {"ngram_counts", ints{0, 2}}, {"ngram_indexes", ints{1, 0, 2}},
                    {"pool_int64s", ints{3, 4, 4, 5}}};
        if (weighted) a.emplace_back("weights", std::vector<float>{0.5f, 2, 3});
        node("TfIdfVectorizer", {t}, a);
      }
  // No n-gram of the pool within [min, max]: an empty trie.
  node("TfIdfVectorizer", {"t64"},
       {{"mode", std::string("TF")}, {"min_gram_length", int64_t{3}}, {"max_gram_length", int64_t{3}},
        {"max_skip_count", int64_t{0}}, {"ngram_counts", ints{0}}, {"ngram_indexes", ints{0, 1}},
        {"pool_int64s", ints{3, 4}}});

  EXPECT_EQ(test::strict_c99_errors(m.save(test::scratch_dir(), "sample_ops_strict.onnx")), "");
}

}  // namespace
}  // namespace mlipc::unit_ops_sample_ops_strict_c
