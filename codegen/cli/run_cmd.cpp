// mlipc run model.tar --inputs in.npz [--outputs out.npz] [--print-top N] [--profile]
#include <algorithm>
#include <iterator>
#include <memory>
#include <map>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/format.h"
#include "cli/mesh_cmd.h"
#include "cli/npz_inputs.h"
#include "cli/number_option.h"
#include "cli/profile.h"
#include "cli/report.h"
#include "cli/runner.h"
#include "driver/cross.h"
#include "host/cross_build.h"
#include "host/host_model.h"
#include "host/remote_client.h"
#include "io/npz.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/limits.h"
#include "support/text.h"

namespace fs = std::filesystem;

namespace mlipc::cli {

namespace {

// A damaged metadata.json is one line naming the tarball, not a JSON
// library's exception text (the typed MLIP report names what is wrong).
template <class F>
auto or_damaged(const std::string& tarball, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const nlohmann::json::exception& e) {
    fail("{}: metadata.json is damaged ({})", tarball, mlf::json_error_reason(e));
  } catch (const Error& e) {
    fail("{}: {}", tarball, e.what());
  }
}

// --number x --repeat: the host program prints a line per run.
constexpr int64_t kMaxRuns = 1000000;

struct RunArgs {
  std::string tarball;
  std::string inputs;
  std::string outputs;
  int print_top = 0;
  bool profile = false;
  std::string report;  // --report: the HTML report with the measured host times (cli/report.h)
  int number = 1;  // tvmc: runs per measurement
  int repeat = 1;  // tvmc: measurements
  bool print_time = false;
  std::string fill_mode = "random";
  int timeout = limits::kDefaultRunSeconds;
  int build_timeout = limits::kDefaultBuildSeconds;
  std::string remote;      // --remote host:port: run on `mlipc serve` there
  std::string token_file;  // --remote-token-file
};

// The numeric options as the command line gives them (cli/number_option.h
// reads them into RunArgs, each with its range).
struct RunNumbers {
  std::string print_top = "0", number = "1", repeat = "1";
  std::string timeout = std::to_string(limits::kDefaultRunSeconds);
  std::string build_timeout = std::to_string(limits::kDefaultBuildSeconds);

  void read_into(RunArgs& a) const {
    a.print_top = static_cast<int>(parse_whole("--print-top", print_top, 0, kMaxRuns, "values"));
    a.number = static_cast<int>(parse_whole("--number", number, 0, kMaxRuns));
    a.repeat = static_cast<int>(parse_whole("--repeat", repeat, 1, kMaxRuns));
    a.timeout = static_cast<int>(parse_whole("--timeout", timeout, 1, limits::kMaxSeconds, "seconds"));
    a.build_timeout = static_cast<int>(parse_whole("--build-timeout", build_timeout, 1, limits::kMaxSeconds, "seconds"));
  }
};

void print_top(std::string& text, const io::NamedTensors& outs, int k) {
  auto out = std::back_inserter(text);
  const auto& [name, t] = outs.front();
  std::vector<double> v = t.as_double();
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  const size_t n = std::min(idx.size(), static_cast<size_t>(k));
  std::partial_sort(idx.begin(), idx.begin() + static_cast<long>(n), idx.end(),
                    [&](size_t a, size_t b) { return v[a] > v[b] || (v[a] == v[b] && a < b); });
  fmt::format_to(out, "top {} of output '{}' {}:\n", n, printable(name), shape_str(t.shape()));
  for (size_t i = 0; i < n; ++i) fmt::format_to(out, "  #{}  index {:>5}  value {:.6g}\n", i + 1, idx[i], v[idx[i]]);
}

// tvmc's --fill-mode for the inputs when --inputs is absent: zeros, ones, or
// random as tvmc draws it (floats uniform in [-1, 1); int8 and uint8 0 to
// 127; other integers and bool get the float values converted, as numpy's
// astype does), from a fixed seed so that two runs see the same inputs.
io::NamedTensors fill_inputs(const mlf::Metadata& md, const std::string& mode) {
  io::NamedTensors inputs;
  std::mt19937 rng(0);
  for (const auto& in : md.inputs) {
    const int64_t n = numel(in.shape);
    std::vector<double> v(static_cast<size_t>(n), mode == "ones" ? 1.0 : 0.0);
    if (mode == "random") {
      const bool byte = in.dtype == DType::Int8 || in.dtype == DType::UInt8;
      std::uniform_real_distribution<double> uniform(-1.0, 1.0);
      std::uniform_int_distribution<int> small(0, 127);
      for (double& x : v) x = byte ? small(rng) : uniform(rng);
    }
    inputs.emplace_back(in.name, TensorData::from<double>(in.shape, v).cast(in.dtype));
  }
  return inputs;
}

// tvmc's --print-time: the statistics of the measurements (each the mean of
// --number runs), in milliseconds.
void print_times(std::string& text, const std::vector<double>& run_ns, int number, int repeat) {
  std::vector<double> ms;
  const size_t first = run_ns.size() - static_cast<size_t>(number) * static_cast<size_t>(repeat);  // after the warm-up
  for (int k = 0; k < repeat; ++k) {
    double sum = 0;
    for (int j = 0; j < number; ++j) sum += run_ns[first + static_cast<size_t>(k * number + j)];
    ms.push_back(sum / number / 1e6);
  }
  const double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  double var = 0;
  for (double x : ms) var += (x - mean) * (x - mean);
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const size_t h = sorted.size() / 2;
  const double median = sorted.size() % 2 ? sorted[h] : (sorted[h - 1] + sorted[h]) / 2;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "Execution time summary:\n");
  fmt::format_to(out, "{:^12} {:^12} {:^12} {:^12} {:^12}\n", "mean (ms)", "median (ms)", "max (ms)", "min (ms)", "std (ms)");
  fmt::format_to(out, "{:^12.4f} {:^12.4f} {:^12.4f} {:^12.4f} {:^12.4f}\n", mean, median, sorted.back(), sorted.front(),
                 std::sqrt(var / static_cast<double>(ms.size())));
}

