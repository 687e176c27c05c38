// Run-time int64 and bool tensors along the whole path: model inputs and
// outputs of those types, tensors of them flowing between operators (a
// comparison's bool into And, int64 arithmetic), planned in the arena like
// any other, described in the AOT header and metadata.json, and carried
// through `mlipc run` from an .npz in to an .npz out, on both targets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "driver/compile.h"
#include "io/npz.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace mlipc::test::e2e_int_bool_io {
namespace {

// ids int64 [2,5], mask bool [5] ->
//   keep  bool  [2,5] = (ids > 3) and mask, then not(not(...)) through the arena
//   score int64 [2,5] = ids * ids + |ids|
fs::path int_bool_model(const fs::path& dir) {
  OnnxBuilder b;
  b.input("ids", DType::Int64, {2, 5}).input("mask", DType::Bool, {5});
  b.initializer("three", TensorData::from<int64_t>({}, {3}));
  b.node("Greater", {"ids", "three"}, {"gt"});
  b.node("And", {"gt", "mask"}, {"both"});
  b.node("Not", {"both"}, {"not_both"});
  b.node("Not", {"not_both"}, {"keep"});
  b.node("Mul", {"ids", "ids"}, {"sq"});
  b.node("Abs", {"ids"}, {"abs"});
  b.node("Add", {"sq", "abs"}, {"score"});
  b.output("keep").output("score");
  return b.save(dir, "int_bool.onnx");
}

io::NamedTensors inputs() {
  TensorData mask(DType::Bool, {5});
  const uint8_t m[] = {1, 0, 1, 1, 0};
  std::copy(m, m + 5, mask.raw());
  return {{"ids", TensorData::from<int64_t>({2, 5}, {-7, 4, 3, 9, 12, 5000000000LL, -3, 0, 4, 100})},
          {"mask", mask}};
}

class IntBoolIo : public ::testing::TestWithParam<std::string> {};

TEST_P(IntBoolIo, HeaderMetadataAndArenaDescribeTheTypes) {
  TempDir dir("mlipc-intbool");
  driver::CompileOptions opt;
  opt.target = GetParam();
  driver::CompileResult r = driver::compile_model(int_bool_model(dir.path()), opt);
  const std::string header = r.files.at("codegen/host/include/tvmgen_default.h");
  EXPECT_THAT(header, HasSubstr("#define TVMGEN_DEFAULT_IDS_SIZE 80"));
  EXPECT_THAT(header, HasSubstr("#define TVMGEN_DEFAULT_MASK_SIZE 5"));
  EXPECT_THAT(header, HasSubstr("#define TVMGEN_DEFAULT_KEEP_SIZE 10"));
  EXPECT_THAT(header, HasSubstr("#define TVMGEN_DEFAULT_SCORE_SIZE 80"));
  const nlohmann::json md = nlohmann::json::parse(r.files.at("metadata.json"));
  const auto& fn = md["modules"]["default"]["memory"]["functions"]["main"][0];
  EXPECT_EQ(fn["inputs"]["ids"]["dtype"], "int64");
  EXPECT_EQ(fn["inputs"]["mask"]["dtype"], "bool");
  EXPECT_EQ(fn["outputs"]["keep"]["dtype"], "bool");
  EXPECT_EQ(fn["outputs"]["score"]["dtype"], "int64");
  // The intermediate tensors live in the arena at their own sizes: bool
  // [2,5] takes 10 bytes, int64 [2,5] 80.
  std::map<std::string, size_t> sizes;
  for (const auto& b : r.module.liveness.buffers) sizes[b.name] = b.size;
  EXPECT_EQ(sizes.at("gt"), 10u);
  EXPECT_EQ(sizes.at("sq"), 80u);
  EXPECT_GE(r.module.workspace_size, r.module.workspace_lower_bound);
}

TEST_P(IntBoolIo, RunsThroughTheCommandLineWithNpzInAndOut) {
  TempDir dir("mlipc-intbool");
  const fs::path model = int_bool_model(dir.path());
  io::write_npz(dir.path() / "in.npz", inputs());
  auto mlipc = [&](std::vector<std::string> args) {
    args.insert(args.begin(), MLIPC_BINARY);
    ProcessResult p = run_process(args, dir.path(), 600);
    EXPECT_EQ(p.exit_code, 0) << p.err;
    return p;
  };
  mlipc({"compile", model.string(), "--target", GetParam(), "-o", (dir.path() / "m.tar").string()});
  mlipc({"run", (dir.path() / "m.tar").string(), "--inputs", (dir.path() / "in.npz").string(), "--outputs",
         (dir.path() / "out.npz").string()});
  const io::NamedTensors got = io::read_npz(dir.path() / "out.npz");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].first, "keep");
  EXPECT_EQ(got[1].first, "score");
  TensorData keep(DType::Bool, {2, 5});
  const uint8_t k[] = {0, 0, 0, 1, 0, 1, 0, 0, 1, 0};
  std::copy(k, k + 10, keep.raw());
  EXPECT_EQ(got[0].second, keep);
  // 5e9 * 5e9 wraps in int64, as numpy's does.
  const int64_t wrapped = static_cast<int64_t>(5000000000ULL * 5000000000ULL + 5000000000ULL);
  EXPECT_EQ(got[1].second, TensorData::from<int64_t>({2, 5}, {56, 20, 12, 90, 156, wrapped, 12, 0, 20, 10100}));
  // And the reference evaluator agrees with every element.
  const io::NamedTensors want = reference_run(model, inputs());
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(compare(got[i].second, want[i].second, 0, 0), "");
}

INSTANTIATE_TEST_SUITE_P(Targets, IntBoolIo, ::testing::Values("c", "mrvl, c"),
                         [](const auto& info) { return info.param == "c" ? std::string("c") : std::string("mrvl"); });

}  // namespace
}  // namespace mlipc::test::e2e_int_bool_io
