// Gemm: one dot product per output element over baked dimensions; A and B
// are read through their (possibly transposed) strides, C through broadcast
// strides (0 on broadcast axes). Same order as ops::eval_Gemm. A constant B
// is packed at compile time into the column blocks gemm_packed.c reads.
#include <memory>

#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/broadcast.h"

namespace mlipc::c::kernels {

void prepare_Gemm(const Graph& g, const Node& n, KernelSpec& spec) {
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (n.has_input(i)) expect_float(g, n, static_cast<int>(i));
  const bool ta = n.attrs.get_int("transA", 0) != 0, tb = n.attrs.get_int("transB", 0) != 0;
  const Shape& a = g.value(n.inputs[0]).shape;
  const Shape& out = g.value(n.outputs[0]).shape;
  const int64_t m = out[0], nn = out[1], k = ta ? a[0] : a[1];
  const Value& bv = g.value(n.inputs[1]);
  const bool packed = bv.is_constant() && m > 0 && nn > 0;
  spec.template_name = packed ? "gemm_packed.c" : "gemm.c";
  spec.includes.push_back(packed ? "mlip/kvec.h" : "mlip/kfma.h");
  spec.set("M", c_int(m));
  spec.set("N", c_int(nn));
  spec.set("K", c_int(k));
  // Element index expressions in terms of the loop counters i (row), j (column), p (inner).
  spec.set("a_idx", ta ? fmt::format("p * {} + i", c_int(m)) : fmt::format("i * {} + p", c_int(k)));
  spec.set("b_idx", tb ? fmt::format("j * {} + p", c_int(k)) : fmt::format("p * {} + j", c_int(nn)));
  spec.set("alpha", c_float(n.attrs.get_float("alpha", 1.0f)));
  spec.args = {0, 1};
  if (packed) {
    // B' as [N / 16][K][16]: the 16 columns of a block side by side for each p.
    const int64_t nblk = (nn + 15) / 16;
    auto t = std::make_shared<TensorData>(DType::Float32, Shape{nblk * k * 16});
    const float* b = bv.constant->data<float>();
    for (int64_t j = 0; j < nn; ++j)
      for (int64_t p = 0; p < k; ++p) t->data<float>()[((j / 16) * k + p) * 16 + j % 16] = b[tb ? j * k + p : p * nn + j];
    spec.set("NBLK", nblk);
    spec.set("AR", ta ? 1 : k);
    spec.set("AP", ta ? m : 1);
    spec.set_flag("has_alpha", true);
    spec.packed.push_back(t);
    spec.args = {0};
  }
  const bool has_c = n.has_input(2);
  spec.set_flag("has_c", has_c);
  if (has_c) {
    const std::vector<int64_t> cs = ops::broadcast_strides(g.value(n.inputs[2]).shape, out);
    std::string idx;
    auto term = [&](const char* var, int64_t stride) {
      if (stride == 0) return;
      idx += (idx.empty() ? "" : " + ") + (stride == 1 ? std::string(var) : fmt::format("{} * {}", var, c_int(stride)));
    };
    term("i", cs[0]);
    term("j", cs[1]);
    spec.set("CI", cs[0]);
    spec.set("CJ", cs[1]);
    spec.set("c_idx", idx.empty() ? "0" : idx);
    spec.set("beta", c_float(n.attrs.get_float("beta", 1.0f)));
    spec.args.push_back(2);
  }
}

}  // namespace mlipc::c::kernels
