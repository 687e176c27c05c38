#include "cross_targets.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <regex>
#include <sstream>

#include "support/file_util.h"
#include "support/process.h"

namespace fs = std::filesystem;

namespace mlipc::test {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string bytes_of(const TensorData& t) {
  return std::string(reinterpret_cast<const char*>(t.raw()), t.nbytes());
}

std::string tail(const std::string& s, size_t n = 2000) { return s.size() > n ? s.substr(s.size() - n) : s; }

}  // namespace

bool have_tool(const std::string& tool) {
  return run_process({"sh", "-c", "command -v \"$0\" >/dev/null", tool}, fs::current_path(), 60).exit_code == 0;
}

std::vector<std::string> tarball_c_sources(const fs::path& dir) {
  std::vector<std::string> files;
  for (const char* sub : {"codegen/host/src", "runtime/src/core", "runtime/src/sim"})
    if (fs::exists(dir / sub))
      for (const auto& e : fs::recursive_directory_iterator(dir / sub))
        if (e.path().extension() == ".c") files.push_back(fs::relative(e.path(), dir).string());
  std::sort(files.begin(), files.end());
  return files;
}

const char* const kHostedMain = R"(#include <stdio.h>
#include <stdlib.h>
#include "mlip/model.h"
#include "tvmgen_default.h"
static void* slurp(const char* path, size_t n) {
  FILE* f = fopen(path, "rb");
  void* p = malloc(n ? n : 1);
  if (!f || !p || fread(p, 1, n, f) != n) exit(3);
  fclose(f);
  return p;
}
int main(int argc, char** argv) {
  const mlip_model* m = &tvmgen_default_model;
  DLTensor t[64];
  int64_t shapes[64][8];
  int32_t k, d, n = m->num_inputs + m->num_outputs;
  if (argc != 1 + n || n > 64) return 2;
  for (k = 0; k < n; ++k) {
    const mlip_tensor_desc* desc = k < m->num_inputs ? &m->inputs[k] : &m->outputs[k - m->num_inputs];
    if (desc->ndim > 8) return 2;
    for (d = 0; d < desc->ndim; ++d) shapes[k][d] = desc->shape[d];
    t[k].data = k < m->num_inputs ? slurp(argv[1 + k], desc->size_bytes) : calloc(desc->size_bytes + 1, 1);
    t[k].device.device_type = kDLCPU;
    t[k].device.device_id = 0;
    t[k].ndim = desc->ndim;
    t[k].dtype.code = desc->dtype_code;
    t[k].dtype.bits = desc->dtype_bits;
    t[k].dtype.lanes = desc->dtype_lanes;
    t[k].shape = shapes[k];
    t[k].strides = NULL;
    t[k].byte_offset = 0;
  }
  if (mlip_model_run_checked(m, t, m->num_inputs, t + m->num_inputs, m->num_outputs) != MLIP_OK) return 4;
  for (k = m->num_inputs; k < n; ++k) {
    FILE* f = fopen(argv[1 + k], "wb");
    if (!f || fwrite(t[k].data, 1, m->outputs[k - m->num_inputs].size_bytes, f) != m->outputs[k - m->num_inputs].size_bytes) return 3;
    fclose(f);
  }
  return 0;
}
)";

TargetRun run_aarch64(const fs::path& x, const std::vector<std::string>& flags, const io::NamedTensors& inputs,
                      size_t num_outputs) {
  TargetRun r;
  write_file(x / "hosted_main.c", kHostedMain);
  std::vector<std::string> argv = {"aarch64-linux-gnu-gcc"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-Icodegen/host/include", "-Iruntime/include", "-static"});
  for (const std::string& f : tarball_c_sources(x)) argv.push_back(f);
  argv.insert(argv.end(), {"hosted_main.c", "-lm", "-o", "model_aarch64.elf"});
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult b = run_process(argv, x, 1200);
  r.build_seconds = seconds_since(t0);
  if (b.exit_code != 0) {
    r.error = "AArch64 build failed: " + tail(b.err);
    return r;
  }
  std::vector<std::string> run = {"qemu-aarch64", "model_aarch64.elf"};
  for (size_t i = 0; i < inputs.size(); ++i) {
    write_file(x / fmt::format("in{}.bin", i), bytes_of(inputs[i].second));
    run.push_back(fmt::format("in{}.bin", i));
  }
  for (size_t i = 0; i < num_outputs; ++i) run.push_back(fmt::format("out{}.bin", i));
  t0 = std::chrono::steady_clock::now();
  ProcessResult q = run_process(run, x, 1200);
  r.run_seconds = seconds_since(t0);
  r.log = q.out + q.err;
  if (q.exit_code != 0) {
    r.error = fmt::format("qemu-aarch64 run failed (exit {}, signal {}): {}", q.exit_code, q.signal, tail(r.log));
    return r;
  }
  for (size_t i = 0; i < num_outputs; ++i) r.outputs.push_back(read_file(x / fmt::format("out{}.bin", i)));
  return r;
}

void write_firmware_inputs(const fs::path& header, const io::NamedTensors& inputs) {
  std::string h = "/* The inputs of templates/firmware/main.c (its INPUTS=), written by the test. */\n";
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string b = bytes_of(inputs[k].second);
    h += fmt::format("static const unsigned char fw_input{}[{}] = {{", k, std::max<size_t>(b.size(), 1));
    for (size_t i = 0; i < b.size(); ++i)
      h += fmt::format("{}{}", i % 24 == 0 ? "\n  " : "", static_cast<unsigned>(static_cast<unsigned char>(b[i]))) +
           (i + 1 < b.size() ? "," : "");
    h += "};\n";
  }
  write_file(header, h);
}

