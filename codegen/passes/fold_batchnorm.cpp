#include <cmath>

#include "passes/passes.h"

namespace mlipc::passes {

namespace {

struct BnParams {
  std::vector<float> scale, shift;  // y = x * scale + shift, per channel
};

bool constant_float(const Graph& g, ValueId v) {
  return v != kNoValue && g.value(v).is_constant() && g.value(v).dtype == DType::Float32;
}

BnParams bn_params(const Graph& g, const Node& bn) {
  const float eps = bn.attrs.get_float("epsilon", 1e-5f);
  const float* gamma = g.value(bn.inputs[1]).constant->data<float>();
  const float* beta = g.value(bn.inputs[2]).constant->data<float>();
  const float* mean = g.value(bn.inputs[3]).constant->data<float>();
  const float* var = g.value(bn.inputs[4]).constant->data<float>();
  const int64_t c = g.value(bn.inputs[1]).constant->numel();
  BnParams p;
  for (int64_t i = 0; i < c; ++i) {
    float s = gamma[i] / std::sqrt(var[i] + eps);
    p.scale.push_back(s);
    p.shift.push_back(beta[i] - mean[i] * s);
  }
  return p;
}

// Conv: W'[m,...] = W[m,...] * s[m]; b'[m] = b[m] * s[m] + shift[m].
void fold_into_conv(Graph& g, Node& conv, const BnParams& p) {
  const TensorData& w = *g.value(conv.inputs[1]).constant;
  TensorData nw = w;
  const int64_t m = w.shape()[0], per = w.numel() / m;
  for (int64_t o = 0; o < m; ++o)
    for (int64_t k = 0; k < per; ++k) nw.data<float>()[o * per + k] *= p.scale[o];
  TensorData nb(DType::Float32, {m});
  const float* b = conv.has_input(2) ? g.value(conv.inputs[2]).constant->data<float>() : nullptr;
  for (int64_t o = 0; o < m; ++o) nb.data<float>()[o] = (b ? b[o] : 0.0f) * p.scale[o] + p.shift[o];
  conv.inputs[1] = g.add_constant(conv.name + "_weight_bn", std::move(nw));
  conv.inputs.resize(3, kNoValue);
  conv.inputs[2] = g.add_constant(conv.name + "_bias_bn", std::move(nb));
}

// ConvTranspose: W is [C, M/group, k...]; W[c, j, ...] feeds output channel
// m = (c / (C/group)) * (M/group) + j, so W'[c, j, ...] = W[c, j, ...] * s[m];
// b'[m] = b[m] * s[m] + shift[m].
void fold_into_conv_transpose(Graph& g, Node& ct, const BnParams& p) {
  const TensorData& w = *g.value(ct.inputs[1]).constant;
  TensorData nw = w;
  const int64_t c = w.shape()[0], ocg = w.shape()[1], per = w.numel() / (c * ocg);
  const int64_t group = ct.attrs.get_int("group", 1), cg = c / group, m = ocg * group;
  for (int64_t i = 0; i < c; ++i)
    for (int64_t j = 0; j < ocg; ++j)
      for (int64_t k = 0; k < per; ++k) nw.data<float>()[(i * ocg + j) * per + k] *= p.scale[(i / cg) * ocg + j];
  TensorData nb(DType::Float32, {m});
  const float* b = ct.has_input(2) ? g.value(ct.inputs[2]).constant->data<float>() : nullptr;
  for (int64_t o = 0; o < m; ++o) nb.data<float>()[o] = (b ? b[o] : 0.0f) * p.scale[o] + p.shift[o];
  ct.inputs[1] = g.add_constant(ct.name + "_weight_bn", std::move(nw));
  ct.inputs.resize(3, kNoValue);
  ct.inputs[2] = g.add_constant(ct.name + "_bias_bn", std::move(nb));
}

// Gemm: Y = alpha*A*B + beta*C; BN(Y) = alpha*A*(B*s) + (beta*C*s + shift).
void fold_into_gemm(Graph& g, Node& gemm, const BnParams& p) {
  const bool trans_b = gemm.attrs.get_int("transB", 0) != 0;
  const TensorData& b = *g.value(gemm.inputs[1]).constant;
  TensorData nb = b;
  const int64_t rows = b.shape()[0], cols = b.shape()[1];
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) nb.data<float>()[r * cols + c] *= p.scale[trans_b ? r : c];
  const int64_t n = static_cast<int64_t>(p.scale.size());
  const float beta = gemm.attrs.get_float("beta", 1.0f);
  // C broadcasts to [M, N]; keep it [N] unless it varies along M.
  Shape cshape = {n};
  std::vector<float> cvals(static_cast<size_t>(n), 0.0f);
  if (gemm.has_input(2)) {
    const TensorData& c = *g.value(gemm.inputs[2]).constant;
    if (c.rank() == 2 && c.shape()[0] > 1) {
      cshape = {c.shape()[0], n};
      cvals.assign(static_cast<size_t>(c.shape()[0] * n), 0.0f);
    }
    std::vector<int64_t> cs = strides_of(c.shape());
    for (int64_t i = 0; i < numel(cshape); ++i) {
      int64_t row = i / n, col = i % n;
      int64_t off = 0;
      if (c.rank() >= 1) off += (c.shape()[c.rank() - 1] == 1 ? 0 : col) * cs[c.rank() - 1];
      if (c.rank() == 2) off += (c.shape()[0] == 1 ? 0 : row) * cs[0];
      cvals[i] = c.data<float>()[off];
    }
  }
  TensorData nc(DType::Float32, cshape);
  for (int64_t i = 0; i < numel(cshape); ++i)
    nc.data<float>()[i] = beta * cvals[i] * p.scale[i % n] + p.shift[i % n];
  gemm.inputs[1] = g.add_constant(gemm.name + "_weight_bn", std::move(nb));
  gemm.inputs.resize(3, kNoValue);
  gemm.inputs[2] = g.add_constant(gemm.name + "_bias_bn", std::move(nc));
  gemm.attrs.set("beta", 1.0f);
}

bool foldable(const Graph& g, const Node& p, const Node& bn) {
  if (p.attrs.has("activation")) return false;
  for (int i = 1; i <= 4; ++i)
    if (!constant_float(g, bn.inputs[i])) return false;
  if (!constant_float(g, p.inputs[1])) return false;
  if (p.has_input(2) && !constant_float(g, p.inputs[2])) return false;
  if (g.value(p.outputs[0]).dtype != DType::Float32) return false;
  const int64_t channels = g.value(bn.inputs[1]).constant->numel();
  if (p.op == "Conv") return g.value(p.inputs[1]).shape[0] == channels;
  if (p.op == "ConvTranspose") {
    const Shape& w = g.value(p.inputs[1]).shape;
    const int64_t group = p.attrs.get_int("group", 1);
    return w.size() >= 3 && group >= 1 && w[0] % group == 0 && w[1] * group == channels;
  }
  // Gemm output is [M, N]; BatchNorm's channel axis is 1, so it scales columns.
  return p.op == "Gemm" && g.value(p.outputs[0]).shape.size() == 2 && g.value(p.outputs[0]).shape[1] == channels &&
         g.value(p.inputs[1]).shape.size() == 2;
}

}  // namespace

void fold_batchnorm(Graph& g) {
  auto consumers = g.consumers();
  auto producers = g.producers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& bn = g.nodes[i];
    if (bn.op != "BatchNormalization" || bn.outputs.size() != 1) continue;
    ValueId x = bn.inputs[0];
    int pi = producers[x];
    if (pi < 0 || dead[pi] || consumers[x].size() != 1 || g.is_graph_output(x)) continue;
    Node& p = g.nodes[pi];
    if ((p.op != "Conv" && p.op != "ConvTranspose" && p.op != "Gemm") || p.outputs.size() != 1 ||
        !foldable(g, p, bn))
      continue;
    BnParams params = bn_params(g, bn);
    if (p.op == "Conv") fold_into_conv(g, p, params);
    else if (p.op == "ConvTranspose") fold_into_conv_transpose(g, p, params);
    else fold_into_gemm(g, p, params);
    p.outputs[0] = bn.outputs[0];
    p.origins.insert(p.origins.end(), bn.origins.begin(), bn.origins.end());
    dead[i] = true;
  }
  g.erase_nodes(dead);
}

}  // namespace mlipc::passes
