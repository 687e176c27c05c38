// Convolutions whose fused residual is their own input (the Add's other
// operand is the Conv's x), which must not take x's bytes.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "driver/compile.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/tensors.h"
#include "testlib/text_query.h"

namespace mlipc::unit_c_dw_cl_activation {
namespace {

namespace fs = std::filesystem;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;

// y = Conv(x) + x, the residual fused (passes/fuse_residual): the output may
// not take over x's buffer, which the windows read after y's first rows are
// written (on main at 1fcde7f they shared it: wrong sums from the second
// row on). Depthwise between channels-last tensors (conv_dw_cl.c) and
// row-major ones (conv_dw_rows.c), a dense 3x3 (conv_tiled.c).
TEST(DwClActivation, ConvWhoseResidualIsItsOwnInputMatchesTheReference) {
  OnnxBuilder b;
  io::NamedTensors in;
  const Shape s = {1, 3, 13, 19};
  b.input("x", DType::Float32, s);
  in.emplace_back("x", random_tensor(DType::Float32, s, 7, -4.0, 4.0));
  b.initializer("a_w", random_tensor(DType::Float32, {32, 3, 1, 1}, 8));
  b.node("Conv", {"x", "a_w"}, {"a"});
  b.initializer("cl_w", random_tensor(DType::Float32, {32, 1, 3, 3}, 9));
  b.initializer("cl_b", random_tensor(DType::Float32, {32}, 10));
  b.node("Conv", {"a", "cl_w", "cl_b"}, {"cl"}, {{"group", int64_t{32}}, {"pads", ints{1, 1, 1, 1}}});
  b.node("Add", {"cl", "a"}, {"cl_r"});
  b.node("HardSwish", {"cl_r"}, {"cl_h"});
  b.initializer("de_w", random_tensor(DType::Float32, {32, 32, 3, 3}, 11));
  b.node("Conv", {"cl_h", "de_w"}, {"de"}, {{"pads", ints{1, 1, 1, 1}}});
  b.node("Add", {"de", "cl_h"}, {"de_r"});
  b.initializer("o_w", random_tensor(DType::Float32, {2, 32, 1, 1}, 12));
  b.node("Conv", {"de_r", "o_w"}, {"cl_out"});
  b.output("cl_out");
  const Shape r = {1, 5, 11, 37};
  b.input("xr", DType::Float32, r);
  in.emplace_back("xr", random_tensor(DType::Float32, r, 13, -4.0, 4.0));
  b.node("Neg", {"xr"}, {"n"});
  b.initializer("rw_w", random_tensor(DType::Float32, {5, 1, 5, 5}, 14));
  b.node("Conv", {"n", "rw_w"}, {"rw"}, {{"group", int64_t{5}}, {"pads", ints{2, 2, 2, 2}}});
  b.node("Add", {"rw", "n"}, {"rows_out"});
  b.output("rows_out");
  const fs::path onnx = b.save(test::scratch_dir(), "conv_own_residual.onnx");
  const driver::CompileResult c = driver::compile_model(onnx, {});
  const std::string& lib1 = c.files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, "Depthwise Conv between channels-last"), 1u);
  EXPECT_EQ(test::count_occurrences(lib1, "Depthwise Conv on row-major planes"), 1u);
  test::expect_matches_reference(onnx, in, 0.0, 0.0);
}

}  // namespace
}  // namespace mlipc::unit_c_dw_cl_activation
