// mlipc._mlipc: the Python module's native half, over the same libraries as
// the mlipc binary (mlipc_cli: the commands' own code). It takes and gives
// arrays as (name, dtype name, shape, bytes) tuples and raises
// _mlipc.Failure(message, node, op); python/mlipc/__init__.py turns these
// into numpy arrays and mlipc.CompileError / RunError.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "cli/compile_cmd.h"
#include "cli/inspect.h"
#include "cli/inspect_data.h"
#include "cli/mesh_cmd.h"
#include "cli/npz_inputs.h"
#include "cli/profile.h"
#include "cli/runner.h"
#include "host/host_model.h"
#include "io/npz.h"
#include "mlf/archive.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/limits.h"

namespace py = pybind11;
namespace fs = std::filesystem;

namespace mlipc::python {

namespace {

using Array = std::tuple<std::string, std::string, std::vector<int64_t>, py::bytes>;

// Raised for every mlipc::Error: args (message, node, op), node and op None
// unless the error is at a node of the model (NodeError).
PyObject* g_failure = nullptr;

io::NamedTensors to_tensors(const std::vector<Array>& arrays) {
  io::NamedTensors out;
  for (const auto& [name, dtype, shape, bytes] : arrays) {
    const std::string_view data = bytes;
    const DType dt = dtype_from_name(dtype);
    if (dt == DType::Undefined) fail("array '{}' has the dtype {}, which mlipc does not hold", name, dtype);
    out.emplace_back(name, TensorData(dt, Shape(shape.begin(), shape.end()),
                                      std::vector<uint8_t>(data.begin(), data.end())));
  }
  return out;
}

std::vector<Array> to_arrays(const io::NamedTensors& tensors) {
  std::vector<Array> out;
  for (const auto& [name, t] : tensors)
    out.emplace_back(name, std::string(dtype_name(t.dtype())), std::vector<int64_t>(t.shape().begin(), t.shape().end()),
                     py::bytes(reinterpret_cast<const char*>(t.raw()), t.nbytes()));
  return out;
}

// The keyword `key` as one of compile's options: its long name with
// underscores for dashes (workspace_byte_alignment), or the part after
// --target-mrvl- (num_tiles, mcpu, mattr: the guide's partition_for_mrvl
// options). Anything else stays a --key option, which compile refuses with
// the command line's own message.
std::string option_for(const CLI::App& c, const std::string& key) {
  auto norm = [](std::string s) {
    for (char& ch : s)
      if (ch == '-') ch = '_';
    return s;
  };
  for (const std::string& prefix : {std::string(), std::string("target_mrvl_")})
    for (const CLI::Option* o : c.get_options())
      for (const std::string& l : o->get_lnames())
        if (norm(l) == prefix + key) return "--" + l;
  std::string flag = key;
  for (char& ch : flag)
    if (ch == '_') ch = '-';
  return "--" + flag;
}

std::string compile(const std::string& model, const std::string& output,
                    const std::vector<std::pair<std::string, std::vector<std::string>>>& keywords,
                    const std::optional<std::vector<Array>>& calibration) {
  cli::CompileArgs args;
  CLI::App c{"compile an ONNX model into a Model Library Format tarball", "compile"};
  cli::declare_compile_options(c, args);
  std::vector<std::string> tokens = {model, "--output=" + output};
  for (const auto& [key, values] : keywords) {
    const std::string flag = option_for(c, key);
    for (const std::string& v : values) tokens.push_back(flag + "=" + v);
  }
  if (calibration) args.calibration_arrays = to_tensors(*calibration);
  std::reverse(tokens.begin(), tokens.end());  // CLI11 takes them last first
  py::gil_scoped_release unlocked;
  try {
    c.parse(tokens);
  } catch (const CLI::ParseError& e) {
    throw Error(e.what());
  }
  cli::read_compile_args(c, args);
  std::string text = cli::run_compile(args);
  if (!args.report.empty()) text += cli::write_compile_report(args);
  return text;
}

// What `mlipc inspect --json` prints of the tarball at `path` (`name` in
// the report and in errors).
std::string inspect_json(const std::string& path, const std::string& name) {
  return cli::render_inspect_json(cli::inspect_data(read_file(path), name));
}

bool is_mesh(const std::string& path) { return cli::is_mesh(mlf::read_tar(path)); }

// A tarball built once for host emulation (the build cache of `mlipc run`),
// run on each set of inputs.
class Runner {
 public:
  // `remote` (host:port of `mlipc serve`, and its token file) or empty: the
  // program `mlipc run` would choose (cli/runner.h).
  Runner(const std::string& path, const std::string& name, const std::string& remote, const std::string& token_file)
      : name_(name) {
    py::gil_scoped_release unlocked;
    const std::string bytes = read_file(path);
    model_ = std::make_unique<host::HostModel>(
        cli::runner_for({path, remote, token_file, limits::kDefaultBuildSeconds}, bytes, host::check_tarball(bytes, name)));
  }

  std::vector<Array> run(const std::vector<Array>& inputs, int timeout) const {
    return to_arrays(run_raw(inputs, timeout).outputs);
  }

