// mlipc run model.tar --inputs in.npz [--outputs out.npz] [--print-top N] [--profile]
#include <algorithm>
#include <memory>
#include <numeric>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/format.h"
#include "host/host_model.h"
#include "io/npz.h"
#include "support/error.h"

namespace fs = std::filesystem;

namespace mlipc::cli {

namespace {

struct RunArgs {
  std::string tarball;
  std::string inputs;
  std::string outputs;
  int print_top = 0;
  bool profile = false;
};

void print_top(const io::NamedTensors& outs, int k) {
  const auto& [name, t] = outs.front();
  std::vector<double> v = t.as_double();
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  const size_t n = std::min(idx.size(), static_cast<size_t>(k));
  std::partial_sort(idx.begin(), idx.begin() + static_cast<long>(n), idx.end(),
                    [&](size_t a, size_t b) { return v[a] > v[b] || (v[a] == v[b] && a < b); });
  fmt::print("top {} of output '{}' {}:\n", n, name, shape_str(t.shape()));
  for (size_t i = 0; i < n; ++i) fmt::print("  #{}  index {:>5}  value {:.6g}\n", i + 1, idx[i], v[idx[i]]);
}

void run_run(const RunArgs& a) {
  host::HostModel model = host::HostModel::build(a.tarball);
  io::NamedTensors inputs;
  if (!a.inputs.empty()) inputs = io::read_npz(a.inputs);
  else if (!model.metadata().inputs.empty())
    fail("the model has {} input(s); give them with --inputs FILE.npz", model.metadata().inputs.size());
  host::RunResult r = model.run(inputs);
  if (!a.outputs.empty()) io::write_npz(a.outputs, r.outputs);
  if (a.print_top > 0) print_top(r.outputs, a.print_top);
  if (a.outputs.empty() && a.print_top <= 0)
    for (const auto& [name, t] : r.outputs) fmt::print("output '{}' {} {}\n", name, dtype_name(t.dtype()), shape_str(t.shape()));
  if (a.profile) {
    fmt::print("profile (host time of one run):\n  {:>5}  {:>12}\n", "layer", "host us");
    for (const auto& l : r.layers) fmt::print("  {:>5}  {:>12.1f}\n", l.layer, l.ns / 1000.0);
    fmt::print("  total  {:>12.1f}\n", r.total_ns / 1000.0);
  }
}

}  // namespace

void add_run(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* c = app.add_subcommand("run", "run a compiled tarball on this machine (host emulation)");
  c->add_option("tarball", args->tarball, "the tarball written by mlipc compile")->required();
  c->add_option("--inputs", args->inputs, "input arrays (.npz) keyed by the model's input names");
  c->add_option("--outputs", args->outputs, "where to write the outputs (.npz), keyed by output names");
  c->add_option("--print-top", args->print_top, "print the N largest values of the first output");
  c->add_flag("--profile", args->profile, "print the time of each layer");
  c->callback([args] { run_run(*args); });
}

}  // namespace mlipc::cli
