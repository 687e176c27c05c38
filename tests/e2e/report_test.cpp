// mlipc report (issue 28): the page of the digits model for c and "mrvl, c"
// has one graph box per ONNX node that runs and one rectangle per arena
// buffer (counted against inspect --json, the same data), compile --report
// writes the same page, run --profile --report adds the host times, every
// string from the model is escaped, nothing in the page leaves the file,
// and bad input gives one line and no page. tests/browser opens the pages
// in headless Chromium.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <set>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "io/npz.h"
#include "ir/tensor_data.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/onnx_builder.h"

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace mlipc::test::e2e_report {
namespace {

const fs::path kDigits = fs::path(MLIPC_EXAMPLES) / "digits" / "model.onnx";

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size())) ++n;
  return n;
}

// The values of attribute `attr` of every element whose text starts `start`.
std::multiset<std::string> attrs(const std::string& html, const std::string& start, const std::string& attr) {
  std::multiset<std::string> v;
  for (size_t p = html.find(start); p != std::string::npos; p = html.find(start, p + 1)) {
    const size_t a = html.find(" " + attr + "=\"", p);
    const size_t close = html.find('>', p);
    if (a == std::string::npos || a > close) continue;
    const size_t b = a + attr.size() + 3;
    v.insert(html.substr(b, html.find('"', b) - b));
  }
  return v;
}

std::string unescape(std::string s) {
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}}) {
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  }
  return s;
}

struct Report : public ::testing::Test {
  TempDir dir{"mlipc-report"};
  fs::path p(const std::string& name) const { return dir.path() / name; }

