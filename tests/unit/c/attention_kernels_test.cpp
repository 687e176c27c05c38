// The CPU kernels a transformer's attention spends its time in, as the
// generated C runs them, against the reference evaluator bit for bit: the
// rows form of Softmax and LogSoftmax (softmax.c: a vector's width of rows
// side by side, one row per lane, 8 scalar chains without vectors; the max
// over 16 lanes), MatMul with its bias Add fused into the store
// (matmul_packed.c, matmul.c; sums long enough to run in chunks), and LayerNormalization and
// InstanceNormalization (normalize_rows.c), and Transpose in tiles
// (transpose_blocked.c), at every vector width the host can build (as
// packed_widths_test.cpp: -march=native, MLIP_KVEC_SCALAR, and on x86-64
// AVX2 and SSE2), strict C99, and the AArch64 build under qemu-aarch64.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "driver/compile.h"
#include "host/host_model.h"
#include "io/npz.h"
#include "support/process.h"
#include "testlib/c_runner.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/reference.h"
#include "testlib/tensors.h"

namespace mlipc::unit_c_attention_kernels {
namespace {

namespace fs = std::filesystem;
using test::OnnxBuilder;
using test::random_tensor;

// Rows of 4 * 3 * 11 = 132 (16 blocks of 8 and a block of 4; 8 blocks of 16
// and one of 4) and 37 (two 16-lane steps and a tail of 5), of 16 (no tail),
// of 5 (tail only), 69 long rows of 130 (8 transposed blocks of 16 columns
// and a tail of 2; 4 blocks of 16 rows and one of 5), 16 rows of 64 (every
// block whole);
// batch > 1 on a non-last axis (axis 1 of [3, 7, 2]: the strided form beside
// the rows form); and a row set of special values: a +0/-0 tie as the max,
// NaN (skipped by the max, so the row's outputs are NaN), -inf, all -inf
// (NaN), exponents that underflow, and +inf as the max (inf - inf: NaN),
// beside rows with none of these (a row whose sum is NaN is done again with
// the exponential's NaN select: softmax.c).
fs::path model(io::NamedTensors& in) {
  OnnxBuilder b(17);
  auto input = [&](const std::string& name, const Shape& shape, TensorData t) {
    b.input(name, t.dtype(), shape);
    in.emplace_back(name, std::move(t));
  };
  input("a", {4, 3, 11, 37}, random_tensor(DType::Float32, {4, 3, 11, 37}, 1, -6.0, 6.0));
  input("b", {2, 9, 16}, random_tensor(DType::Float32, {2, 9, 16}, 2, -3.0, 3.0));
  input("c", {13, 5}, random_tensor(DType::Float32, {13, 5}, 3, -30.0, 30.0));
  input("d", {3, 7, 2}, random_tensor(DType::Float32, {3, 7, 2}, 4, -2.0, 2.0));
  input("l", {3, 23, 130}, random_tensor(DType::Float32, {3, 23, 130}, 26, -20.0, 20.0));
  input("q", {16, 64}, random_tensor(DType::Float32, {16, 64}, 27, -4.0, 4.0));
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> s = {
      -0.0f, 0.0f, -1.0f, -3.5f, -0.0f, -2.0f, -7.0f, 0.0f, -1.0f, -1.0f, -9.0f, -4.0f, -0.5f, -8.0f, -6.0f, -2.5f, -0.0f,
      0.0f,  -0.0f, -1.0f, -3.5f, -0.0f, -2.0f, -7.0f, 0.0f, -1.0f, -1.0f, -9.0f, -4.0f, -0.5f, -8.0f, -6.0f, -2.5f, 0.0f,
      1.0f,  nan,  2.0f,  -1.0f, 0.5f,  3.0f,  nan,   0.0f, 1.0f,  2.0f,  3.0f,  4.0f,  5.0f,  6.0f,  7.0f,  8.0f,  9.0f,
      -inf,  1.0f, -inf,  2.0f,  -inf,  0.0f,  -inf,  3.0f, -inf,  -inf,  1.0f,  2.0f,  -inf,  -inf,  0.5f,  -inf, 1.5f,
      -inf,  -inf, -inf,  -inf,  -inf,  -inf,  -inf,  -inf, -inf,  -inf,  -inf,  -inf,  -inf,  -inf,  -inf,  -inf, -inf,
      80.0f, -80.0f, 0.0f, 79.0f, -30.0f, 80.0f, -120.0f, 60.0f, 1e-40f, -1e-40f, 70.0f, -70.0f, 80.0f, 5.0f, -5.0f, 1.0f, 2.0f,
      2.0f,  -1.0f, inf,  0.0f,  -3.0f, 1.0f,  -2.0f,  4.0f, 1.0f,  -1.0f,  0.5f,  inf,   -0.5f, 3.0f,  -4.0f, 2.5f, 1.0f};
  input("s", {7, 17}, TensorData::from<float>({7, 17}, s));
  for (const char* x : {"a", "b", "c", "s", "l", "q"}) {
    b.node("Softmax", {x}, {fmt::format("sm_{}", x)}, {{"axis", int64_t{-1}}});
    b.node("LogSoftmax", {x}, {fmt::format("lsm_{}", x)}, {{"axis", int64_t{-1}}});
    b.output(fmt::format("sm_{}", x)).output(fmt::format("lsm_{}", x));
  }
  b.node("Softmax", {"d"}, {"sm_d"}, {{"axis", int64_t{1}}});
  b.output("sm_d");
  // Linear layers whose bias Add joins the MatMul (passes/fuse_matmul_bias):
  // a packed B of 33 columns (the last block 1 wide) over a batch of 2, the
  // bias after the product, then a Relu; a B of 7 columns (matmul.c), the
  // bias [1, 1, 7] before the product; B broadcast over A's batch of 3.
  input("e", {2, 5, 19}, random_tensor(DType::Float32, {2, 5, 19}, 5, -2.0, 2.0));
  b.initializer("w1", random_tensor(DType::Float32, {19, 33}, 6));
  b.initializer("b1", random_tensor(DType::Float32, {33}, 7));
  b.node("MatMul", {"e", "w1"}, {"mm1"});
  b.node("Add", {"mm1", "b1"}, {"lin1"});
  b.node("Relu", {"lin1"}, {"relu1"});
  b.initializer("w2", random_tensor(DType::Float32, {19, 7}, 8));
  b.initializer("b2", random_tensor(DType::Float32, {1, 1, 7}, 9));
  b.node("MatMul", {"e", "w2"}, {"mm2"});
  b.node("Add", {"b2", "mm2"}, {"lin2"});
  input("f", {3, 4, 6}, random_tensor(DType::Float32, {3, 4, 6}, 10, -2.0, 2.0));
  b.initializer("w3", random_tensor(DType::Float32, {1, 6, 20}, 11));
  b.initializer("b3", random_tensor(DType::Float32, {20}, 12, -100.0, 100.0));
  b.node("MatMul", {"f", "w3"}, {"mm3"});
  b.node("Add", {"mm3", "b3"}, {"lin3"});
  b.output("relu1").output("lin2").output("lin3");
  // Sums long enough to run in chunks of p (matmul_packed.c: the panel of
  // B past 1.5 MLIP_VPANEL_BYTES at every vector width, K = 700) over row
  // blocks (M = 300: two): a packed B of 37 columns (the partial last block
  // stored between chunks) with bias, Relu, a scalar scale and a residual;
  // an activation B of 40 columns (two blocks and the tail) over a batch.
  input("ka", {300, 700}, random_tensor(DType::Float32, {300, 700}, 28, -1.0, 1.0));
  b.initializer("kw", random_tensor(DType::Float32, {700, 37}, 29));
  b.initializer("kb", random_tensor(DType::Float32, {37}, 30));
  b.initializer("ks", random_tensor(DType::Float32, {}, 31));
  input("kr", {300, 37}, random_tensor(DType::Float32, {300, 37}, 32));
  b.node("MatMul", {"ka", "kw"}, {"kmm"});
  b.node("Add", {"kmm", "kb"}, {"kbias"});
  b.node("Relu", {"kbias"}, {"krelu"});
  b.node("Mul", {"ks", "krelu"}, {"kscaled"});
  b.node("Add", {"kscaled", "kr"}, {"k_linear"});
  input("kx", {2, 270, 650}, random_tensor(DType::Float32, {2, 270, 650}, 33, -1.0, 1.0));
  input("ky", {2, 650, 40}, random_tensor(DType::Float32, {2, 650, 40}, 34, -1.0, 1.0));
  b.node("MatMul", {"kx", "ky"}, {"k_act"});
  b.output("k_linear").output("k_act");
  // Attention's A x V and Q x K^T with small heads (matmul_packed.c's tail
  // block of 8 columns where the last N % 16 fit, else 16): heads of 24
  // (one block and 8), 21 (5 in the tail) and 27 (11: the 16-column tail),
  // A broadcast over V's batch, K^T a Transpose of K.
  input("av", {3, 1, 29, 33}, random_tensor(DType::Float32, {3, 1, 29, 33}, 35, -1.0, 1.0));
  for (int n : {24, 21, 27}) {
    const std::string v = fmt::format("vv{}", n), k = fmt::format("kk{}", n), kt = fmt::format("kt{}", n);
    input(v, {2, 33, n}, random_tensor(DType::Float32, {2, 33, n}, 36 + n, -2.0, 2.0));
    b.node("MatMul", {"av", v}, {fmt::format("att_v{}", n)});
    input(k, {2, 19, n}, random_tensor(DType::Float32, {2, 19, n}, 37 + n, -2.0, 2.0));
    b.node("Transpose", {k}, {kt}, {{"perm", std::vector<int64_t>{0, 2, 1}}});
    b.node("MatMul", {v, kt}, {fmt::format("att_qk{}", n)});
    b.output(fmt::format("att_v{}", n)).output(fmt::format("att_qk{}", n));
  }
  // Row normalization (normalize_rows.c, rows 8 side by side): LayerNorm
  // over 37 (132 rows) with scale and bias; over the last two axes [3, 10]
  // (5 rows) with a scale of the trailing axis only, no bias, and the mean
  // and inverse deviation outputs; InstanceNormalization (6 rows of 35).
  b.initializer("ln_s", random_tensor(DType::Float32, {37}, 13));
  b.initializer("ln_b", random_tensor(DType::Float32, {37}, 14));
  b.node("LayerNormalization", {"a", "ln_s", "ln_b"}, {"ln_a"}, {{"axis", int64_t{-1}}});
  input("g", {5, 3, 10}, random_tensor(DType::Float32, {5, 3, 10}, 15, -40.0, 40.0));
  b.initializer("ln_s2", random_tensor(DType::Float32, {10}, 16));
  b.node("LayerNormalization", {"g", "ln_s2"}, {"ln_g", "ln_mean", "ln_inv"},
         {{"axis", int64_t{1}}, {"epsilon", 1e-3f}});
  input("h", {2, 3, 5, 7}, random_tensor(DType::Float32, {2, 3, 5, 7}, 17, -3.0, 3.0));
  b.initializer("in_s", random_tensor(DType::Float32, {3}, 18));
  b.initializer("in_b", random_tensor(DType::Float32, {3}, 19));
  b.node("InstanceNormalization", {"h", "in_s", "in_b"}, {"in_h"});
  b.output("ln_a").output("ln_g").output("ln_mean").output("ln_inv").output("in_h");
  // Transposes whose input's contiguous axis is not the output's last
  // (transpose_blocked.c, tiles of one 64-byte line of elements, partial
  // tiles at both ends): K^T of odd sizes; NCHW -> NHWC; four axes whose
  // contiguous one goes first, two outer loops; bytes (tiles of 64) and
  // int64 (tiles of 8); and one too short to tile (the element walk).
  input("ta", {3, 37, 20}, random_tensor(DType::Float32, {3, 37, 20}, 20));
  b.node("Transpose", {"ta"}, {"t_kt"}, {{"perm", std::vector<int64_t>{0, 2, 1}}});
  input("tb", {1, 21, 5, 18}, random_tensor(DType::Float32, {1, 21, 5, 18}, 21));
  b.node("Transpose", {"tb"}, {"t_nhwc"}, {{"perm", std::vector<int64_t>{0, 2, 3, 1}}});
  input("tc", {2, 17, 3, 18}, random_tensor(DType::Float32, {2, 17, 3, 18}, 22));
  b.node("Transpose", {"tc"}, {"t_4d"}, {{"perm", std::vector<int64_t>{3, 0, 2, 1}}});
  input("td", {70, 131}, random_tensor(DType::UInt8, {70, 131}, 23));
  b.node("Transpose", {"td"}, {"t_u8"}, {{"perm", std::vector<int64_t>{1, 0}}});
  input("te", {2, 9, 30}, random_tensor(DType::Int64, {2, 9, 30}, 24));
  b.node("Transpose", {"te"}, {"t_i64"}, {{"perm", std::vector<int64_t>{2, 0, 1}}});
  input("tf", {5, 3, 40}, random_tensor(DType::Float32, {5, 3, 40}, 25));
  b.node("Transpose", {"tf"}, {"t_short"}, {{"perm", std::vector<int64_t>{2, 0, 1}}});
  for (const char* t : {"t_kt", "t_nhwc", "t_4d", "t_u8", "t_i64", "t_short"}) b.output(t);
  return b.save(test::scratch_dir(), "attention_kernels.onnx");
}

// A second model (the first has as many inputs and outputs as the runtime
// takes, MLIP_MAX_IO_TENSORS): Softmax's and LogSoftmax's rows form on
// long rows (4099: groups of vectors, blocks of 16, a tail of 3), whose
// exponentials and sum take one pass without the NaN select and redo a row
// whose sum is NaN (softmax.c, mlip/kvec_softmax.h): random; a NaN among
// the groups; -inf at every 3rd column, the rest spread over [-100, 0]
// (the exponential's zero from -87.69, its subnormal results above); all
// -inf; +inf in the tail; and x - max within [-88, -87]. Rows of 33 and 47
// (one group and a tail at AVX2's width, two blocks at AVX-512's), the
// specials at random places; and attn v MatMuls whose B is read in place
// (below).
fs::path rows_model(io::NamedTensors& in) {
  OnnxBuilder b(17);
  auto input = [&](const std::string& name, const Shape& shape, TensorData t) {
    b.input(name, t.dtype(), shape);
    in.emplace_back(name, std::move(t));
  };
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  {
    const int64_t n = 4099;
    TensorData lr = random_tensor(DType::Float32, {6, n}, 38, -20.0, 20.0);
    float* v = lr.data<float>();
    v[1 * n + 3000] = nan;
    for (int64_t k = 0; k < n; ++k) {
      v[2 * n + k] = k % 3 == 0 ? -inf : -100.0f * static_cast<float>(k) / static_cast<float>(n);
      v[3 * n + k] = -inf;
      v[5 * n + k] = k == 17 ? 0.0f : -87.0f - static_cast<float>(k % 1000) / 1000.0f;
    }
    v[4 * n + n - 2] = inf;
    input("sl", {6, n}, std::move(lr));
    for (int64_t w : {33, 47}) {
      TensorData t = random_tensor(DType::Float32, {9, w}, 39 + static_cast<int>(w), -90.0, 10.0);
      float* tv = t.data<float>();
      const float special[] = {nan, -inf, inf};
      for (int64_t r = 0; r < 6; ++r) tv[r * w + (r * 13 + 5) % w] = special[r % 3];
      input(fmt::format("sw{}", w), {9, w}, std::move(t));
    }
  }
  for (const char* x : {"sl", "sw33", "sw47"}) {
    b.node("Softmax", {x}, {fmt::format("sm_{}", x)}, {{"axis", int64_t{-1}}});
    b.node("LogSoftmax", {x}, {fmt::format("lsm_{}", x)}, {{"axis", int64_t{-1}}});
    b.output(fmt::format("sm_{}", x)).output(fmt::format("lsm_{}", x));
  }
  // attn v with heads of 64 over 200 positions and 41 queries: B read in
  // place, rows of 256 bytes on a quarter of the L1's sets, so its sums
  // run in chunks of K (matmul_packed.c, codegen's l1_set_period); and
  // heads of 48 (rows of 192 bytes, on every set: whole).
  for (int n : {64, 48}) {
    const std::string a = fmt::format("pa{}", n), v = fmt::format("pv{}", n);
    input(a, {2, 41, 200}, random_tensor(DType::Float32, {2, 41, 200}, 50 + n, 0.0, 1.0));
    input(v, {2, 200, n}, random_tensor(DType::Float32, {2, 200, n}, 51 + n, -2.0, 2.0));
    b.node("MatMul", {a, v}, {fmt::format("pav{}", n)});
    b.output(fmt::format("pav{}", n));
  }
  return b.save(test::scratch_dir(), "attention_rows.onnx");
}

// compare() with tolerance 0, and the bits too where neither is NaN (compare
// takes -0 for +0).
void expect_bits(const std::string& name, const TensorData& got, const TensorData& want) {
  EXPECT_EQ(test::compare(got, want, 0.0, 0.0), "") << name;
  if (got.nbytes() != want.nbytes()) return;
  if (want.dtype() != DType::Float32) {  // the Transposes of bytes and int64: every byte
    EXPECT_EQ(std::memcmp(got.raw_as<uint8_t>(), want.raw_as<uint8_t>(), want.nbytes()), 0) << name;
    return;
  }
  const float* g = got.raw_as<float>();
  const float* w = want.raw_as<float>();
  int64_t bad = 0;
  for (int64_t i = 0; i < want.numel(); ++i)
    if (!std::isnan(w[i]) && std::memcmp(&g[i], &w[i], sizeof(float)) != 0) ++bad;
  EXPECT_EQ(bad, 0) << name << ": elements whose bits differ";
}

void expect_outputs(const io::NamedTensors& got, const io::NamedTensors& want) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, t] : want) {
    // name by an init-capture: C++17 lambdas cannot capture a structured binding (clang rejects it)
    auto it = std::find_if(got.begin(), got.end(), [&n = name](const auto& g) { return g.first == n; });
    ASSERT_NE(it, got.end()) << name;
    expect_bits(name, it->second, t);
  }
}

