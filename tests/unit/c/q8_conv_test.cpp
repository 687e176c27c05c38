// QLinearConv on mlip/kq8.h's int8 product (templates/kernels/qlinear_conv_q8.c):
// taken for constant int8 weights whose zero points are 0, and only then;
// the generated C against the reference evaluator at tolerance 0 on random
// geometries (groups, depthwise, strides, pads, dilations, batch > 1, 1-D to
// 3-D, uint8 input with zero point 128 and int8 with -128, per-channel and
// per-tensor scales, a fused Relu); the CPU option's padding of the weight
// rows; the target CPUs (c/cpu.h); and the generated code built for each
// instruction set with its variant's instructions in it. The variants
// themselves against the reference: tests/variants.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "c/cpu.h"
#include "mlf/archive.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_c_q8_conv {
namespace {

using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("q8_conv_{}.onnx", k++));
}

std::string lib1(const fs::path& onnx, const driver::CompileOptions& opt = {}) {
  return driver::compile_model(onnx, opt).files.at("codegen/host/src/default_lib1.c");
}

bool on_path(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t at = 0; at <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', at), dirs.size());
    if (end > at && fs::exists(fs::path(dirs.substr(at, end - at)) / tool)) return true;
    at = end + 1;
  }
  return false;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

struct Geometry {
  Shape x, w;
  std::vector<std::pair<std::string, AttrValue>> attrs;
};