  ProcessResult mlipc(std::vector<std::string> args) const {
    args.insert(args.begin(), MLIPC_BINARY);
    return run_process(args, dir.path(), 600);
  }
  fs::path compile(const fs::path& model, const std::string& name, std::vector<std::string> more = {}) const {
    std::vector<std::string> args = {"compile", model.string(), "-o", p(name + ".tar").string()};
    args.insert(args.end(), more.begin(), more.end());
    const ProcessResult r = mlipc(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return p(name + ".tar");
  }
  std::string report(const fs::path& tar, const std::string& html) const {
    const ProcessResult r = mlipc({"report", tar.string(), "-o", p(html).string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return fs::exists(p(html)) ? read_file(p(html)) : "";
  }
  json inspect(const fs::path& tar) const {
    const ProcessResult r = mlipc({"inspect", "--json", tar.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out);
  }
  std::string expect_error(const ProcessResult& r) const {
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(r.signal, 0);
    EXPECT_THAT(r.err, StartsWith("mlipc: error: "));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    return r.err;
  }
  // No file but `keep` in the folder: no page, no temporary file left.
  void expect_only(const std::set<std::string>& keep) const {
    for (const auto& e : fs::directory_iterator(dir.path()))
      EXPECT_TRUE(keep.count(e.path().filename().string())) << "left behind: " << e.path();
  }
};

// The ONNX node names that run: inspect --json's CPU layers' and MLIP
// layers' source nodes ("NAME (Op)"), and the compiled graph's (its views').
std::multiset<std::string> running_nodes(const json& j, const std::string& graph) {
  std::set<std::string> origins;
  for (size_t p = graph.find("\n    from "); p != std::string::npos; p = graph.find("\n    from ", p + 1)) {
    const size_t b = p + 10;
    origins.insert(graph.substr(b, graph.find('\n', b) - b));
  }
  for (const json& s : j["schedule"]) {
    if (s["where"] == "cpu")
      for (const json& o : s["onnx_nodes"]) origins.insert(o.get<std::string>());
    else
      for (const json& l : s["region"]["layers"])
        for (const json& o : l["onnx_nodes"]) origins.insert(o.get<std::string>());
  }
  std::multiset<std::string> names;
  for (const std::string& o : origins) names.insert(o.substr(0, o.rfind(" (")));
  return names;
}

// Self-contained: the CSP that forbids any request, and no URL but the SVG
// namespace.
void expect_self_contained(const std::string& html) {
  EXPECT_THAT(html, HasSubstr("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                              "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"));
  std::string rest = html;
  for (size_t p = rest.find("http://www.w3.org/2000/svg"); p != std::string::npos;
       p = rest.find("http://www.w3.org/2000/svg"))
    rest.erase(p, 26);
  EXPECT_EQ(rest.find("http://"), std::string::npos);
  EXPECT_EQ(rest.find("https://"), std::string::npos);
  EXPECT_EQ(count(html, "<script"), 1u);  // the page's own, inline
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
}

TEST_F(Report, DigitsOneBoxPerNodeAndOneRectanglePerBuffer) {
  for (const std::string target : {"c", "mrvl, c"}) {
    SCOPED_TRACE(target);
    const std::string name = target == "c" ? "c" : "mrvl";
    const fs::path tar = compile(kDigits, name, {"--target", target});
    const json j = inspect(tar);
    const std::string html = report(tar, name + ".html");
    ASSERT_FALSE(html.empty());
    std::multiset<std::string> boxes, running, folded;
    for (const std::string& b : attrs(html, "<g class=\"node ", "data-node")) boxes.insert(unescape(b));
    for (const std::string& b : attrs(html, "<g class=\"node folded\"", "data-node")) folded.insert(unescape(b));
    for (const std::string& b : boxes)
      if (!folded.count(b)) running.insert(b);
    const ProcessResult graph = run_process({"tar", "xOf", tar.string(), "./src/default.graph"}, dir.path(), 60);
    ASSERT_EQ(graph.exit_code, 0) << graph.err;
    EXPECT_EQ(running, running_nodes(j, graph.out));
    EXPECT_EQ(boxes.count("/Reshape_4"), 1u);  // a view on c, fused into the fc layer on the MLIP
    // Every ONNX node of the model is one box: those that run in the
    // graph, the others under "Folded at compile time".
    const ProcessResult md = run_process({"tar", "xOf", tar.string(), "./metadata.json"}, dir.path(), 60);
    ASSERT_EQ(md.exit_code, 0) << md.err;
    const json metadata = json::parse(md.out);
    std::multiset<std::string> all;
    for (const json& o : metadata.at("modules").at("default").at("mlipc").at("onnx_node_names")) {
      const std::string origin = o.get<std::string>();
      all.insert(origin.substr(0, origin.rfind(" (")));
    }
    EXPECT_EQ(all.size(), 44u);  // the digits CNN's nodes
    EXPECT_EQ(boxes, all);
    EXPECT_EQ(folded.size(), 44u - running.size());
    EXPECT_EQ(count(html, "<g class=\"node "), boxes.size());
    EXPECT_EQ(count(html, "<rect class=\"buf\""), j["memory"]["buffers"].size());
    EXPECT_GT(j["memory"]["buffers"].size(), 0u);
    EXPECT_EQ(count(html, "<line class=\"lower-bound\""), 1u);
    EXPECT_EQ(count(html, "<g class=\"cluster\">"), target == "c" ? 0u : 1u);
    EXPECT_THAT(html, HasSubstr(target == "c" ? "<g class=\"node cpu\"" : "<g class=\"node mlip\""));
    EXPECT_THAT(html, HasSubstr(" 44, 31 folded at compile time"));  // the digits CNN's nodes, folded ones too
    expect_self_contained(html);
    // compile --report writes the same page as report.
    const ProcessResult r = mlipc({"compile", kDigits.string(), "--target", target, "-o", tar.string(), "--report",
                                   p(name + "-compile.html").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("  report     "));
    EXPECT_EQ(read_file(p(name + "-compile.html")), html);
  }
}

TEST_F(Report, MrvlBorderConversionsAndOcmPerTile) {
  const fs::path tar = compile(kDigits, "m", {"--target", "mrvl, c", "--target-mrvl-num_tiles", "2"});
  const std::string html = report(tar, "m.html");
  // convert_in (the image transposed to NHWC); the [1, 10] output the last
  // layer writes itself, converting on its way out
  EXPECT_EQ(count(html, "<tr class=\"layer-row border mlip\">"), 1u);
  EXPECT_EQ(count(html, "<tr class=\"tile\">"), 2u);
  EXPECT_THAT(html, HasSubstr("estimated MLIP cycles"));
  EXPECT_THAT(html, HasSubstr("MACs on the MLIP: 2,210,304 of 2,210,304"));
}

// A mesh: the stages with their cycles, then each stage's graph; every
// running node is drawn once, in the stage that runs it.
TEST_F(Report, MeshStagesAndTheirGraphs) {
  const fs::path tar = compile(kDigits, "mesh", {"--target", "mrvl, c", "--pes", "2"});
  const std::string html = report(tar, "mesh.html");
  const json j = inspect(tar);
  EXPECT_EQ(count(html, "<tr class=\"stage-row\">"), j["stages"].size());
  EXPECT_EQ(count(html, "<h2 class=\"stage\">"), j["stages"].size());
  for (const json& st : j["stages"])
    EXPECT_THAT(html, HasSubstr(fmt::format("<span>{}</span>", st["est_cycles"].get<uint64_t>() >= 1000
                                                                ? fmt::format("{},{:03}", st["est_cycles"].get<uint64_t>() / 1000,
                                                                              st["est_cycles"].get<uint64_t>() % 1000)
                                                                : std::to_string(st["est_cycles"].get<uint64_t>()))));
  const std::string single = report(compile(kDigits, "one", {"--target", "mrvl, c"}), "one.html");
  EXPECT_EQ(attrs(html, "<g class=\"node ", "data-node"), attrs(single, "<g class=\"node ", "data-node"));
  expect_self_contained(html);
}

// An int8 PTQ build: a row per quantized layer with its SQNR.
TEST_F(Report, PtqSqnrPerLayer) {
  io::NamedTensors calib;
  for (const auto& [name, t] : io::read_npz(fs::path(MLIPC_TEST_DATA) / "ptq" / "digits_calib200.npz")) {
    Shape shape = t.shape();
    const size_t bytes = t.nbytes() / static_cast<size_t>(shape[0]) * 16;
    shape[0] = 16;  // 16 samples: the report is the subject, not the accuracy
    const auto* raw = reinterpret_cast<const uint8_t*>(t.raw());
    calib.emplace_back(name, TensorData(t.dtype(), shape, std::vector<uint8_t>(raw, raw + bytes)));
  }
  io::write_npz(p("calib16.npz"), calib);
  const fs::path tar = compile(kDigits, "ptq",
                               {"--target", "mrvl, c", "--target-mrvl-mattr=sim -quantize=int8", "--calibration",
                                p("calib16.npz").string()});
  const json j = inspect(tar);
  const std::string html = report(tar, "ptq.html");
  ASSERT_FALSE(j["quantization"].is_null());
  EXPECT_EQ(count(html, "<tr class=\"sqnr-row"), j["quantization"]["layers"].size());
  EXPECT_GT(count(html, "class=\"b-sqnr\""), 0u);
  EXPECT_THAT(html, HasSubstr("minmax calibration, 16 samples"));
}

// Node names are hostile input: every one is escaped, in the boxes, their
// titles, the tables and the memory plan.
TEST_F(Report, HostileNamesAreEscaped) {
  const std::string evil = "<script>alert(1)</script>";
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 4});
  b.node("Relu", {"x"}, {"y"}, {}, evil);
  b.node("Sigmoid", {"y"}, {"z"}, {}, "a\"b'c&d<e>");
  b.output("z");
  const fs::path model = b.save(dir.path());
  for (const std::string target : {"c", "mrvl, c"}) {
    SCOPED_TRACE(target);
    const fs::path tar = compile(model, "evil", {"--target", target});
    const std::string html = report(tar, "evil.html");
    ASSERT_FALSE(html.empty());
    EXPECT_EQ(html.find(evil), std::string::npos);
    EXPECT_EQ(html.find("alert(1)</"), std::string::npos);
    EXPECT_EQ(html.find("a\"b'c&d<e>"), std::string::npos);
    EXPECT_THAT(html, HasSubstr("data-node=\"&lt;script&gt;alert(1)&lt;/script&gt;\""));
    EXPECT_THAT(html, HasSubstr("data-node=\"a&quot;b&#39;c&amp;d&lt;e&gt;\""));
    EXPECT_EQ(count(html, "<script"), 1u);
    fs::remove(p("evil.html"));
  }
}

TEST_F(Report, RunProfileReportAddsHostTimes) {
  const fs::path tar = compile(kDigits, "m", {"--target", "mrvl, c"});
  const ProcessResult r = mlipc({"run", tar.string(), "--profile", "--report", p("run.html").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read_file(p("run.html"));
  EXPECT_THAT(html, HasSubstr("<th>host time (us, measured)</th>"));
  EXPECT_GT(count(html, "class=\"b-host\""), 0u);
  const std::string plain = report(tar, "plain.html");
  EXPECT_EQ(plain.find("host time (us, measured)"), std::string::npos);
  // --report needs --profile, and is refused before anything runs.
  EXPECT_THAT(expect_error(mlipc({"run", tar.string(), "--report", p("x.html").string()})), HasSubstr("--profile"));
  EXPECT_FALSE(fs::exists(p("x.html")));
}

TEST_F(Report, BadInputGivesOneLineAndNoPage) {
  EXPECT_THAT(expect_error(mlipc({"report", "missing.tar", "-o", "r.html"})), HasSubstr("missing.tar"));
  write_file(p("bad.tar"), std::string(1024, 'x'));
  EXPECT_THAT(expect_error(mlipc({"report", "bad.tar", "-o", "r.html"})), HasSubstr("bad.tar"));
  expect_only({"bad.tar"});
  // A failing report leaves an existing page as it was.
  write_file(p("keep.html"), "old");
  expect_error(mlipc({"report", "bad.tar", "-o", "keep.html"}));
  EXPECT_EQ(read_file(p("keep.html")), "old");
  const fs::path tar = compile(kDigits, "c", {"--target", "c"});
  // Unwritable: a folder that does not exist, a folder, the tarball itself.
  EXPECT_THAT(expect_error(mlipc({"report", tar.string(), "-o", "nodir/r.html"})), HasSubstr("nodir"));
  fs::create_directory(p("adir"));
  expect_error(mlipc({"report", tar.string(), "-o", "adir"}));
  expect_error(mlipc({"report", tar.string(), "-o", tar.string()}));
  expect_only({"bad.tar", "keep.html", "c.tar", "adir"});
  EXPECT_GT(fs::file_size(tar), 0u);
  // compile --report to an unwritable place is refused before compiling.
  EXPECT_THAT(expect_error(mlipc({"compile", kDigits.string(), "-o", "new.tar", "--report", "nodir/r.html"})),
              HasSubstr("nodir"));
  EXPECT_FALSE(fs::exists(p("new.tar")));
  expect_error(mlipc({"report"}));
  expect_error(mlipc({"report", tar.string(), "--bogus"}));
}

}  // namespace
}  // namespace mlipc::test::e2e_report
