// TfIdfVectorizer's attributes, checked once and read by the shape rule, the
// reference and the C kernel (ops/tfidf.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attrs.h"

namespace mlipc::ops {

struct TfIdfPool {
  enum Mode { TF, IDF, TFIDF } mode = TF;
  int64_t min_len = 1, max_len = 1, max_skip = 0;
  // The pool's n-grams whose length lies in [min_len, max_len], in pool
  // order, each with its output column (ngram_indexes); an n-gram repeated
  // in the pool counts in the column of its last occurrence.
  std::vector<std::vector<int64_t>> grams;
  std::vector<int64_t> columns;
  int64_t width = 0;            // output columns: max(ngram_indexes) + 1
  std::vector<float> weights;   // per output column, or empty
};

// The largest skip distance that can fit an n-gram in a row of L tokens.
inline int64_t tfidf_max_distance(const TfIdfPool& p, int64_t L) {
  const int64_t fit = L > 2 ? L - 1 : 1;
  return p.max_skip + 1 < fit ? p.max_skip + 1 : fit;
}

// Throws on pool_strings (strings are out of scope) and on inconsistent
// attributes.
TfIdfPool tfidf_pool(const Attrs& attrs);

}  // namespace mlipc::ops
