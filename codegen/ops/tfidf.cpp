// TfIdfVectorizer (opset 9) on integer tokens: for each row of X ([L] or
// [B, L], int32 or int64) count the pool's n-grams, then weigh the counts.
// As the ONNX reference implementation (and onnxruntime) define it:
// - the pool is pool_int64s cut by ngram_counts (the start of the 1-grams,
//   2-grams, ...); n-gram k of the pool (in pool order, all lengths) goes to
//   output column ngram_indexes[k]; only lengths in [min_gram_length,
//   max_gram_length] are counted;
// - an n-gram at start i with skip distance d (1 to max_skip_count + 1) is
//   x[i], x[i + d], ..., x[i + (n - 1) d] inside the row; 1-grams are
//   counted once (with d = 1 only);
// - TF: the count; IDF: weights[column] (1 without weights) where the count
//   is positive, else 0; TFIDF: weights[column] * count (the count without
//   weights). weights are indexed by output column, as both implementations
//   do.
// Output float32 [width] or [B, width]. pool_strings (string tokens) is
// refused: strings are out of scope.
//
// The reference counts with a map from n-gram to column; the C kernel
// (templates/kernels/tfidf.c) walks a trie of the pool baked into tables.
#include "ops/tfidf.h"

#include <map>

#include <fmt/format.h>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

TfIdfPool tfidf_pool(const Attrs& a) {
  TfIdfPool p;
  if (a.has("pool_strings"))
    fail("pool_strings (string n-grams) is not supported: strings are out of scope; only pool_int64s on int32 or "
         "int64 input");
  if (!a.has("pool_int64s")) fail("attribute pool_int64s is required");
  const std::string mode = a.get_string("mode", "");
  if (mode == "TF") p.mode = TfIdfPool::TF;
  else if (mode == "IDF") p.mode = TfIdfPool::IDF;
  else if (mode == "TFIDF") p.mode = TfIdfPool::TFIDF;
  else fail("mode '{}' is not supported (supported: TF, IDF, TFIDF)", mode);
  p.min_len = a.get_int("min_gram_length", -1);
  p.max_len = a.get_int("max_gram_length", -1);
  p.max_skip = a.get_int("max_skip_count", -1);
  if (p.min_len < 1 || p.max_len < p.min_len || p.max_skip < 0)
    fail("min_gram_length {}, max_gram_length {} and max_skip_count {} must satisfy 1 <= min <= max and skip >= 0",
         p.min_len, p.max_len, p.max_skip);
  const std::vector<int64_t> pool = a.get_ints("pool_int64s");
  const std::vector<int64_t> counts = a.get_ints("ngram_counts", {});
  const std::vector<int64_t> indexes = a.get_ints("ngram_indexes", {});
  if (counts.empty()) fail("attribute ngram_counts is required");
  const int64_t total = static_cast<int64_t>(pool.size());
  std::map<std::vector<int64_t>, size_t> seen;  // n-gram -> its slot in grams
  int64_t k = 0;                                // n-gram number in the pool
  for (size_t i = 0; i < counts.size(); ++i) {
    const int64_t n = static_cast<int64_t>(i) + 1;
    const int64_t begin = counts[i], end = i + 1 < counts.size() ? counts[i + 1] : total;
    if (begin < 0 || end < begin || end > total)
      fail("ngram_counts [{}] must be non-decreasing starts within pool_int64s' {} entries", fmt::join(counts, ","),
           total);
    if ((end - begin) % n != 0)
      fail("the {}-grams of pool_int64s (entries {} to {}) are not a whole number of {}-grams", n, begin, end, n);
    for (int64_t s = begin; s < end; s += n, ++k) {
      if (k >= static_cast<int64_t>(indexes.size()))
        fail("ngram_indexes has {} entries; the pool holds more n-grams", indexes.size());
      const int64_t column = indexes[static_cast<size_t>(k)];
      if (n < p.min_len || n > p.max_len) continue;
      std::vector<int64_t> gram(pool.begin() + s, pool.begin() + s + n);
      auto [it, fresh] = seen.emplace(gram, p.grams.size());
      if (fresh) {
        p.grams.push_back(std::move(gram));
        p.columns.push_back(column);
      } else {
        p.columns[it->second] = column;
      }
    }
  }
  if (k != static_cast<int64_t>(indexes.size()))
    fail("ngram_indexes has {} entries for the pool's {} n-grams", indexes.size(), k);
  for (int64_t c : indexes) {
    if (c < 0 || c >= (int64_t{1} << 24)) fail("ngram_indexes value {} is outside [0, 2^24)", c);
    p.width = std::max(p.width, c + 1);
  }
  p.weights = a.get_floats("weights", {});
  if (!p.weights.empty() && static_cast<int64_t>(p.weights.size()) < p.width)
    fail("weights has {} entries for {} output columns", p.weights.size(), p.width);
  return p;
}

void infer_TfIdfVectorizer(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  ctx.expect_dtype(0, {DType::Int32, DType::Int64});
  const TfIdfPool p = tfidf_pool(ctx.attrs());
  const Shape& x = ctx.in_shape(0);
  if (x.size() == 1) ctx.set_output(0, DType::Float32, {p.width});
  else if (x.size() == 2) ctx.set_output(0, DType::Float32, {x[0], p.width});
  else fail("input X has shape {}; it must be [C] or [N, C]", shape_str(x));
}

void eval_TfIdfVectorizer(EvalContext& ctx) {
  const TfIdfPool p = tfidf_pool(ctx.attrs());
  std::map<std::vector<int64_t>, int64_t> column;
  for (size_t i = 0; i < p.grams.size(); ++i) column[p.grams[i]] = p.columns[i];
  const TensorData& xt = ctx.in(0);
  const std::vector<int64_t> x = xt.as_int64();
  const int64_t L = xt.shape().back(), rows = xt.shape().size() == 2 ? xt.shape()[0] : 1;
  std::vector<int64_t> freq(static_cast<size_t>(rows * p.width), 0);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t* row = x.data() + r * L;
    // A distance of L or more fits no n-gram longer than 1.
    for (int64_t d = 1; d <= tfidf_max_distance(p, L); ++d) {
      const int64_t lo = d == 1 ? p.min_len : std::max<int64_t>(p.min_len, 2);
      for (int64_t i = 0; i < L; ++i) {
        std::vector<int64_t> gram;
        for (int64_t n = 1; n <= p.max_len && i + (n - 1) * d < L; ++n) {
          gram.push_back(row[i + (n - 1) * d]);
          if (n < lo) continue;
          auto it = column.find(gram);
          if (it != column.end()) ++freq[static_cast<size_t>(r * p.width + it->second)];
        }
      }
    }
  }
  float* y = ctx.outputs[0].raw_as<float>();
  for (size_t i = 0; i < freq.size(); ++i) {
    const float f = static_cast<float>(freq[i]);
    const size_t c = i % static_cast<size_t>(p.width);
    const bool weighted = !p.weights.empty();
    switch (p.mode) {
      case TfIdfPool::TF: y[i] = f; break;
      case TfIdfPool::IDF: y[i] = f > 0.0f ? (weighted ? p.weights[c] : 1.0f) : 0.0f; break;
      case TfIdfPool::TFIDF: y[i] = weighted ? p.weights[c] * f : f; break;
    }
  }
}

}  // namespace mlipc::ops