// What --report adds: the measured host time of each schedule step (a CPU
// layer, or an MLIP region as a whole) and of each MLIP layer.
ReportTimes times_of(const host::RunResult& r) {
  ReportTimes t;
  for (const host::LayerTime& l : r.layers) {
    if (l.layer < 0) continue;
    if (t.step_ns.size() <= static_cast<size_t>(l.layer)) t.step_ns.resize(static_cast<size_t>(l.layer) + 1);
    t.step_ns[static_cast<size_t>(l.layer)] = l.ns;
  }
  for (const host::MlipLayerTime& m : r.mlip_layers) t.mlip_layer_ns[{m.region, m.layer}] = m.ns;
  return t;
}

void run_run(const RunArgs& a) {
  if (a.print_time && a.number == 0)
    fail("--print-time needs --number 1 or more: with --number 0 the model runs once and nothing is timed");
  if (static_cast<int64_t>(a.number) * a.repeat > kMaxRuns)
    fail("--number {} x --repeat {} is more than {} runs", a.number, a.repeat, kMaxRuns);
  if (a.fill_mode != "zeros" && a.fill_mode != "ones" && a.fill_mode != "random")
    fail("--fill-mode '{}' (allowed: zeros, ones, random)", a.fill_mode);
  if (!a.token_file.empty() && a.remote.empty()) fail("--remote-token-file needs --remote host:port");
  // The tarball is read and unpacked once (ResNet-18's is 180 MB); its
  // members are kept until check_tarball below.
  const std::string bytes = read_file(a.tarball);
  std::optional<mlf::FileMap> files = mlf::read_tar_bytes(bytes, a.tarball);
  if (is_mesh(*files)) {  // a pipeline across PEs (docs/mesh.md)
    if (!a.remote.empty()) fail("{}: --remote runs one model's runner, not a mesh's stages", a.tarball);
    if (a.profile || !a.report.empty() || a.print_top > 0 || a.print_time || a.number != 1 || a.repeat != 1)
      fail("{}: a mesh tarball takes --inputs, --outputs and the timeouts only (not --profile, --report, --print-top, "
           "--print-time, --number, --repeat; mlipc report draws its stages)",
           a.tarball);
    fmt::print("{}", run_mesh({a.tarball, a.inputs, a.outputs, a.timeout, a.build_timeout}));
    return;
  }
  // Refused before any work: a device, a FIFO, the tarball or the inputs.
  if (!a.outputs.empty()) check_output_path(a.outputs, {a.tarball, a.inputs}, "--outputs");
  if (!a.report.empty()) {
    if (!a.profile) fail("--report needs --profile: the report adds the host times --profile measures");
    std::vector<fs::path> inputs = {a.tarball};
    if (!a.inputs.empty()) inputs.push_back(a.inputs);
    if (!a.outputs.empty()) inputs.push_back(a.outputs);
    check_report_path(a.report, inputs, "--report");
  }
  // The inputs first: a bad .npz is refused before anything is built.
  const host::CheckedTarball checked = host::check_tarball(*files, a.tarball);
  files.reset();
  const mlf::Metadata& md = checked.metadata;
  io::NamedTensors inputs;
  if (!a.inputs.empty()) {
    inputs = io::read_npz(a.inputs);
    check_run_inputs(inputs, md.inputs, a.inputs, a.tarball);
  }
  // What --profile and --report read of metadata.json is read now: a damaged
  // one fails before the model is built, not after it ran.
  if (a.profile) or_damaged(a.tarball, [&] { (void)profile_of(md, host::RunResult{}); });
  std::optional<InspectData> report_data;
  if (!a.report.empty()) report_data = or_damaged(a.tarball, [&] { return inspect_data(bytes, a.tarball); });
  host::HostModel model = runner_for({a.tarball, a.remote, a.token_file, a.build_timeout}, bytes, checked);
  if (a.inputs.empty()) inputs = fill_inputs(model.metadata(), a.fill_mode);
  // tvmc runs the model once before it measures; --number 0 leaves that run only.
  const int runs = a.number == 0 ? 1 : a.number * a.repeat + (a.print_time ? 1 : 0);
  host::RunResult r = model.run(inputs, runs, a.timeout);
  // Everything is rendered before anything is written or printed: no partial
  // output.
  std::string text, html;
  or_damaged(a.tarball, [&] {
    auto out = std::back_inserter(text);
    if (a.print_top > 0) print_top(text, r.outputs, a.print_top);
    if (a.outputs.empty() && a.print_top <= 0)
      for (const auto& [name, t] : r.outputs)
        fmt::format_to(out, "output '{}' {} {}\n", printable(name), dtype_name(t.dtype()), shape_str(t.shape()));
    if (a.profile) print_profile(text, profile_of(model.metadata(), r));
    if (r.remote)
      fmt::format_to(out, "remote {}: {} run(s) in {:.3f} ms wall, {:.3f} ms CPU (measured on the server around the runner)\n",
                     host::parse_endpoint(a.remote).shown(), runs, static_cast<double>(r.remote_wall_ns) / 1e6,
                     static_cast<double>(r.remote_cpu_ns) / 1e6);
    if (report_data) {
      const ReportTimes times = times_of(r);
      html = render_report(*report_data, &times);
    }
    if (a.print_time) {
      if (r.run_ns.size() != static_cast<size_t>(runs)) fail("{}: the model reported {} run times, not {}", a.tarball, r.run_ns.size(), runs);
      print_times(text, r.run_ns, a.number, a.repeat);
    }
  });
  if (!a.outputs.empty()) io::write_npz(a.outputs, r.outputs);
  if (!a.report.empty()) write_report(a.report, html);
  fmt::print("{}", text);
}

}  // namespace

