// mlipc compile MODEL.onnx --target c --output model.tar [options]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <map>
#include <memory>

#include <unistd.h>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/compile_cmd.h"
#include "cli/format.h"
#include "cli/progress.h"
#include "cli/report.h"
#include "cli/memory_size.h"
#include "cli/mesh_cmd.h"
#include "cli/number_option.h"
#include "driver/compile.h"
#include "driver/metadata.h"
#include "driver/quantization.h"
#include "host/cross_build.h"
#include "memory/planner.h"
#include "mlip/target.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/limits.h"
#include "support/text.h"

namespace fs = std::filesystem;

namespace mlipc::cli {

namespace {

fs::path output_path(const CompileArgs& a) {
  return a.output.empty() ? fs::path(fs::path(a.model).stem().string() + ".tar") : fs::path(a.output);
}

}  // namespace

// --report: the page of the tarball just written, read back as `mlipc
// report` reads it (cli/report.h).
std::string write_compile_report(const CompileArgs& a) {
  const fs::path out = output_path(a);
  write_report(a.report, render_report(inspect_data(read_file(out), out.string())));
  return fmt::format("  report     {}\n", printable(a.report));
}

namespace {

// --workspace-byte-alignment: a whole number, then the driver's rule (a
// power of two from 1 to 4096) with its message.
size_t parse_alignment(const std::string& text) {
  constexpr const char* kOption = "--workspace-byte-alignment";
  const size_t digits = text.find_first_not_of("0123456789", !text.empty() && text[0] == '-' ? 1 : 0);
  if (text.empty() || text == "-" || digits != std::string::npos)
    fail("{} '{}' is not a whole number (allowed: a power of two from 1 to 4096)", kOption, printable(text));
  if (text[0] == '-' || text.size() > 18) fail("{} {} must be a power of two from 1 to 4096", kOption, printable(text));
  const size_t v = static_cast<size_t>(std::stoull(text));
  driver::check_workspace_alignment(v);
  return v;
}

// The summary prints no inf or nan: no error at all is "exact"; no figure
// (no int8 form, or an all-zero reference) is "-".
std::string db(double v) { return v == INFINITY ? "exact" : std::isfinite(v) ? fmt::format("{:.1f}", v) : "-"; }
std::string err(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : "-"; }

// The calibration's summary: layers int8 and float, the outputs' SQNR, the
// five layers of lowest SQNR (`mlipc inspect` lists them all).
void print_quantization(std::string& text, const ptq::QuantizeReport& q) {
  auto out = std::back_inserter(text);
  size_t int8 = 0;
  for (const auto& l : q.layers) int8 += l.int8;
  const std::string samples = q.samples_in_data > q.samples
                                  ? fmt::format("the first {} of {} samples (at most {} are used)", with_commas(q.samples),
                                                with_commas(q.samples_in_data), with_commas(limits::kMaxCalibrationSamples))
                                  : fmt::format("{} samples", q.samples);
  fmt::format_to(out, "  int8       {} of {} layers int8 ({} calibration on {}, min SQNR {} dB)\n", int8, q.layers.size(),
             calib::method_name(q.options.method), samples, db(q.options.min_sqnr_db));
  if (size_t wide = std::count_if(q.layers.begin(), q.layers.end(), [](const auto& l) { return l.int8 && l.act_bits == 16; }))
    fmt::print("    {} of them 16x8 (int16 activations, int8 weights)\n", wide);
  if (q.options.weight_bits == 4) {
    size_t four = 0;
    for (const auto& l : q.layers) four += l.int8 && l.weight_bits == 4;
    fmt::format_to(out, "    {} with 4-bit weights (--weight-bits 4, blocks of {} in dense layers; the others 8-bit)\n", four,
               q.options.weight_block);
  }
  if (q.options.weight_rounding == ptq::WeightRounding::Gptq)
    fmt::format_to(out, "    weights of {} layer{} rounded by GPTQ (--weight-rounding gptq)\n", q.gptq_layers,
                   q.gptq_layers == 1 ? "" : "s");
  for (const auto& o : q.outputs)
    fmt::format_to(out, "    output {}: SQNR {} dB, max abs error {}\n", printable(o.name), db(o.sqnr_db), err(o.max_abs_error));
  std::vector<const ptq::LayerQuantization*> worst;
  for (const auto& l : q.layers) worst.push_back(&l);
  // Lowest SQNR first; layers without an int8 figure (NaN) last.
  std::stable_sort(worst.begin(), worst.end(), [](auto* a, auto* b) {
    return !std::isnan(a->sqnr_db) && (std::isnan(b->sqnr_db) || a->sqnr_db < b->sqnr_db);
  });
  if (worst.size() > 5) worst.resize(5);
  if (!worst.empty())
    fmt::format_to(out, "    worst layers (SQNR alone / in the model, max abs error alone; all: mlipc inspect):\n");
  for (const auto* l : worst)
    fmt::format_to(out, "      {:<28} {:<18} {:>6} / {:>6} dB  {:>10}  {}\n", printable(l->node), l->op, db(l->sqnr_db),
               db(l->model_sqnr_db), err(l->max_abs_error),
               l->int8 ? (l->weight_bits == 4 ? "int8, 4-bit weights" : l->act_bits == 16 ? "16x8" : "int8")
                       : "float: " + printable(l->why));
  for (const auto& l : q.layers)
    if (!l.int8 && std::find(worst.begin(), worst.end(), &l) == worst.end())
      fmt::format_to(out, "      {:<28} {:<18} float: {}\n", printable(l.node), l.op, printable(l.why));
  for (const auto& [node, why] : q.rounded_nearest)
    fmt::format_to(out, "    {}: weights rounded to nearest, not by GPTQ: {}\n", printable(node), why);
  for (const auto& l : q.layers)
    if (!l.bias_raised.empty())
      fmt::format_to(out, "    {}: weight scale raised so that the bias fits int32 on channel{} {}\n", printable(l.node),
                 l.bias_raised.size() > 1 ? "s" : "", fmt::join(l.bias_raised, ", "));
}

// --emit-qdq, before any work (calibration may take minutes): a file name,
// not the tarball (the same file by its canonical path, existing or not),
// not an input, in a folder that exists and is writable.
void check_emit_qdq(const fs::path& qdq, const fs::path& out, const std::vector<fs::path>& inputs) {
  if (qdq.empty()) fail("--emit-qdq '': give the file to write the QDQ model to (FILE.onnx)");
  const std::string name = printable(qdq.string());
  std::error_code ec1, ec2;
  const fs::path a = fs::weakly_canonical(fs::absolute(qdq), ec1), b = fs::weakly_canonical(fs::absolute(out), ec2);
  if (!ec1 && !ec2 && a == b)
    fail("--emit-qdq {}: is also the tarball (-o); give the QDQ model a file of its own", name);
  check_output_path(qdq, inputs, "--emit-qdq");
  const fs::path dir = qdq.has_parent_path() ? qdq.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fail("--emit-qdq {}: folder {} does not exist", name, printable(dir.string()));
  if (::access(dir.c_str(), W_OK) != 0)
    fail("--emit-qdq {}: folder {} is not writable: {}", name, printable(dir.string()), std::strerror(errno));
}

}  // namespace

std::string run_compile(const CompileArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  // The mesh's numbers first: a bad one is refused before anything is read.
  if (a.pe_memory_given && !a.pes_given) fail("--pe-memory needs --pes (the number of processing elements)");
  const int pes = a.pes_given ? static_cast<int>(parse_whole("--pes", a.pes, 1, limits::kMaxPes)) : 0;
  const uint64_t pe_memory = a.pe_memory_given ? parse_memory_size(a.pe_memory) : 0;
  driver::CompileOptions opt;
  opt.target = a.target;
  for (const std::string& s : a.input_shapes)
    for (auto& [name, shape] : frontend::parse_input_shapes(s)) opt.import.input_shapes[name] = shape;
  opt.codegen.module_name = a.module_name;
  opt.codegen.workspace_alignment = parse_alignment(a.alignment);
  memory::make_allocator(a.planner);  // rejects an unknown planner before any work
  opt.codegen.memory_planner = a.planner;
  if (a.arena_reuse != "on" && a.arena_reuse != "off") fail("--arena-reuse '{}' (allowed: on, off)", a.arena_reuse);
  opt.codegen.arena_reuse = a.arena_reuse == "on";
  if (a.output_names != "onnx" && a.output_names != "tvm")
    fail("--output-names '{}' (allowed: onnx, tvm)", a.output_names);
  opt.codegen.tvm_output_names = a.output_names == "tvm";
  opt.io_dtype = a.io_dtype;
  opt.requant = a.requant;
  if (a.io_dtype != "float32" && a.io_dtype != "int8") fail("--io-dtype '{}' (allowed: float32, int8)", a.io_dtype);
  opt.mlip = mlip::parse_options(a.mcpu, a.num_tiles, a.mattr);
  driver::parse_target(a.target);  // refused before the cross compiler is asked
  opt.quantize = a.quantize;
  opt.calibration = a.calibration;
  opt.calibration_arrays = a.calibration_arrays;
  opt.quantize_options.method = calib::method_from_name(a.calibration_method);
  opt.quantize_options.percentile =
      parse_real("--calibration-percentile", a.calibration_percentile, "above 0 and at most 100; default 99.99");
  opt.quantize_options.min_sqnr_db =
      parse_real("--quantize-min-sqnr-db", a.min_sqnr_db, "a finite number of dB; default 20");
  if (a.weight_bits != "4" && a.weight_bits != "8") fail("--weight-bits '{}' (allowed: 4, 8)", printable(a.weight_bits));
  opt.quantize_options.weight_bits = a.weight_bits == "4" ? 4 : 8;
  opt.quantize_options.weight_block =
      parse_whole("--weight-block-size", a.weight_block, 1, 65536);
  if (!a.weight_rounding.empty() && a.weight_rounding != "nearest" && a.weight_rounding != "gptq")
    fail("--weight-rounding '{}' (allowed: nearest, gptq)", printable(a.weight_rounding));
  opt.quantize_options.weight_rounding = a.weight_rounding.empty()       ? ptq::WeightRounding::Auto
                                         : a.weight_rounding == "gptq" ? ptq::WeightRounding::Gptq
                                                                       : ptq::WeightRounding::Nearest;
  opt.emit_qdq = a.emit_qdq;
  auto bar = std::make_shared<ProgressBar>("calibration", ProgressBar::stderr_is_terminal());
  opt.quantize_options.progress = [bar](std::string_view phase, size_t done, size_t total) {
    bar->update(phase, done, total);
  };
  opt.cross = driver::resolve_cross(a.llvm_mtriple, a.llvm_mcpu, a.cross_compiler, a.cross_compiler_options);
  opt.codegen.cpu = c::resolve_cpu(a.c_mcpu, a.llvm_mcpu, opt.cross.arch());

  const fs::path out = output_path(a);
  // Refused before any work: a device, a FIFO, or the model itself.
  check_output_path(out, {a.model}, a.output.empty() ? "the output" : "-o");
  if (!a.report.empty()) {
    if (fs::absolute(a.report).lexically_normal() == fs::absolute(out).lexically_normal())
      fail("--report {} is the tarball's own path", printable(a.report));
    std::vector<fs::path> inputs = {a.model};
    if (!a.calibration.empty()) inputs.push_back(a.calibration);
    check_report_path(a.report, inputs, "--report");
  }
  if (a.emit_qdq_given) check_emit_qdq(a.emit_qdq, out, {a.model, a.calibration});
  if (!opt.cross.compiler.empty()) host::check_build_folder(host::cross_dir(out, opt.cross.triple), opt.codegen.module_name);
  if (a.pes_given || a.pe_memory_given) {
    return compile_mesh(a.model, out, opt, pes, pe_memory);
  }
  driver::CompileResult r = driver::compile_model(a.model, opt);
  opt.quantize_options.progress = nullptr;
  bar.reset();  // ends the progress line before the summary
  // All or nothing: no QDQ model without its tarball (compile_model wrote it last).
  auto drop_qdq = [&] {
    std::error_code ec;
    if (r.quantization && !a.emit_qdq.empty()) fs::remove(a.emit_qdq, ec);
  };
  try {
    driver::write_tarball(r, out);
  } catch (...) {
    drop_qdq();
    throw;
  }
  fs::path cross_out;
  if (!opt.cross.compiler.empty()) {
    host::CrossBuild b;
    b.compiler = opt.cross.compiler;
    b.flags = opt.cross.compiler_flags();
    b.triple = opt.cross.triple;
    // A tarball bound to the MLIP device (-mattr=hw) has no runner: the
    // driver registers no device, so it could only fail.
    b.runner = opt.cross.linux_triple() && !(r.target.mlip && opt.mlip.hardware);
    cross_out = host::cross_dir(out, opt.cross.triple);
    try {
      host::build_cross(out, opt.codegen.module_name, b, cross_out);
    } catch (...) {
      std::error_code ec;
      fs::remove(out, ec);  // all or nothing: no tarball without its build
      drop_qdq();
      throw;
    }
  }
  std::string text;
  auto to = std::back_inserter(text);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::map<std::string, int> ops;
  for (const auto& l : r.module.layers) ops[l.op]++;
  std::string op_list;
  for (const auto& [op, n] : ops) op_list += fmt::format("{}{} {}", op_list.empty() ? "" : ", ", op, n);
  const auto& m = r.module;
  fmt::format_to(to, "mlipc: compiled {} ({} ONNX nodes) for target {} into {} in {:.2f} s\n", printable(a.model),
             r.onnx_nodes, r.target.text, printable(out.string()), secs);
  fmt::format_to(to, "  operators  {} layers: {}\n", m.layers.size(), op_list);
  fmt::format_to(to, "  arena      {} bytes (lower bound {}, {}; {})\n", with_commas(m.workspace_size),
             with_commas(m.workspace_lower_bound),
             m.workspace_lower_bound ? fmt::format("{:+.1f}%", 100.0 * (double(m.workspace_size) / double(m.workspace_lower_bound) - 1.0)) : "+0.0%",
             m.plan.algorithm);
  fmt::format_to(to, "  constants  {} bytes\n", with_commas(m.constants_size));
  if (!opt.codegen.cpu.name.empty())
    fmt::format_to(to, "  cpu        {} (kernel variants its compiler selects: {})\n", opt.codegen.cpu.name,
               opt.codegen.cpu.isas.empty() ? "none, the portable C" : fmt::format("{}", fmt::join(opt.codegen.cpu.isas, ", ")));
  if (r.quantization) print_quantization(text, *r.quantization);
  if (!a.emit_qdq.empty()) fmt::format_to(to, "  qdq        {}\n", printable(a.emit_qdq));
  if (!cross_out.empty()) {
    const std::string lib = "lib" + opt.codegen.module_name + ".a";
    fmt::format_to(to, "  cross      {}{} with {}: {} ({} bytes){}\n", printable(opt.cross.triple),
               opt.cross.cpu_flags.empty() ? "" : " " + opt.cross.cpu_flags.front(), printable(opt.cross.compiler),
               printable((cross_out / lib).string()), with_commas(fs::file_size(cross_out / lib)),
               fs::exists(cross_out / host::runner_name(opt.codegen.module_name))
                   ? ", " + host::runner_name(opt.codegen.module_name)
                   : "");
  }
  if (!opt.cross.empty() && opt.cross.compiler.empty())
    fmt::format_to(to, "  cross      {}{}: recorded, nothing built without --cross-compiler\n", printable(opt.cross.triple),
               opt.cross.cpu_flags.empty() ? "" : " " + opt.cross.cpu_flags.front());
  if (!r.target.mlip) return text;
  fmt::format_to(to, "  {}\n", printable(driver::quantize_line(r.mlip_options)));
  fmt::format_to(to, "  mlip       {} region(s) on {} x {} tile(s), {} node(s) left on the CPU ({} mode)\n", r.mlip.regions.size(),
             opt.mlip.mcpu, opt.mlip.num_tiles, r.mlip.cpu_nodes.size(), opt.mlip.hardware ? "hw" : "sim");
  for (const auto& region : r.mlip.regions) {
    const mlip::RegionReport& reg = region->report;
    fmt::format_to(to, "    {}: {} layers, {} est. cycles, OCM {} bytes/tile, scratch {} bytes, weights pinned: {}\n", reg.name,
               reg.layers.size(), with_commas(reg.est_cycles), with_commas(reg.ocm_size), with_commas(reg.scratch_size),
               reg.pinned.empty() ? "none" : fmt::format("{} layer(s), {} bytes", reg.pinned.size(), with_commas(reg.pinned_bytes)));
  }
  uint64_t on_mlip = 0, total = 0;
  for (const auto& region : r.mlip.regions) on_mlip += region->report.macs();
  for (const auto& l : r.module.layers) total += driver::cpu_layer_macs(r, l);
  fmt::format_to(to, "  {}\n", mac_share_line(on_mlip, on_mlip + total));
  return text;
}

void declare_compile_options(CLI::App& app, CompileArgs& a) {
  CompileArgs* args = &a;
  CLI::App* c = &app;
  c->add_option("model", args->model, "the ONNX model (anywhere on the line)");
  c->add_option("-o,--output", args->output, "the tarball to write (default: <model>.tar)");
  c->add_option("--target", args->target,
                "\"c\" (CPU only) or \"mrvl, c\" (MLIP accelerator + CPU); \"llvm\" is a synonym of \"c\": the CPU part "
                "is C, built by the cross compiler");
  c->add_option("--input-shapes", args->input_shapes, "static input shapes: name:[1,3,224,224] ...");
  c->add_option("--module-name", args->module_name, "module name in generated symbols (tvmgen_<name>_run)");
  c->add_option("--workspace-byte-alignment", args->alignment,
                "alignment of every arena buffer (bytes): a power of two, at most 4096 (default 16)");
  c->add_option("--memory-planner", args->planner,
                "greedy_by_size, greedy_by_conflicts, hill_climb (default) or linear");
  c->add_option("--arena-reuse", args->arena_reuse,
                "on (default): an output takes over the buffer of an input that dies at its node, and fused epilogues "
                "save intermediate tensors; off: every tensor in a buffer of its own (the arena before reuse)");
  c->add_option("--output-names", args->output_names,
                "onnx: struct members named after the model's outputs (default); tvm: output, output0, ...");
  c->add_option("--io-dtype", args->io_dtype,
                "float32: the model's I/O (default); int8: the quantized tensors at the borders (int8 or uint8), "
                "for a model that quantizes its inputs and dequantizes its outputs");
  c->add_option("--requant", args->requant,
                "the int8 operators' requantization: fixed (default; TFLite's Q31 multiplier and shift, integer "
                "only) or ort (onnxruntime's float32 scale, round half to even: its bits), on the CPU and the MLIP");
  c->add_option("--quantize", args->quantize,
                "none (default), int8 or int16x8 (16-bit activations, 8-bit weights): an fp32 model "
                "calibrated (--calibration); on \"mrvl, c\" say -quantize=int8 in --target-mrvl-mattr");
  c->add_option("--calibration", args->calibration,
                "calibration data (.npz): one array per model input, named as the input, with a leading sample axis");
  c->add_option("--calibration-method", args->calibration_method,
                "how a tensor's range is chosen: minmax (default), percentile or entropy (KL divergence, TensorRT's)");
  c->add_option("--calibration-percentile", args->calibration_percentile,
                "the percentile method's p: the range runs from the (100-p)th to the pth percentile (default 99.99)");
  c->add_option("--quantize-min-sqnr-db", args->min_sqnr_db,
                "mixed precision: a layer whose int8 SQNR on the calibration data is below this stays float "
                "(fp16 on the MLIP, fp32 on the CPU; default 20)");
  c->add_option("--weight-bits", args->weight_bits,
                "post-training quantization's weights: 8 (default) or 4 (Conv, Gemm, MatMul; per channel, a dense "
                "layer's in blocks; a layer below the SQNR threshold at 4 bits tries 8)");
  c->add_option("--weight-block-size", args->weight_block,
                "--weight-bits 4: a dense layer's weights per block of this many along K (default 32)");
  c->add_option("--weight-rounding", args->weight_rounding,
                "post-training quantization's weights on their grid: nearest (each rounded alone; the default of "
                "--quantize int8) or gptq (error-compensating: each rounding error spread over the weights not yet "
                "rounded, GPTQ; the default of --quantize int16x8)");
  c->add_option("--emit-qdq", args->emit_qdq, "also write the calibrated model as a QDQ ONNX model (for onnxruntime)");
  c->add_option("--target-mrvl-mcpu", args->mcpu, "cn10ka (default) or cnf10kb");
  c->add_option("--target-mrvl-num_tiles", args->num_tiles, "tiles to use: 1, 2, 4 or 8 (default 8)");
  c->add_option("--target-mrvl-mattr", args->mattr,
                "\"sim|hw -quantize=fp16|int8 -wb_pin_ocm=0|1\" (default \"sim -wb_pin_ocm=0\"; -quantize unset: "
                "int8 for a quantized model, QDQ or QOperator, fp16 otherwise)");
  c->add_option("--target-llvm-mtriple", args->llvm_mtriple,
                "the machine the CPU part is built for, e.g. aarch64-linux-gnu (default: the cross compiler's)");
  c->add_option("--target-llvm-mcpu", args->llvm_mcpu,
                "the CPU, passed to the cross compiler as -mcpu=<cpu> (-march=<cpu> on x86), e.g. neoverse-n2");
  c->add_option("--target-c-mcpu", args->c_mcpu,
                "the CPU the C is for (cortex-m55, cortex-m4, neoverse-n2, x86-64-v3, ...; default: --target-llvm-mcpu's): "
                "tunes what is fixed at generation time; the kernel variant is chosen by the compiler's flags");
  c->add_option("--cross-compiler", args->cross_compiler,
                "build the model for the target beside the tarball: lib<module>.a and, for Linux triples, a runner");
  c->add_option("--cross-compiler-options", args->cross_compiler_options, "more flags for the cross compiler");
  c->add_option("--pes", args->pes,
                "pipeline the model across this many processing elements: one MLF module per stage and "
                "pipeline.json in one tarball (docs/mesh.md)");
  c->add_option("--pe-memory", args->pe_memory,
                "memory of one PE (arena + constants + I/O + runtime), e.g. 512KiB (with --pes; default: no limit)");
  c->add_option("--report", args->report,
                "also write the HTML report of the tarball (as mlipc report; docs/user-guide.md)");
  c->allow_extras();
}

void read_compile_args(const CLI::App& c, CompileArgs& a) {
  refuse_extras(c);
  require_positional(a.model, c, "an ONNX model file");
  a.emit_qdq_given = c.count("--emit-qdq") > 0;
  a.pes_given = c.count("--pes") > 0;
  a.pe_memory_given = c.count("--pe-memory") > 0;
}

void add_compile(CLI::App& app) {
  auto args = std::make_shared<CompileArgs>();
  CLI::App* c = app.add_subcommand("compile", "compile an ONNX model into a Model Library Format tarball");
  declare_compile_options(*c, *args);
  c->callback([args, c] {
    read_compile_args(*c, *args);
    fmt::print("{}", run_compile(*args));
    if (!args->report.empty()) fmt::print("{}", write_compile_report(*args));
  });
}

}  // namespace mlipc::cli