  // Each set of inputs once, in one process (HostModel::run_each).
  std::vector<std::vector<Array>> run_each(const std::vector<std::vector<Array>>& samples, int timeout) const {
    std::vector<io::NamedTensors> given;
    for (const std::vector<Array>& s : samples) given.push_back(to_tensors(s));
    std::vector<io::NamedTensors> outs;
    {
      py::gil_scoped_release unlocked;
      for (size_t i = 0; i < given.size(); ++i)
        cli::check_run_inputs(given[i], model_->metadata().inputs, fmt::format("inputs of sample {}", i), name_);
      outs = model_->run_each(given, timeout);
    }
    std::vector<std::vector<Array>> arrays;
    for (const io::NamedTensors& o : outs) arrays.push_back(to_arrays(o));
    return arrays;
  }

  // `mlipc run --profile`'s rows, and the outputs.
  std::pair<std::vector<py::dict>, std::vector<Array>> profile(const std::vector<Array>& inputs, int timeout) const {
    const host::RunResult r = run_raw(inputs, timeout);
    cli::Profile p;
    try {
      p = cli::profile_of(model_->metadata(), r);
    } catch (const nlohmann::json::exception& e) {
      fail("{}: metadata.json is damaged ({})", name_, mlf::json_error_reason(e));
    }
    std::vector<py::dict> rows;
    for (const cli::ProfileRow& row : p.rows) {
      py::dict d;
      d["region"] = row.region;
      d["layer"] = row.layer;
      d["onnx_nodes"] = row.onnx_nodes;
      d["macs"] = row.macs ? py::object(py::int_(*row.macs)) : py::none();
      d["cycles"] = row.cycles ? py::object(py::int_(*row.cycles)) : py::none();
      d["host_us"] = row.host_us;
      rows.push_back(std::move(d));
    }
    return {rows, to_arrays(r.outputs)};
  }

 private:
  host::RunResult run_raw(const std::vector<Array>& inputs, int timeout) const {
    const io::NamedTensors given = to_tensors(inputs);
    py::gil_scoped_release unlocked;
    cli::check_run_inputs(given, model_->metadata().inputs, "inputs", name_);
    return model_->run(given, 1, timeout);
  }

  std::string name_;
  std::unique_ptr<host::HostModel> model_;
};

// A mesh tarball (--pes) through `mlipc run`'s pipeline: its inputs and
// outputs are .npz files in `dir` (run_mesh reads and writes files); its
// summary is not printed.
std::vector<Array> run_mesh(const std::string& path, const std::vector<Array>& inputs, const std::string& dir,
                            int timeout) {
  const io::NamedTensors given = to_tensors(inputs);
  py::gil_scoped_release unlocked;
  const fs::path in = fs::path(dir) / "inputs.npz", out = fs::path(dir) / "outputs.npz";
  io::write_npz(in, given);
  (void)cli::run_mesh({path, in.string(), out.string(), timeout, limits::kDefaultBuildSeconds});
  io::NamedTensors outs = io::read_npz(out);
  py::gil_scoped_acquire locked;
  return to_arrays(outs);
}

}  // namespace

PYBIND11_MODULE(_mlipc, m) {
  m.doc() = "mlipc's native half (python/mlipc_ext.cpp); use the mlipc package";
  g_failure = PyErr_NewException("mlipc._mlipc.Failure", PyExc_RuntimeError, nullptr);
  m.attr("Failure") = py::handle(g_failure);
  py::register_exception_translator([](std::exception_ptr p) {
    auto raise = [](const std::string& msg, py::object node, py::object op) {
      PyErr_SetObject(g_failure, py::make_tuple(msg, node, op).ptr());
    };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const NodeError& e) {
      raise(e.what(), py::str(e.node()), py::str(e.op()));
    } catch (const Error& e) {
      raise(e.what(), py::none(), py::none());
    } catch (const py::builtin_exception&) {
      throw;  // pybind11's own (its translator follows)
    } catch (const py::error_already_set&) {
      throw;
    } catch (const std::exception& e) {  // as the command line: any other one (a file system error, ...) in one line
      raise(e.what(), py::none(), py::none());
    }
  });
  m.def("compile", &compile, py::arg("model"), py::arg("output"), py::arg("keywords"), py::arg("calibration"));
  m.def("inspect_json", &inspect_json, py::arg("path"), py::arg("name"));
  m.def("is_mesh", &is_mesh, py::arg("path"));
  m.def("run_mesh", &run_mesh, py::arg("path"), py::arg("inputs"), py::arg("dir"), py::arg("timeout"));
  m.attr("DEFAULT_RUN_SECONDS") = limits::kDefaultRunSeconds;
  py::class_<Runner>(m, "Runner")
      .def(py::init<const std::string&, const std::string&, const std::string&, const std::string&>(), py::arg("path"),
           py::arg("name"), py::arg("remote"), py::arg("token_file"))
      .def("run", &Runner::run, py::arg("inputs"), py::arg("timeout"))
      .def("run_each", &Runner::run_each, py::arg("samples"), py::arg("timeout"))
      .def("profile", &Runner::profile, py::arg("inputs"), py::arg("timeout"));
}

}  // namespace mlipc::python