std::vector<std::string> parse_firmware_outputs(const std::string& text, std::string* error) {
  std::vector<std::string> outputs;
  std::istringstream in(text);
  std::string line;
  const std::regex header(R"(^output (\d+) \S+ \S+ (\d+)$)");
  std::smatch m;
  size_t expect = 0;
  bool reading = false;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, header)) {
      if (reading && outputs.back().size() != expect) break;
      if (std::stoul(m[1]) != outputs.size()) break;
      expect = std::stoul(m[2]);
      outputs.emplace_back();
      reading = true;
      continue;
    }
    if (!reading || outputs.back().size() >= expect) {
      reading = false;
      continue;
    }
    std::istringstream words(line);
    for (std::string w; words >> w;) {
      if (w.size() % 2 != 0 || w.size() > 8 || w.find_first_not_of("0123456789abcdef") != std::string::npos) {
        *error = "unreadable output line: " + line;
        return {};
      }
      const unsigned long v = std::stoul(w, nullptr, 16);
      for (size_t b = 0; b < w.size() / 2; ++b) outputs.back() += static_cast<char>((v >> (8 * b)) & 0xff);
    }
  }
  if (!outputs.empty() && outputs.back().size() != expect) *error = "an output shorter than its size";
  return outputs;
}

TargetRun run_firmware(const fs::path& x, const std::string& board, const std::vector<std::string>& vars,
                       const io::NamedTensors& inputs, fs::path* elf) {
  TargetRun r;
  const fs::path fw = x / "templates/firmware";
  fs::remove_all(fw / "build");  // the Makefile does not track flags: every build is a clean one
  std::vector<std::string> make = {"make", "-s", "BOARD=" + board};
  make.insert(make.end(), vars.begin(), vars.end());
  if (!inputs.empty()) {
    write_firmware_inputs(fw / "inputs.h", inputs);
    make.push_back("INPUTS=inputs.h");
  }
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult b = run_process(make, fw, 1200);
  r.build_seconds = seconds_since(t0);
  if (b.exit_code != 0) {
    r.error = fmt::format("firmware build for {} failed: {}", board, tail(b.out + b.err));
    return r;
  }
  const fs::path image = fw / "build" / board / "firmware.elf";
  if (elf) *elf = image;
  t0 = std::chrono::steady_clock::now();
  ProcessResult q = run_process({"qemu-system-arm", "-M", board, "-nographic", "-monitor", "none", "-serial", "none",
                                 "-semihosting-config", "enable=on,target=native", "-kernel", image.string()},
                                fw, 1200);
  r.run_seconds = seconds_since(t0);
  r.log = q.out + q.err;
  if (q.exit_code != 0) {
    r.error = fmt::format("{} run failed (exit {}, signal {}): {}", board, q.exit_code, q.signal, tail(r.log));
    return r;
  }
  r.outputs = parse_firmware_outputs(r.log, &r.error);
  return r;
}

std::vector<std::string> heap_or_printf_symbols(const fs::path& file, bool undefined_only) {
  std::vector<std::string> argv = {"arm-none-eabi-nm"};
  if (undefined_only) argv.push_back("-u");
  argv.push_back(file.string());
  ProcessResult r = run_process(argv, file.parent_path(), 120);
  std::vector<std::string> bad;
  if (r.exit_code != 0) return {"arm-none-eabi-nm failed: " + r.err};
  // malloc and its relatives (newlib's _malloc_r, ...), printf and its family.
  const std::regex forbidden(R"(^_?(malloc|free|calloc|realloc|v?(s|sn|f|as|d)?i?printf)(_r)?$)");
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    const std::string name = line.substr(line.find_last_of(' ') + 1);
    if (std::regex_match(name, forbidden)) bad.push_back(line);
  }
  return bad;
}

}  // namespace mlipc::test
