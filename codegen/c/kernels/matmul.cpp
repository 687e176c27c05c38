// MatMul: nested loops over the (simplified) broadcast batch axes with baked
// matrix offsets for A and B, then one dot product per output element in the
// order of ops::eval_MatMul. Where N >= 16 (a block of 16 columns),
// matmul_packed.c computes the products in register tiles: a constant B is
// packed at compile time into column blocks, an activation B is read in
// place (its last N % 16 columns copied into a zero-padded block in the
// kernel's scratch, K x 16 floats, of which K x 8 where they fit in 8,
// and tiled as the others). A fused bias
// (passes/fuse_matmul_bias, input 2) is added to each finished sum as it
// is stored, before the activation; a fused layer scale (input 3) and
// residual (input 4, passes/fuse_matmul_epilogue) after it, in that order.
#include <memory>
#include <numeric>

#include "c/kernels/kernels.h"
#include "c/kernels/matmul_loops.h"
#include "ops/broadcast.h"
#include "ops/matmul.h"

namespace mlipc::c::kernels {

namespace {

// Where B is the same matrix for every batch step and A's matrices follow
// each other, the batch is more rows of one product: [batch * M, K] x [K, N]
// writes the same outputs, each the same sum.
void fold_batch_into_rows(ops::MatMulDims& d) {
  const ops::Loops l = ops::simplify_loops(d.batch, {d.a_batch_stride, d.b_batch_stride});
  if (l.dims.size() != 1 || l.strides[1][0] != 0 || l.strides[0][0] != d.m * d.k) return;
  d.m *= l.dims[0];
  d.batch.clear();
  d.a_batch_stride.clear();
  d.b_batch_stride.clear();
}

// B' as [matrix][N / 16][K][16]: the 16 columns of a block side by side for
// each p, zero past N.
std::shared_ptr<TensorData> pack_b(const TensorData& b, int64_t k, int64_t n, int64_t nblk) {
  const int64_t mats = numel(b.shape()) / (k * n);
  auto t = std::make_shared<TensorData>(DType::Float32, Shape{mats * nblk * k * 16});
  const float* s = b.data<float>();
  float* o = t->data<float>();
  for (int64_t q = 0; q < mats; ++q)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) o[((q * nblk + j / 16) * k + p) * 16 + j % 16] = s[(q * k + p) * n + j];
  return t;
}

// An activation B read in place with rows of `stride` bytes: a panel's
// lines of B fall, row after row, on the L1 sets (line index mod 64) that
// advance by stride / 64 lines, so where that is a multiple of 64 bytes
// they cycle through 64 / g sets only, g = gcd(stride / 64, 64): the
// template's KC rule counts a panel of NJ lines a row as NJ g / min(NJ, g)
// lines (attention's attn v, B [197, 64] a head, rows of 256 bytes, g = 4:
// panels of 197 rows of 2 lines on half the sets, thrashing the L1, 843 us
// against onnxruntime's 638 for the ViT-B block; 636 chunked so). 1 where
// the rows are not whole lines (they spread over every set).
int64_t l1_set_period(int64_t stride) {
  return stride % 64 != 0 ? 1 : std::gcd(stride / 64 % 64, int64_t{64});  // gcd(0, 64) = 64
}

}  // namespace

void prepare_MatMul(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  expect_float(g, n, 1);
  ops::MatMulDims d = ops::matmul_dims(g.value(n.inputs[0]).shape, g.value(n.inputs[1]).shape);
  const bool bias = n.has_input(2), scale = n.has_input(3), residual = n.has_input(4);
  spec.set_flag("bias", bias);
  spec.set_flag("scale", scale);
  spec.set_flag("residual", residual);
  spec.set_flag("post_act", scale || residual);
  // The epilogue's operands come after A in the signature, so a packed B
  // stays after the args.
  std::vector<int> args = {0};
  for (int k = 2; k <= 4; ++k)
    if (n.has_input(static_cast<size_t>(k))) args.push_back(k);
  spec.args = args;
  spec.args.push_back(1);
  // Below one block of 16 columns the tile would mostly compute padding
  // (and a packed B would take up to 16 times its bytes).
  if (d.n < 16 || d.m == 0 || d.k == 0) {
    spec.template_name = "matmul.c";
    spec.includes.push_back("mlip/kfma.h");
    set_matmul_loops(spec, d);
    return;
  }
  const Value& bv = g.value(n.inputs[1]);
  const bool packed = bv.is_constant();
  fold_batch_into_rows(d);
  spec.template_name = "matmul_packed.c";
  spec.includes.push_back("mlip/kvec.h");
  spec.set_flag("packed", packed);
  if (packed) {
    const int64_t nblk = (d.n + 15) / 16;
    // The batch strides of B count whole matrices: rescale them to packed ones.
    for (int64_t& s : d.b_batch_stride) s = s / (d.k * d.n) * (nblk * d.k * 16);
    spec.packed.push_back(pack_b(*bv.constant, d.k, d.n, nblk));
    spec.args = args;
    spec.set("NBLK", nblk);
    spec.set("BR", int64_t{16});
    spec.set("BB", c_int(d.k * 16));
    spec.set_flag("tail", false);
    spec.set("BSETG", int64_t{1});
  } else {
    spec.set("NBLK", d.n / 16);
    spec.set("BR", c_int(d.n));
    spec.set("BSETG", l1_set_period(d.n * static_cast<int64_t>(sizeof(float))));
    spec.set("BB", int64_t{16});
    spec.set_flag("tail", d.n % 16 != 0);
    spec.set("NT", c_int(d.n / 16 * 16));
    if (d.n % 16 != 0) spec.scratch_bytes = static_cast<size_t>(d.k) * 16 * sizeof(float);
  }
  set_matmul_loops(spec, d);
}

}  // namespace mlipc::c::kernels