void add_run(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto numbers = std::make_shared<RunNumbers>();
  CLI::App* c = app.add_subcommand("run", "run a compiled tarball on this machine (host emulation)");
  c->add_option("tarball", args->tarball, "the tarball written by mlipc compile (anywhere on the line)");
  c->add_option("-i,--inputs", args->inputs, "input arrays (.npz) keyed by the model's input names");
  c->add_option("-o,--outputs", args->outputs, "where to write the outputs (.npz), keyed by output names");
  c->add_option("--print-top", numbers->print_top, "print the N largest values of the first output");
  c->add_flag("--profile", args->profile, "print the time of each layer");
  c->add_option("--report", args->report,
                "with --profile: also write the HTML report of the tarball with the measured host times");
  c->add_option("--number", numbers->number,
                "runs per measurement, as tvmc (default 1); 0: run once, measure nothing");
  c->add_option("--repeat", numbers->repeat, "measurements, each the mean of --number runs, as tvmc (default 1)");
  c->add_flag("--print-time", args->print_time,
              "print mean, median, max, min and std of the measurements in ms (after one warm-up run)");
  c->add_option("--fill-mode", args->fill_mode,
                "without --inputs, fill the inputs with zeros, ones or random values (default random, fixed seed)");
  c->add_option("--timeout", numbers->timeout, "kill the model after this many seconds (default 600)");
  c->add_option("--build-timeout", numbers->build_timeout,
                "give up building the tarball after this many seconds per compiler run (default 600)");
  c->add_option("--remote", args->remote,
                "host:port of `mlipc serve` on the target board: run the cross-built runner there");
  c->add_option("--remote-token-file", args->token_file, "with --remote: the file holding the server's token");
  c->allow_extras();
  c->callback([args, numbers, c] {
    refuse_extras(*c);
    require_positional(args->tarball, *c, "a tarball");
    numbers->read_into(*args);
    run_run(*args);
  });
}

}  // namespace mlipc::cli