// A random geometry: 1-D to 3-D, dense, grouped or depthwise, channel
// counts that are not multiples of 4 or 16.
Geometry random_geometry(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return static_cast<int64_t>(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  const int64_t dims = pick(0, 5) == 0 ? 1 : pick(0, 5) == 0 ? 3 : 2;
  const int64_t kind = pick(0, 2);  // depthwise, grouped, dense
  const int64_t group = kind == 0 ? pick(2, 9) : kind == 1 ? pick(2, 3) : 1;
  const int64_t icg = kind == 0 ? 1 : pick(1, 7), ocg = kind == 0 ? pick(1, 2) : pick(1, 11);
  Geometry g;
  g.x = {pick(1, 2), group * icg};
  g.w = {group * ocg, icg};
  ints kernel, strides, dilations, pads(2 * static_cast<size_t>(dims));
  for (int64_t a = 0; a < dims; ++a) {
    const int64_t in = dims == 3 ? pick(2, 5) : pick(3, 10);
    const int64_t d = pick(1, 2), s = pick(1, 3);
    int64_t k = pick(1, dims == 3 ? 3 : 4);
    const int64_t p0 = pick(0, k - 1), p1 = pick(0, k - 1);
    while (k > 1 && d * (k - 1) + 1 > in + p0 + p1) --k;
    g.x.push_back(in);
    g.w.push_back(k);
    kernel.push_back(k);
    strides.push_back(s);
    dilations.push_back(d);
    pads[static_cast<size_t>(a)] = p0;
    pads[static_cast<size_t>(dims + a)] = p1;
  }
  g.attrs = {{"group", group}, {"strides", strides}, {"dilations", dilations}, {"pads", pads}};
  return g;
}

// QLinearConv nodes on the fast path (int8 weights, zero points 0): uint8
// input with zero point 128 and int8 with -128 (and others), per-channel and
// per-tensor scales, with and without bias, either output type.
void check_qlinear(const Geometry& c, uint32_t seed, const driver::CompileOptions& opt = {}) {
  const int64_t m_out = c.w[0];
  OnnxBuilder m;
  m.input("xu", DType::UInt8, c.x).input("x8", DType::Int8, c.x);
  io::NamedTensors in = {{"xu", random_tensor(DType::UInt8, c.x, seed, 0, 255)},
                         {"x8", random_tensor(DType::Int8, c.x, seed + 1, -128, 127)}};
  m.initializer("w", random_tensor(DType::Int8, c.w, seed + 2, -128, 127));
  m.initializer("zw", TensorData::scalar<int8_t>(0));
  m.initializer("zwc", TensorData::from<int8_t>({m_out}, std::vector<int8_t>(static_cast<size_t>(m_out), 0)));
  std::vector<float> ws;
  for (int64_t i = 0; i < m_out; ++i) ws.push_back(0.0021f + 0.00053f * static_cast<float>(i % 7));
  m.initializer("wsc", TensorData::from<float>({m_out}, ws)).initializer("wst", TensorData::scalar<float>(0.0031f));
  m.initializer("xs", TensorData::scalar<float>(0.02f)).initializer("ys", TensorData::scalar<float>(0.013f));
  m.initializer("zx128", TensorData::scalar<uint8_t>(128)).initializer("zxu", TensorData::scalar<uint8_t>(77));
  m.initializer("zxm128", TensorData::scalar<int8_t>(-128)).initializer("zx8", TensorData::scalar<int8_t>(5));
  m.initializer("zyu", TensorData::scalar<uint8_t>(120)).initializer("zy8", TensorData::scalar<int8_t>(-3));
  m.initializer("b", random_tensor(DType::Int32, {m_out}, seed + 5, -5000, 5000));
  m.node("QLinearConv", {"xu", "xs", "zx128", "w", "wsc", "zwc", "ys", "zyu", "b"}, {"q0"}, c.attrs).output("q0");
  m.node("QLinearConv", {"x8", "xs", "zxm128", "w", "wst", "zw", "ys", "zy8"}, {"q1"}, c.attrs).output("q1");
  m.node("QLinearConv", {"xu", "xs", "zxu", "w", "wst", "zw", "ys", "zy8", "b"}, {"q2"}, c.attrs).output("q2");
  m.node("QLinearConv", {"x8", "xs", "zx8", "w", "wsc", "zwc", "ys", "zyu", "b"}, {"q3"}, c.attrs).output("q3");
  const fs::path onnx = save(m);
  SCOPED_TRACE(fmt::format("x {} w {}", shape_str(c.x), shape_str(c.w)));
  EXPECT_EQ(count(lib1(onnx, opt), "  mlip_kq8_conv(&d, x, w, ch, y, scratch);"), 4);
  test::expect_matches_reference(onnx, in, 0.0, 0.0, opt);
}

TEST(Q8Conv, GeneratedCMatchesReferenceRandom) {
  std::mt19937 rng(2024);
  for (uint32_t seed = 1; seed <= 6; ++seed) check_qlinear(random_geometry(rng), seed * 31);
}

// A QDQ group with per-channel weights and a Relu, as onnxruntime's
// quantizer writes it: folded into a QLinearConv whose clamp starts at the
// output zero point, on the fast path.
TEST(Q8Conv, QdqConvWithReluMatchesReference) {
  const Shape x = {2, 6, 7, 5}, w = {10, 3, 3, 2};
  OnnxBuilder m;
  m.input("x", DType::UInt8, x);
  m.initializer("xs", TensorData::scalar<float>(0.05f)).initializer("xz", TensorData::scalar<uint8_t>(128));
  m.initializer("w", random_tensor(DType::Int8, w, 9, -127, 127));
  std::vector<float> ws;
  for (int i = 0; i < 10; ++i) ws.push_back(0.003f + 0.0007f * static_cast<float>(i));
  m.initializer("ws", TensorData::from<float>({10}, ws));
  m.initializer("wz", TensorData::from<int8_t>({10}, std::vector<int8_t>(10, 0)));
  m.initializer("b", random_tensor(DType::Int32, {10}, 10, -3000, 3000));
  m.initializer("bs", TensorData::from<float>({10}, [&] {
    std::vector<float> s;
    for (float v : ws) s.push_back(v * 0.05f);
    return s;
  }()));
  m.initializer("bz", TensorData::from<int32_t>({10}, std::vector<int32_t>(10, 0)));
  m.initializer("ys", TensorData::scalar<float>(0.04f)).initializer("yz", TensorData::scalar<uint8_t>(128));
  m.node("DequantizeLinear", {"x", "xs", "xz"}, {"xf"});
  m.node("DequantizeLinear", {"w", "ws", "wz"}, {"wf"}, {{"axis", int64_t{0}}});
  m.node("DequantizeLinear", {"b", "bs", "bz"}, {"bf"}, {{"axis", int64_t{0}}});
  m.node("Conv", {"xf", "wf", "bf"}, {"c"},
         {{"group", int64_t{2}}, {"pads", ints{1, 0, 1, 1}}, {"strides", ints{2, 1}}});
  m.node("Relu", {"c"}, {"r"});
  m.node("QuantizeLinear", {"r", "ys", "yz"}, {"y"}).output("y");
  const fs::path onnx = save(m);
  const std::string code = lib1(onnx);
  EXPECT_EQ(count(code, "mlip_kq8_conv(&d"), 1) << code;
  // zy 128, the Relu's clamp [128, 255]; x and y row-major (graph input and output)
  EXPECT_THAT(code, HasSubstr(", 128, 128, 255, 0, 0};"));
  test::expect_matches_reference(onnx, {{"x", random_tensor(DType::UInt8, x, 11, 0, 255)}}, 0.0, 0.0);
}

// The fast path needs int8 weights whose zero points are all 0, constants,
// and a bias that cannot saturate: uint8 weights, a non-zero zero point,
// weights computed at run time and a huge bias keep conv_integer.c (and
// the reference's bits).
TEST(Q8Conv, TakenOnlyForInt8WeightsWithZeroPointsZero) {
  const Shape x = {1, 4, 6, 6}, w = {5, 4, 3, 3};
  OnnxBuilder m;
  m.input("x", DType::UInt8, x).input("wr", DType::Int8, w);
  m.initializer("w8", random_tensor(DType::Int8, w, 3, -128, 127));
  m.initializer("wu", random_tensor(DType::UInt8, w, 4, 0, 255));
  m.initializer("xs", TensorData::scalar<float>(0.02f)).initializer("zx", TensorData::scalar<uint8_t>(128));
  m.initializer("ws", TensorData::scalar<float>(0.003f)).initializer("ys", TensorData::scalar<float>(0.05f));
  m.initializer("z0", TensorData::scalar<int8_t>(0)).initializer("z1", TensorData::scalar<int8_t>(1));
  m.initializer("zu", TensorData::scalar<uint8_t>(128)).initializer("zy", TensorData::scalar<uint8_t>(128));
  m.node("QLinearConv", {"x", "xs", "zx", "w8", "ws", "z0", "ys", "zy"}, {"fast"}).output("fast");
  m.node("QLinearConv", {"x", "xs", "zx", "w8", "ws", "z1", "ys", "zy"}, {"zw1"}).output("zw1");
  m.node("QLinearConv", {"x", "xs", "zx", "wu", "ws", "zu", "ys", "zy"}, {"u8"}).output("u8");
  m.node("QLinearConv", {"x", "xs", "zx", "wr", "ws", "z0", "ys", "zy"}, {"runtime"}).output("runtime");
  // A bias so large that QLinearConv's saturating add could saturate: not
  // folded into the sum's start (mlip_kq8_start refuses), the loops.
  m.initializer("big", TensorData::from<int32_t>({5}, {2147480000, -2147480000, 5, -5, 0}));
  m.node("QLinearConv", {"x", "xs", "zx", "w8", "ws", "z0", "ys", "zy", "big"}, {"saturating"}).output("saturating");
  const fs::path onnx = save(m);
  const std::string code = lib1(onnx);
  EXPECT_EQ(count(code, "  mlip_kq8_conv(&d, x, w, ch, y, scratch);"), 1) << code;
  EXPECT_EQ(count(code, "mlip_requantize(acc, qm["), 4) << code;  // conv_integer.c
  test::expect_matches_reference(onnx,
                                 {{"x", random_tensor(DType::UInt8, x, 5, 0, 255)},
                                  {"wr", random_tensor(DType::Int8, w, 6, -128, 127)}},
                                 0.0, 0.0);
}

// --target-c-mcpu pads each weight row to the CPU's alignment (4 bytes on
// Cortex-M, 16 elsewhere; 3 * 3 * 3 = 27 taps): other code, the same bits.
TEST(Q8Conv, RowPaddingFollowsTheTargetCpu) {
  std::mt19937 rng(7);
  Geometry g = random_geometry(rng);
  g.x = {1, 3, 8, 7};
  g.w = {6, 3, 3, 3};
  g.attrs = {{"pads", ints{1, 1, 1, 1}}};
  driver::CompileOptions m4;
  m4.codegen.cpu = c::cpu_target("cortex-m4");
  check_qlinear(g, 5, m4);
  check_qlinear(g, 5);
  OnnxBuilder b;
  b.input("x", DType::UInt8, g.x);
  b.initializer("w", random_tensor(DType::Int8, g.w, 3, -128, 127));
  b.initializer("s", TensorData::scalar<float>(0.01f)).initializer("zx", TensorData::scalar<uint8_t>(128));
  b.initializer("z0", TensorData::scalar<int8_t>(0));
  b.node("QLinearConv", {"x", "s", "zx", "w", "s", "z0", "s", "zx"}, {"y"}, g.attrs).output("y");
  const fs::path onnx = save(b);
  // The row length is the descriptor's first value after the leading pads.
  EXPECT_THAT(lib1(onnx, m4), HasSubstr("{ 0, 1, 1 },\n      28, 4, 1, 128,"));
  EXPECT_THAT(lib1(onnx), HasSubstr("{ 0, 1, 1 },\n      32, 4, 1, 128,"));
  // metadata.json records the CPU the C was tuned for, and no CPU when none was named.
  const auto mlipc_key = [&](const driver::CompileOptions& opt) {
    return nlohmann::json::parse(driver::compile_model(onnx, opt).files.at("metadata.json"))["modules"]["default"]["mlipc"];
  };
  EXPECT_EQ(mlipc_key(m4)["cpu"],
            nlohmann::json::parse(R"({"name": "cortex-m4", "isas": ["dsp"], "q8_row_align": 4})"));
  EXPECT_FALSE(mlipc_key({}).contains("cpu"));
}

TEST(TargetCpu, NamesImplicationsAndRefusals) {
  EXPECT_EQ(c::cpu_target("cortex-m55").isas, (std::vector<std::string>{"mve", "dsp"}));
  EXPECT_EQ(c::cpu_target("cortex-m4").isas, (std::vector<std::string>{"dsp"}));
  EXPECT_TRUE(c::cpu_target("cortex-m3").isas.empty());
  EXPECT_EQ(c::cpu_target("cortex-m7").q8_row_align(), 4);
  EXPECT_EQ(c::cpu_target("neoverse-n2").isas, (std::vector<std::string>{"neon"}));
  EXPECT_EQ(c::cpu_target("neoverse-n2").q8_row_align(), 16);
  // The float kernels' loops unrolled on Cortex-M only (mlip/kvec.h's MLIP_VUNROLL).
  EXPECT_TRUE(c::cpu_target("cortex-m55").unroll_vector_loops());
  EXPECT_TRUE(c::cpu_target("cortex-m4").unroll_vector_loops());
  EXPECT_FALSE(c::cpu_target("neoverse-n2").unroll_vector_loops());
  EXPECT_FALSE(c::cpu_target("").unroll_vector_loops());
  EXPECT_TRUE(c::cpu_target("cortex-m4").float_kernels_apart());
  EXPECT_FALSE(c::cpu_target("x86-64-v3").float_kernels_apart());
  EXPECT_EQ(c::cpu_target("cortex-m4").float_conv_block(), 8);  // scalar FPU: 2 positions x 8 channels
  EXPECT_EQ(c::cpu_target("cortex-m55").float_conv_block(), 0);
  EXPECT_EQ(c::cpu_target("x86-64-v3").float_conv_block(), 0);
  EXPECT_EQ(c::cpu_target("x86-64-v3").isas, (std::vector<std::string>{"x86"}));
  EXPECT_TRUE(c::cpu_target("x86-64").isas.empty());
  EXPECT_EQ(c::cpu_target("").name, "");
  // Implied by --target-llvm-mcpu, else by the triple's architecture.
  EXPECT_EQ(c::resolve_cpu("", "cortex-m55", "arm").name, "cortex-m55");
  EXPECT_EQ(c::resolve_cpu("", "", "aarch64").isas, (std::vector<std::string>{"neon"}));
  EXPECT_EQ(c::resolve_cpu("", "some-future-core", "aarch64").family, c::CpuTarget::Family::AArch64);
  EXPECT_EQ(c::resolve_cpu("", "", "").family, c::CpuTarget::Family::Generic);
  EXPECT_EQ(c::resolve_cpu("cortex-m4", "cortex-m4", "arm").name, "cortex-m4");
  try {
    c::resolve_cpu("cortex-m4", "cortex-m55", "arm");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--target-c-mcpu 'cortex-m4' and --target-llvm-mcpu 'cortex-m55' name different CPUs");
  }
  try {
    c::cpu_target("cortex-m99");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("--target-c-mcpu 'cortex-m99' is not a CPU mlipc knows (known: cortex-m0, "));
  }
}