TEST(AttentionKernels, EveryWidthGivesTheReferenceBits) {
  for (auto* make : {&model, &rows_model}) {
  io::NamedTensors in;
  const fs::path onnx = make(in);
  const io::NamedTensors want = test::reference_run(onnx, in);
  driver::CompileResult r = driver::compile_model(onnx, {});
  const fs::path tar = test::scratch_dir() / "attention_kernels.tar";
  driver::write_tarball(r, tar);
  std::vector<std::vector<std::string>> widths = {{}, {"-DMLIP_KVEC_SCALAR"}};
#if defined(__x86_64__)
  widths.push_back({"-mno-avx512f"});                          // AVX2 where -march=native has it
  widths.push_back({"-mno-avx512f", "-mno-avx", "-mno-avx2"});  // SSE2
#endif
  for (const auto& extra : widths) {
    SCOPED_TRACE(fmt::format("extra flags: {}", fmt::join(extra, " ")));
    expect_outputs(test::run_width_variant(tar, in, extra), want);
  }
  EXPECT_EQ(test::strict_c99_errors(onnx), "");
  }
}

bool have(const std::string& tool) {
  return run_process({"sh", "-c", "command -v \"$0\" >/dev/null", tool}, fs::current_path(), 60).exit_code == 0;
}

// The same model built for AArch64 (NEON) and run under qemu-aarch64.
// Skipped (not passed) without the cross compiler or QEMU.
TEST(AttentionKernels, AArch64UnderQemuGivesTheReferenceBits) {
  for (const char* tool : {"aarch64-linux-gnu-gcc", "qemu-aarch64"})
    if (!have(tool)) GTEST_SKIP() << tool << " missing (scripts/setup.sh installs it)";
  for (auto* make : {&model, &rows_model}) {
  io::NamedTensors in;
  const fs::path onnx = make(in);
  const io::NamedTensors want = test::reference_run(onnx, in);
  const fs::path dir = test::scratch_dir() / (make == &model ? "attention_kernels_aarch64" : "attention_rows_aarch64");
  fs::create_directories(dir);
  io::write_npz(dir / "in.npz", in);
  ProcessResult c = run_process({MLIPC_BINARY, "compile", onnx.string(), "--target", "c", "-o", "cross.tar",
                                 "--target-llvm-mtriple=aarch64-linux-gnu", "--target-llvm-mcpu=neoverse-n2",
                                 "--cross-compiler", "aarch64-linux-gnu-gcc"},
                                dir, 1200);
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  ProcessResult r = run_process({MLIPC_BINARY, "run", "cross.tar", "--inputs", "in.npz", "--outputs", "out.npz"}, dir, 1200);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  expect_outputs(io::read_npz(dir / "out.npz"), want);
  }
}

}  // namespace
}  // namespace mlipc::unit_c_attention_kernels
