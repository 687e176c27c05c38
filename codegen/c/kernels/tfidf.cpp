// TfIdfVectorizer: the pool (ops::tfidf_pool) baked as a trie in tables
// (templates/kernels/tfidf.c); the tokens are read at run time. Counting is
// integer-exact, so the kernel gives the reference's bits.
#include <algorithm>
#include <map>

#include "c/kernels/kernels.h"
#include "ops/tfidf.h"

namespace mlipc::c::kernels {

namespace {

struct TrieNode {
  std::map<int64_t, size_t> children;  // key -> node
  int64_t column = -1;
};

}  // namespace

void prepare_TfIdfVectorizer(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype(g, n, 0, {DType::Int32, DType::Int64});
  const ops::TfIdfPool p = ops::tfidf_pool(n.attrs);
  const Shape& x = g.value(n.inputs[0]).shape;
  const int64_t L = x.back(), rows = x.size() == 2 ? x[0] : 1;
  std::vector<TrieNode> trie(1);
  int64_t longest = 0;
  for (size_t i = 0; i < p.grams.size(); ++i) {
    size_t node = 0;
    for (int64_t key : p.grams[i]) {
      auto it = trie[node].children.find(key);
      if (it == trie[node].children.end()) {
        trie.emplace_back();
        it = trie[node].children.emplace(key, trie.size() - 1).first;
      }
      node = it->second;
    }
    trie[node].column = p.columns[i];
    longest = std::max<int64_t>(longest, static_cast<int64_t>(p.grams[i].size()));
  }
  // Breadth-first numbering: each node's children are consecutive.
  std::vector<size_t> order = {0};
  std::vector<int64_t> keys, next, first, col;
  for (size_t k = 0; k < order.size(); ++k) {
    const TrieNode& t = trie[order[k]];
    first.push_back(static_cast<int64_t>(keys.size()));
    col.push_back(t.column);
    for (const auto& [key, child] : t.children) {
      keys.push_back(key);
      next.push_back(static_cast<int64_t>(order.size()));
      order.push_back(child);
    }
  }
  first.push_back(static_cast<int64_t>(keys.size()));
  const size_t nkeys = keys.size();
  if (keys.empty()) {  // C has no empty arrays
    keys.push_back(0);
    next.push_back(0);
  }
  const auto lit = [](int64_t v) { return c_int(v); };
  spec.template_name = "tfidf.c";
  spec.set("mode", p.mode == ops::TfIdfPool::TF ? "TF" : (p.mode == ops::TfIdfPool::IDF ? "IDF" : "TFIDF"));
  spec.set("ROWS", rows);
  spec.set("L", L);
  spec.set("K", p.width);
  spec.set("MIN", p.min_len);
  spec.set("MIN2", std::max<int64_t>(p.min_len, 2));
  spec.set("MAXN", std::min(p.max_len, longest));
  spec.set("DMAX", ops::tfidf_max_distance(p, L));
  spec.set("nkeys", static_cast<int64_t>(std::max<size_t>(nkeys, 1)));
  spec.set("nfirst", static_cast<int64_t>(first.size()));
  spec.set("nnodes", static_cast<int64_t>(col.size()));
  spec.set("keys", c_initializer(keys, lit));
  spec.set("next", c_initializer(next, lit));
  spec.set("first", c_initializer(first, lit));
  spec.set("col", c_initializer(col, lit));
  const bool weighted = !p.weights.empty() && p.mode != ops::TfIdfPool::TF;  // TF ignores weights
  spec.set_flag("weighted", weighted);
  if (weighted) {
    const std::vector<float> w(p.weights.begin(), p.weights.begin() + p.width);
    spec.set("weights", c_initializer(w, [](float v) { return c_float(v); }));
  }
  spec.set_flag("idf", p.mode == ops::TfIdfPool::IDF);
  spec.set_flag("tfidf_weighted", p.mode == ops::TfIdfPool::TFIDF && weighted);
  spec.args = {0};
}

}  // namespace mlipc::c::kernels