// The generated code of a real model, built as strict C99 for each
// instruction set (where the cross compiler is installed), holds its
// variant's instructions: the selection by the compiler's macros works in
// the tarball, not only in tests/variants.
TEST(Q8Conv, GeneratedCodeUsesEachInstructionSet) {
  const fs::path model = fs::path(MLIPC_TEST_DATA) / "models/quant_qdq_mlperf_tiny_kws_dscnn/model.onnx";
  driver::CompileResult r = driver::compile_model(model, {});
  TempDir dir("mlipc-q8");
  driver::write_tarball(r, dir.path() / "model.tar");
  mlf::extract_tar(dir.path() / "model.tar", dir.path() / "x");
  struct Isa {
    std::vector<std::string> cc;
    std::string instruction;
  };
  const std::vector<Isa> isas = {
      {{"cc", "-mavx2"}, "vpmaddwd"},
      {{"aarch64-linux-gnu-gcc"}, "sadalp"},
      {{"arm-none-eabi-gcc", "-mthumb", "-mcpu=cortex-m55", "-mfloat-abi=hard"}, "vmladava"},
      {{"arm-none-eabi-gcc", "-mthumb", "-mcpu=cortex-m4", "-mfloat-abi=hard"}, "smlad"},
      {{"cc", "-DMLIP_KERNELS_PORTABLE", "-mavx2"}, ""},
  };
  for (const Isa& isa : isas) {
    if (!on_path(isa.cc[0])) continue;
    std::vector<std::string> argv = isa.cc;
    argv.insert(argv.end(), {"-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Icodegen/host/include",
                             "-Iruntime/include", "-S", "codegen/host/src/default_lib1.c", "-o", "lib1.s"});
    ProcessResult p = run_process(argv, dir.path() / "x", 600);
    ASSERT_EQ(p.exit_code, 0) << fmt::format("{}", fmt::join(isa.cc, " ")) << ": " << p.err;
    const std::string s = read_file(dir.path() / "x/lib1.s");
    if (isa.instruction.empty()) {
      for (const char* i : {"vpmaddwd", "vpmovsxbw"}) EXPECT_EQ(s.find(i), std::string::npos) << "portable: " << i;
    } else {
      EXPECT_NE(s.find(isa.instruction), std::string::npos) << isa.cc[0] << ": no " << isa.instruction;
    }
  }
}

}  // namespace
}  // namespace mlipc::unit_c_q8_conv
