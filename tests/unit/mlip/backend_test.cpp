// The MLIP backend's results: the typed region a sub-graph node keeps, the
// pinning decision (a layer whose plan cannot read pinned weights streams
// them), and the report that metadata.json carries and inspect reads back.
#include <memory>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "driver/compile.h"
#include "mlip/backend.h"
#include "mlip/report.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_mlip_backend {
namespace {

using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("backend_{}.onnx", k++));
}

using test::mrvl_options;

// conv -> relu -> flatten -> gemm: one region.
fs::path small_cnn() {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 3, 8, 8});
  b.initializer("w", random_tensor(DType::Float32, {4, 3, 3, 3}, 1));
  b.initializer("b", random_tensor(DType::Float32, {4}, 2));
  b.initializer("wf", random_tensor(DType::Float32, {64, 5}, 3));
  b.node("Conv", {"x", "w", "b"}, {"c"}, {{"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}}, "conv");
  b.node("Relu", {"c"}, {"r"}, {}, "relu");
  b.node("Flatten", {"r"}, {"f"}, {}, "flat");
  b.node("MatMul", {"f", "wf"}, {"y"}, {}, "fc");
  b.output("y");
  return save(b);
}

TEST(MlipBackend, TheSubgraphNodeKeepsTheCompiledRegion) {
  driver::CompileResult r = driver::compile_model(small_cnn(), mrvl_options(2, true));
  ASSERT_EQ(r.graph.nodes.size(), 1u);
  const Node& n = r.graph.nodes[0];
  const auto* region = dynamic_cast<const mlip::CompiledRegion*>(n.compiled.get());
  ASSERT_NE(region, nullptr);
  ASSERT_EQ(r.mlip.regions.size(), 1u);
  EXPECT_EQ(region, r.mlip.regions[0].get());
  EXPECT_EQ(region->report.name, "tvmgen_mrvl_main_0");
  // convert_in, conv2d, fc (which writes the [N, K] output itself, its DMA
  // converting), and the weight loading.
  EXPECT_EQ(region->num_layers, 4u);
  EXPECT_EQ(region->report.layers.size(), 3u);
  EXPECT_EQ(region->sim_ocm_bytes, 2u * region->report.ocm_size);
  EXPECT_FALSE(region->hardware);
  EXPECT_THAT(region->report.pinned, ElementsAre("conv", "fc"));
  const std::string& bin = r.files.at("mlip/tvmgen_mrvl_main_0.bin");
  EXPECT_EQ(std::string(region->command_buffer.begin(), region->command_buffer.end()), bin);
  EXPECT_EQ(region->report.bin_size, bin.size());
}

// A dense layer whose weights fit the pinned range but whose pass, reading
// them pinned, would not fit the working half of the OCM (its reduction
// would need several passes) streams its weights: 262080 inputs, one
// output, a bias: the slice is 524160 + 128 bytes, exactly the 512 KiB
// pinned range; the pass 524160 + 128 + 128 bytes, above the 512 KiB working
// area.
TEST(MlipBackend, ADenseLayerThatCannotReadPinnedWeightsStreamsThem) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 262080});
  b.initializer("w", random_tensor(DType::Float32, {262080, 1}, 4));
  b.initializer("bias", random_tensor(DType::Float32, {1}, 5));
  b.node("Gemm", {"x", "w", "bias"}, {"y"}, {}, "fc").output("y");
  driver::CompileResult r = driver::compile_model(save(b), mrvl_options(1, true));
  ASSERT_EQ(r.mlip.regions.size(), 1u);
  const mlip::RegionReport& rep = r.mlip.regions[0]->report;
  EXPECT_TRUE(rep.pinned.empty());
  EXPECT_THAT(rep.streamed, ElementsAre("fc"));
  EXPECT_EQ(rep.pinned_bytes, 0u);
  EXPECT_GT(rep.layers[1].passes, 1);  // the reduction in chunks
}

TEST(MlipBackend, TheReportReadsBackAsWritten) {
  driver::CompileResult r = driver::compile_model(small_cnn(), mrvl_options(4, true));
  const mlip::Options& o = r.mlip_options;  // the user's, with the quantization the driver chose
  const nlohmann::json j = mlip::to_json(r.mlip.report(o));
  const mlip::MlipReport back = mlip::report_from_json(j);
  EXPECT_EQ(mlip::to_json(back), j);
  ASSERT_EQ(back.regions.size(), 1u);
  EXPECT_EQ(back.regions[0].layers[1].kind, "conv2d");
  EXPECT_EQ(back.target.clock_mhz, 1000u);
  // What metadata.json holds is this report.
  nlohmann::json md = nlohmann::json::parse(r.files.at("metadata.json"));
  EXPECT_EQ(md["modules"]["default"]["mlip"], j);
  // A damaged field is named.
  nlohmann::json bad = j;
  bad["regions"][0]["layers"][1].erase("est_cycles");
  try {
    mlip::report_from_json(bad);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("region 0 'tvmgen_mrvl_main_0' layer 1 has no \"est_cycles\""));
  }
  bad = j;
  bad["num_tiles"] = "four";
  try {
    mlip::report_from_json(bad);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("\"num_tiles\" has the wrong type (string)"));
  }
}

TEST(MlipOptions, ParsedAndValidatedInOnePlace) {
  mlip::Options o = mlip::parse_options("cnf10kb", "4", "hw -wb_pin_ocm=1");
  EXPECT_EQ(o.num_tiles, 4);
  EXPECT_TRUE(o.hardware);
  EXPECT_TRUE(o.wb_pin_ocm);
  const mlip::TargetInfo& t = mlip::target_info("cnf10kb");
  EXPECT_EQ(mlip::working_ocm_bytes(t, o) + mlip::pinned_ocm_bytes(t, o), t.ocm_bytes);
  EXPECT_EQ(mlip::working_ocm_bytes(t, o), t.ocm_bytes / 2);
  o.wb_pin_ocm = false;
  EXPECT_EQ(mlip::working_ocm_bytes(t, o), t.ocm_bytes);
  EXPECT_EQ(mlip::pinned_ocm_bytes(t, o), 0u);
  EXPECT_THROW(mlip::parse_options("cnf10kb", "8", ""), Error);
  EXPECT_THROW(mlip::parse_options("cn10ka", "3", ""), Error);
  EXPECT_THROW(mlip::parse_options("cn10ka", "8x", ""), Error);
  EXPECT_THROW(mlip::parse_options("cn9k", "8", ""), Error);
}

}  // namespace
}  // namespace mlipc::unit_mlip_backend
