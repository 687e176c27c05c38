// The packed recurrent, ConvTranspose and MatMul kernels (recurrent_packed.c,
// conv_transpose_phases.c and _packed.c, matmul_packed.c) and conv_tiled.c's fused MaxPool
// at every vector width the host can build, not only mlipc run's
// -march=native: width 1 (MLIP_KVEC_SCALAR, where a block
// of 16 rows is 16 scalar accumulators and the tile sizes bottom out at
// one block) and, on x86-64, AVX2 (8 lanes, 16 registers) and SSE2 (4),
// and the convolutions' fused multiply-adds in mlip/kfma.h's portable forms:
// each gives the same bits as mlipc run's build, which gives the reference
// evaluator's (tolerance 0; the fused SiLU and sigmoid: below), and compiles as
// strict C99; and the AArch64 build (NEON) under qemu-aarch64 gives them too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

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
#include "testlib/text_query.h"

namespace mlipc::unit_c_packed_widths {
namespace {

namespace fs = std::filesystem;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;

// LSTM (bidirectional, initial states, peepholes, 33 units: three blocks),
// GRU (linear_before_reset 0, 145 units: R's five groups of 2), an LSTM of
// one sequence (81 units: R's groups of 4 and 2), RNN, and
// ConvTranspose with channels in lanes by stride phases (19 per group; 70
// from a 1x1 input) and positions in lanes (3 per group), and two MatMuls
// (constant and activation B).
fs::path model(io::NamedTensors& in) {
  OnnxBuilder b(14);
  const int64_t T = 7, B = 2, I = 5;
  b.input("x", DType::Float32, {T, B, I});
  in.emplace_back("x", random_tensor(DType::Float32, {T, B, I}, 1, -2.0, 2.0));
  auto rec = [&](const std::string& op, int64_t g, int64_t h, int64_t dirs, bool states, const std::string& y,
                 std::vector<std::pair<std::string, AttrValue>> attrs) {
    // torch's scale, +-1/sqrt(h): a recurrence that does not amplify the
    // float functions' differences (recurrent_test.cpp).
    const double k = 1.0 / std::sqrt(static_cast<double>(h));
    b.initializer(y + "_w", random_tensor(DType::Float32, {dirs, g * h, I}, 2, -k, k));
    b.initializer(y + "_r", random_tensor(DType::Float32, {dirs, g * h, h}, 3, -k, k));
    b.initializer(y + "_b", random_tensor(DType::Float32, {dirs, 2 * g * h}, 4));
    std::vector<std::string> ins = {"x", y + "_w", y + "_r", y + "_b"};
    if (states) {
      b.initializer(y + "_h0", random_tensor(DType::Float32, {dirs, B, h}, 5));
      b.initializer(y + "_c0", random_tensor(DType::Float32, {dirs, B, h}, 6));
      b.initializer(y + "_p", random_tensor(DType::Float32, {dirs, 3 * h}, 7));
      ins.insert(ins.end(), {"", y + "_h0", y + "_c0", y + "_p"});
    }
    attrs.push_back({"hidden_size", h});
    b.node(op, ins, {y, y + "_h"}, attrs);
    b.output(y).output(y + "_h");
  };
  rec("LSTM", 4, 33, 2, true, "lstm", {{"direction", std::string("bidirectional")}});
  rec("GRU", 3, 145, 1, false, "gru", {});
  rec("RNN", 1, 17, 1, false, "rnn", {{"direction", std::string("reverse")}});
  {
    // 389 inputs: more than a slice of the projection's chain at every width.
    const double k = 1.0 / std::sqrt(17.0);
    b.input("xw", DType::Float32, {3, 1, 389});
    in.emplace_back("xw", random_tensor(DType::Float32, {3, 1, 389}, 8, -2.0, 2.0));
    b.initializer("wide_w", random_tensor(DType::Float32, {1, 51, 389}, 9, -k, k));
    b.initializer("wide_r", random_tensor(DType::Float32, {1, 51, 17}, 10, -k, k));
    b.initializer("wide_b", random_tensor(DType::Float32, {1, 102}, 11));
    b.node("GRU", {"xw", "wide_w", "wide_r", "wide_b"}, {"gru_wide"},
           {{"hidden_size", int64_t{17}}, {"linear_before_reset", int64_t{1}}});
    b.output("gru_wide");
    // One sequence (R in groups of 4 blocks, where a batch's go by 2):
    // 81 units, six blocks, a group of 4 and one of 2, both directions.
    const double k81 = 1.0 / 9.0;
    b.initializer("seq1_w", random_tensor(DType::Float32, {2, 324, 389}, 12, -k81, k81));
    b.initializer("seq1_r", random_tensor(DType::Float32, {2, 324, 81}, 13, -k81, k81));
    b.node("LSTM", {"xw", "seq1_w", "seq1_r"}, {"lstm_seq1"},
           {{"hidden_size", int64_t{81}}, {"direction", std::string("bidirectional")}});
    b.output("lstm_seq1");
  }
  b.input("img", DType::Float32, {1, 6, 5, 7});
  in.emplace_back("img", random_tensor(DType::Float32, {1, 6, 5, 7}, 8));
  b.initializer("ct_w", random_tensor(DType::Float32, {6, 19, 3, 4}, 9));
  b.initializer("ct_b", random_tensor(DType::Float32, {38}, 10));
  b.node("ConvTranspose", {"img", "ct_w", "ct_b"}, {"ct"},
         {{"group", int64_t{2}}, {"strides", ints{2, 3}}, {"pads", ints{1, 0, 0, 2}}, {"output_padding", ints{1, 0}}});
  b.initializer("cp_w", random_tensor(DType::Float32, {6, 3, 4, 4}, 11));
  b.node("ConvTranspose", {"img", "cp_w"}, {"cp"}, {{"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}});
  // The stride-phase kernel's one-position tile: a 1x1 input (each output
  // one tap), 70 channels (5 blocks: a group of 4 and a partial one).
  b.input("lat", DType::Float32, {1, 9, 1, 1});
  in.emplace_back("lat", random_tensor(DType::Float32, {1, 9, 1, 1}, 51));
  b.initializer("cl_w", random_tensor(DType::Float32, {9, 70, 3, 4}, 52));
  b.initializer("cl_b", random_tensor(DType::Float32, {70}, 53));
  b.node("ConvTranspose", {"lat", "cl_w", "cl_b"}, {"clat"}, {{"strides", ints{2, 2}}, {"output_padding", ints{1, 0}}});
  b.output("ct").output("cp").output("clat");
  // LayerNormalization over channels (layer_norm_cf.c, a Transpose fused
  // before it and one after: passes/fuse_transpose_norm), from the
  // opset-13 decomposition: 99 positions (strips of 64 and 16, three
  // alone), 19 channels (whole vectors and the rest); written channels-first
  // and, through a vector transpose, channels-last.
  b.input("nimg", DType::Float32, {1, 19, 9, 11});
  in.emplace_back("nimg", random_tensor(DType::Float32, {1, 19, 9, 11}, 54, -3.0, 3.0));
  b.node("Transpose", {"nimg"}, {"nt"}, {{"perm", ints{0, 2, 3, 1}}});
  b.initializer("n_eps", TensorData::from<float>({}, {1e-5f}));
  b.initializer("n_two", TensorData::from<float>({}, {2.0f}));
  b.initializer("n_g", random_tensor(DType::Float32, {19}, 55, 0.5, 1.5));
  b.initializer("n_b", random_tensor(DType::Float32, {19}, 56));
  test::layer_norm_decomposition(b, "nt", "n_", "n_eps", "n_two", "n_g", "n_b", "norm_cl");
  b.node("Transpose", {"nimg"}, {"nt2"}, {{"perm", ints{0, 2, 3, 1}}});
  const std::string n2 = test::layer_norm_decomposition(b, "nt2", "n2_", "n_eps", "");  // x * x, no affine
  b.node("Transpose", {n2}, {"norm_cf"}, {{"perm", ints{0, 3, 1, 2}}});
  b.output("norm_cl").output("norm_cf");
  // MatMul (matmul_packed.c): constant B of 33 columns (three packed
  // blocks, the last zero-padded) over a batch of 2 folded into rows, and
  // an activation B of 37 columns (two blocks read in place, five tail
  // columns) broadcast against A's batch.
  b.input("ma", DType::Float32, {2, 5, 19});
  in.emplace_back("ma", random_tensor(DType::Float32, {2, 5, 19}, 12));
  b.initializer("mw", random_tensor(DType::Float32, {19, 33}, 13));
  b.node("MatMul", {"ma", "mw"}, {"mm_packed"});
  b.input("mb", DType::Float32, {19, 37});
  in.emplace_back("mb", random_tensor(DType::Float32, {19, 37}, 14));
  b.node("MatMul", {"ma", "mb"}, {"mm_in_place"});
  b.output("mm_packed").output("mm_in_place");
  // Conv + HardSwish + MaxPool fused (conv_tiled.c's pool: a compare and a blend
  // per vector, the portable loop at width 1): 19 channels (a partial block
  // of lanes), a NaN in the input that the pool must carry.
  b.input("pimg", DType::Float32, {1, 5, 9, 11});
  TensorData pimg = random_tensor(DType::Float32, {1, 5, 9, 11}, 15);
  pimg.data<float>()[123] = std::nanf("");
  in.emplace_back("pimg", std::move(pimg));
  b.initializer("pc_w", random_tensor(DType::Float32, {19, 5, 3, 3}, 16));
  b.node("Conv", {"pimg", "pc_w"}, {"pc"}, {{"pads", ints{1, 1, 1, 1}}});
  b.node("HardSwish", {"pc"}, {"pcr"});  // as vectors (c_activation_vector), the portable loop at width 1
  b.node("MaxPool", {"pcr"}, {"pool"},
         {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}, {"ceil_mode", int64_t{1}}});
  b.output("pool");
  // conv_tiled.c's tile of 3 positions x 2 blocks on 16 registers (HX: AVX2,
  // tiled_kernels_test.cpp): 37 output channels (3 blocks: an odd last one
  // that runs alone, a partial one), 3x3 on 7 channels (63 taps), into a
  // fused ReLU + MaxPool, and of stride 2 into a 3x3 layer on the
  // channels-last tensor plus a residual.
  b.input("himg", DType::Float32, {2, 7, 10, 9});
  in.emplace_back("himg", random_tensor(DType::Float32, {2, 7, 10, 9}, 60));
  b.initializer("hx_w", random_tensor(DType::Float32, {37, 7, 3, 3}, 61));
  b.initializer("hx_b", random_tensor(DType::Float32, {37}, 62));
  b.node("Conv", {"himg", "hx_w", "hx_b"}, {"hx_c"}, {{"pads", ints{1, 1, 1, 1}}});
  b.node("Relu", {"hx_c"}, {"hx_r"});
  b.node("MaxPool", {"hx_r"}, {"hx_pool"}, {{"kernel_shape", ints{2, 2}}, {"strides", ints{2, 2}}});
  b.initializer("hx_w2", random_tensor(DType::Float32, {37, 7, 3, 3}, 63));
  b.node("Conv", {"himg", "hx_w2"}, {"hx_s"}, {{"pads", ints{1, 1, 1, 1}}, {"strides", ints{2, 2}}});
  b.node("HardSwish", {"hx_s"}, {"hx_a"});
  b.initializer("hx_w3", random_tensor(DType::Float32, {37, 37, 3, 3}, 64));
  b.node("Conv", {"hx_a", "hx_w3"}, {"hx_t"}, {{"pads", ints{1, 1, 1, 1}}});
  b.node("Add", {"hx_t", "hx_a"}, {"hx_res"});
  b.output("hx_pool").output("hx_res");
  // Conv + Clip into a Conv: the Clip on a channels-last tensor, as vectors.
  b.initializer("cc_w", random_tensor(DType::Float32, {21, 5, 3, 3}, 17));
  b.initializer("cc_b", random_tensor(DType::Float32, {21}, 18));
  b.node("Conv", {"pimg", "cc_w", "cc_b"}, {"cc"}, {{"pads", ints{0, 1, 1, 0}}});
  b.initializer("cc_lo", TensorData::scalar<float>(-0.5f));
  b.initializer("cc_hi", TensorData::scalar<float>(0.75f));
  b.node("Clip", {"cc", "cc_lo", "cc_hi"}, {"ccc"});
  b.initializer("cd_w", random_tensor(DType::Float32, {3, 21, 1, 1}, 19));
  b.node("Conv", {"ccc", "cd_w"}, {"cd"});
  b.output("cd");
  // Depthwise on it (two blocks of lanes, the second partial; bi: every
  // block at a tile's positions in turn).
  b.initializer("dw_w", random_tensor(DType::Float32, {21, 1, 3, 3}, 20));
  b.initializer("dw_b", random_tensor(DType::Float32, {21}, 21));
  b.node("Conv", {"ccc", "dw_w", "dw_b"}, {"dwc"}, {{"group", int64_t{21}}, {"strides", ints{2, 1}}, {"pads", ints{1, 1, 1, 1}}});
  b.output("dwc");
  // Depthwise between channels-last tensors (conv_dw_cl.c: register blocks
  // of a row's positions, the border columns apart), 24 channels (whole
  // blocks of 8): 3x3 with a bias and a HardSwish (as vectors), 5x5 of
  // stride 2 and dilation 2 with asymmetric pads and a SiLU (on the row).
  b.input("limg", DType::Float32, {2, 3, 11, 37});
  in.emplace_back("limg", random_tensor(DType::Float32, {2, 3, 11, 37}, 45));
  b.initializer("l1_w", random_tensor(DType::Float32, {24, 3, 1, 1}, 46));
  b.node("Conv", {"limg", "l1_w"}, {"l1"});
  b.initializer("l3_w", random_tensor(DType::Float32, {24, 1, 3, 3}, 47));
  b.initializer("l3_b", random_tensor(DType::Float32, {24}, 48));
  b.node("Conv", {"l1", "l3_w", "l3_b"}, {"l3"}, {{"group", int64_t{24}}, {"pads", ints{1, 1, 1, 1}}});
  b.node("HardSwish", {"l3"}, {"l3h"});
  b.initializer("l5_w", random_tensor(DType::Float32, {24, 1, 5, 5}, 49));
  b.node("Conv", {"l3h", "l5_w"}, {"l5"},
         {{"group", int64_t{24}}, {"strides", ints{2, 2}}, {"dilations", ints{2, 2}}, {"pads", ints{3, 4, 2, 1}}});
  b.node("Sigmoid", {"l5"}, {"l5g"});
  b.node("Mul", {"l5", "l5g"}, {"l5s"});
  b.initializer("lo_w", random_tensor(DType::Float32, {3, 24, 1, 1}, 50));
  b.node("Conv", {"l5s", "lo_w"}, {"silu_lout"});
  b.output("silu_lout");  // kmath_f.h's SiLU: across the widths only
  // The same between channels-last tensors whose channels no vector width
  // divides (37, and 20 where 8 and 16 lanes do not): the last vector of a
  // pixel overlaps the one before and stores only its own lanes, here with
  // a residual in the output's own bytes (an Add of a 1x1 Conv's output
  // that dies there) read before each element is written, and a SiLU on
  // rows of 19 x 20 floats (a tail of 4 or 12 past the whole vectors).
  b.initializer("m1_w", random_tensor(DType::Float32, {37, 3, 1, 1}, 51));
  b.node("Conv", {"limg", "m1_w"}, {"m1"});
  b.initializer("m1r_w", random_tensor(DType::Float32, {37, 3, 1, 1}, 52));
  b.node("Conv", {"limg", "m1r_w"}, {"m1r"});
  b.initializer("m3_w", random_tensor(DType::Float32, {37, 1, 3, 3}, 53));
  b.initializer("m3_b", random_tensor(DType::Float32, {37}, 54));
  b.node("Conv", {"m1", "m3_w", "m3_b"}, {"m3"}, {{"group", int64_t{37}}, {"pads", ints{1, 1, 1, 1}}});
  b.node("Add", {"m3", "m1r"}, {"m3a"});
  b.node("HardSwish", {"m3a"}, {"m3h"});
  b.initializer("mo_w", random_tensor(DType::Float32, {3, 37, 1, 1}, 55));
  b.node("Conv", {"m3h", "mo_w"}, {"dw37"});
  b.output("dw37");
  b.initializer("m2_w", random_tensor(DType::Float32, {20, 3, 1, 1}, 56));
  b.node("Conv", {"limg", "m2_w"}, {"m2"});
  b.initializer("m5_w", random_tensor(DType::Float32, {20, 1, 3, 3}, 57));
  b.node("Conv", {"m2", "m5_w"}, {"m5"}, {{"group", int64_t{20}}, {"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}});
  b.node("Sigmoid", {"m5"}, {"m5g"});
  b.node("Mul", {"m5", "m5g"}, {"m5s"});
  b.initializer("mp_w", random_tensor(DType::Float32, {3, 20, 1, 1}, 58));
  b.node("Conv", {"m5s", "mp_w"}, {"silu_dw20"});
  b.output("silu_dw20");
  // Depthwise between row-major tensors (conv_dw_rows.c: vectors along the
  // rows, whole and partial): 7x7 with a residual and a HardSwish, 19
  // channels; 3x5 of stride 2 and dilation 2 with asymmetric pads (the
  // stride's phases).
  b.input("rimg", DType::Float32, {2, 19, 9, 23});
  in.emplace_back("rimg", random_tensor(DType::Float32, {2, 19, 9, 23}, 40));
  b.initializer("r7_w", random_tensor(DType::Float32, {19, 1, 7, 7}, 41));
  b.initializer("r7_b", random_tensor(DType::Float32, {19}, 42));
  b.node("Conv", {"rimg", "r7_w", "r7_b"}, {"r7"}, {{"group", int64_t{19}}, {"pads", ints{3, 3, 3, 3}}});
  b.node("Neg", {"rimg"}, {"rneg"});
  b.node("Add", {"r7", "rneg"}, {"r7a"});
  b.node("HardSwish", {"r7a"}, {"rows7"});
  b.initializer("r3_w", random_tensor(DType::Float32, {19, 1, 3, 5}, 43));
  b.input("rwide", DType::Float32, {1, 19, 4, 41});
  in.emplace_back("rwide", random_tensor(DType::Float32, {1, 19, 4, 41}, 44));
  b.node("Conv", {"rwide", "r3_w"}, {"rows3"},
         {{"group", int64_t{19}}, {"strides", ints{1, 2}}, {"dilations", ints{2, 2}}, {"pads", ints{1, 4, 2, 3}}});
  b.output("rows7").output("rows3");
  // A fused SiLU (Sigmoid and Mul) and Sigmoid on whole blocks of lanes
  // written contiguously: conv_tiled.c's mlip__ct_sigmoid (a tile's vectors
  // at once; mlip/kmath_f.h's functions one float at a time at width 1),
  // after a dense Conv with a residual-free bias and a Conv with a fused
  // MaxPool (its rows in the scratch), and after a depthwise 5x5 of stride 2
  // between channels-last tensors (conv_dw_cl.c: kmath_f.h's array form on
  // each finished row). The input
  // spans the sigmoid's clamps (below -87, above 17.33 and 88.7) and holds a
  // NaN and values near the float range's ends; the last Conv's output is
  // row-major (the scalar epilogue). The same SiLU on a plane with both
  // infinities (silu_inf: at -inf, -0 where the reference's Sigmoid and Mul
  // give -inf * 0 = NaN) is compared across the widths only.
  b.input("simg", DType::Float32, {1, 4, 13, 10});
  TensorData simg = random_tensor(DType::Float32, {1, 4, 13, 10}, 22, -40.0, 40.0);
  simg.data<float>()[17] = std::nanf("");
  simg.data<float>()[200] = 1e30f;
  simg.data<float>()[333] = -1e30f;
  TensorData sinf = simg;
  sinf.data<float>()[201] = INFINITY;
  sinf.data<float>()[334] = -INFINITY;
  in.emplace_back("simg", std::move(simg));
  b.input("sinf", DType::Float32, {1, 4, 13, 10});
  in.emplace_back("sinf", std::move(sinf));
  b.initializer("s1_w", random_tensor(DType::Float32, {32, 4, 3, 3}, 23));
  b.initializer("s1_b", random_tensor(DType::Float32, {32}, 24));
  b.node("Conv", {"simg", "s1_w", "s1_b"}, {"s1"}, {{"pads", ints{1, 1, 1, 1}}});
  b.node("Sigmoid", {"s1"}, {"s1g"});
  b.node("Mul", {"s1", "s1g"}, {"s1s"});
  b.initializer("s2_w", random_tensor(DType::Float32, {32, 1, 5, 5}, 25));
  b.node("Conv", {"s1s", "s2_w"}, {"s2"}, {{"group", int64_t{32}}, {"strides", ints{2, 2}}, {"pads", ints{2, 2, 2, 2}}});
  b.node("Sigmoid", {"s2"}, {"s2g"});
  b.initializer("s3_w", random_tensor(DType::Float32, {16, 32, 1, 1}, 26));
  b.node("Conv", {"s2g", "s3_w"}, {"silu_chain"});
  b.initializer("s4_w", random_tensor(DType::Float32, {16, 4, 3, 3}, 27));
  b.node("Conv", {"simg", "s4_w"}, {"s4"}, {{"pads", ints{1, 1, 1, 1}}});
  b.node("Sigmoid", {"s4"}, {"s4g"});
  b.node("Mul", {"s4", "s4g"}, {"s4s"});
  b.node("MaxPool", {"s4s"}, {"silu_pool"}, {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}});
  b.node("Conv", {"sinf", "s1_w", "s1_b"}, {"s5"}, {{"pads", ints{1, 1, 1, 1}}});
  b.node("Sigmoid", {"s5"}, {"s5g"});
  b.node("Mul", {"s5", "s5g"}, {"s5s"});
  b.node("Conv", {"s5s", "s3_w"}, {"silu_inf"});
  b.output("silu_chain").output("silu_pool").output("silu_inf");
  // The SiLU and sigmoid of 32768 floats spread over every bit pattern (every
  // 131071st: signs, subnormals, the clamps, infinities, NaNs with payloads):
  // depthwise 1x1 convolutions of weight 1 pass x through exactly (0 + x * 1)
  // into the fused activation, channels-last, then out unchanged. Compared
  // across the widths only (at -inf the fused SiLU gives -0, the reference's
  // Sigmoid and Mul NaN).
  const Shape bs = {1, 32, 32, 32};
  TensorData bits(DType::Float32, bs);
  for (uint32_t i = 0; i < 32768; ++i) {
    const uint32_t u = i == 1 ? 0x7f800000u : i == 2 ? 0xff800000u : i * 131071u;
    std::memcpy(bits.data<float>() + i, &u, sizeof u);
  }
  b.input("sbits", DType::Float32, bs);
  in.emplace_back("sbits", std::move(bits));
  TensorData ones(DType::Float32, {32, 1, 1, 1});
  for (int i = 0; i < 32; ++i) ones.data<float>()[i] = 1.0f;
  b.initializer("one_w", ones);
  for (const char* act : {"silu", "sigmoid"}) {
    const std::string x = std::string("bits_") + act;
    b.node("Conv", {"sbits", "one_w"}, {x}, {{"group", int64_t{32}}});
    b.node("Sigmoid", {x}, {x + "_g"});
    std::string y = x + "_g";
    if (std::string(act) == "silu") {
      b.node("Mul", {x, x + "_g"}, {x + "_m"});
      y = x + "_m";
    }
    b.node("Conv", {y, "one_w"}, {"silu_" + x}, {{"group", int64_t{32}}});
    b.output("silu_" + x);
  }
  return b.save(test::scratch_dir(), "packed_widths.onnx");
}

// The host C against the reference: bit for bit, but the fused SiLU and
// sigmoid outputs (silu_*). Those are mlip/kmath_f.h's float-precision
// functions where the reference has kmath.h's; width 1 runs kmath_f.h's
// scalar functions, so their equality across the widths (the test below) is
// what proves conv_tiled.c's vector form, and kmath_f.h's own bounds against
// the reference are runtime.kmath's and unit.KmathF's.
void expect_reference(const io::NamedTensors& got, const io::NamedTensors& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const std::string& n = want[i].first;
    if (n.rfind("silu", 0) == 0) continue;
    EXPECT_EQ(test::compare(got[i].second, want[i].second, 0.0, 0.0), "") << n;
  }
}

TEST(PackedWidths, EveryWidthGivesTheHostBuildsBits) {
  io::NamedTensors in;
  const fs::path onnx = model(in);
  io::NamedTensors want;
  driver::CompileResult r = driver::compile_model(onnx, {});
  const fs::path tar = test::scratch_dir() / "packed_widths.tar";
  driver::write_tarball(r, tar);
  {
    const std::string& lib1 = r.files.at("codegen/host/src/default_lib1.c");
    EXPECT_EQ(test::count_occurrences(lib1, "Depthwise Conv between channels-last"), 5u);  // s2, l3, l5, m3, m5: conv_dw_cl.c
    EXPECT_EQ(test::count_occurrences(lib1, "over the channels of x [N, C, P]"), 2u);  // norm_cl, norm_cf: layer_norm_cf.c
    // conv_tiled.c's stage: the unpadded layers into row-major outputs (silu_chain, silu_inf, dw37, silu_dw20 ...)
    EXPECT_EQ(test::count_occurrences(lib1, "The band's outputs from the stage"), 8u);
    // conv_tiled.c's HX tile offered (tile3): hx_c, hx_s, hx_t and five of the other convolutions
    EXPECT_EQ(test::count_occurrences(lib1, "_HX 1\n"), 8u);
  }
  std::vector<std::vector<std::string>> widths = {{}, {"-DMLIP_KVEC_SCALAR"}};
  // The convolutions' fused multiply-adds (mlip/kfma.h) in portable C, lane
  // by lane at the native width and in its integer-only form at width 1.
  widths.push_back({"-DMLIP_FMA_PORTABLE"});
  widths.push_back({"-DMLIP_FMA_INTEGER", "-DMLIP_KVEC_SCALAR"});
  // conv_dw_cl.c's blocks of one position: on its rows, blocks between the
  // first and the last that test their columns (the pads reach past them).
  widths.push_back({"-DMLIP_DWCL_RMAX=1"});
#if defined(__x86_64__)
  widths.push_back({"-mno-avx512f"});                          // AVX2 where -march=native has it
  widths.push_back({"-mno-avx512f", "-mno-fma"});              // AVX without FMA: mlip_fmaf's C lane by lane
  widths.push_back({"-mno-avx512f", "-mno-avx", "-mno-avx2"});  // SSE2 (no FMA: the x86-64 baseline)
#endif
  for (const auto& extra : widths) {
    SCOPED_TRACE(fmt::format("extra flags: {}", fmt::join(extra, " ")));
    // The first is mlipc run's build; the widths at width_variant_flags()'s level.
    const io::NamedTensors got = test::run_width_variant(tar, in, extra);
    if (want.empty()) {  // the first, mlipc run's own flags
      expect_reference(got, test::reference_run(onnx, in));
      want = got;
      continue;
    }
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(test::compare(got[i].second, want[i].second, 0.0, 0.0), "") << want[i].first;
      // Bit for bit (the sign of a zero, a NaN's bits) for the sigmoids.
      if (want[i].first.rfind("silu", 0) == 0) {
        EXPECT_EQ(std::memcmp(got[i].second.raw(), want[i].second.raw(), want[i].second.nbytes()), 0) << want[i].first;
      }
    }
  }
  EXPECT_EQ(test::strict_c99_errors(onnx), "");
}

bool have(const std::string& tool) {
  return run_process({"sh", "-c", "command -v \"$0\" >/dev/null", tool}, fs::current_path(), 60).exit_code == 0;
}

// The same model built for AArch64 (NEON: width 4 and 32 registers, so
// MatMul and Gemm tiles of 4 rows) by `mlipc compile --cross-compiler` and
// run by `mlipc run` under qemu-aarch64: the host build's bits again.
// Skipped (not passed) without the cross compiler or QEMU.
TEST(PackedWidths, AArch64UnderQemuGivesTheHostBits) {
  for (const char* tool : {"aarch64-linux-gnu-gcc", "qemu-aarch64"})
    if (!have(tool)) GTEST_SKIP() << tool << " missing (scripts/setup.sh installs it)";
  io::NamedTensors in;
  const fs::path onnx = model(in);
  const io::NamedTensors want = test::compile_and_run(onnx, in);
  const fs::path dir = test::scratch_dir() / "packed_widths_aarch64";
  fs::create_directories(dir);
  io::write_npz(dir / "in.npz", in);
  ProcessResult c = run_process({MLIPC_BINARY, "compile", onnx.string(), "--target", "c", "-o", "cross.tar",
                                 "--target-llvm-mtriple=aarch64-linux-gnu", "--target-llvm-mcpu=neoverse-n2",
                                 "--cross-compiler", "aarch64-linux-gnu-gcc"},
                                dir, 1200);
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  ProcessResult r = run_process({MLIPC_BINARY, "run", "cross.tar", "--inputs", "in.npz", "--outputs", "out.npz"}, dir, 1200);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const io::NamedTensors got = io::read_npz(dir / "out.npz");
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, t] : want) {
    // name by an init-capture: C++17 lambdas cannot capture a structured binding (clang rejects it)
    auto it = std::find_if(got.begin(), got.end(), [&n = name](const auto& g) { return g.first == n; });
    ASSERT_NE(it, got.end()) << name;
    EXPECT_EQ(test::compare(it->second, t, 0.0, 0.0), "") << name;
  }
}

}  // namespace
}  // namespace mlipc::unit_c_packed_widths
