#include "c/aot.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "c/constants.h"
#include "c/kernel.h"
#include "resources/resources.h"
#include "support/error.h"

namespace mlipc::c {

namespace {

using kainjow::mustache::data;
using kainjow::mustache::mustache;

std::string upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

std::string render(const std::string& path, const data& d) {
  mustache tmpl{std::string(resources::get(path))};
  if (!tmpl.is_valid()) fail("internal: template {}: {}", path, tmpl.error_message());
  tmpl.set_custom_escape([](const std::string& s) { return s; });
  return tmpl.render(d);
}

data io_list(const std::vector<IoInfo>& ios, const std::string& prefix, const std::string& kind) {
  data list{data::type::list};
  for (size_t i = 0; i < ios.size(); ++i) {
    const IoInfo& io = ios[i];
    data d;
    d.set("member", io.member);
    d.set("MEMBER", upper(io.member));
    d.set("name", c_string(io.name));
    d.set("size", std::to_string(io.size_bytes));
    d.set("param", prefix + io.member);
    d.set("index", std::to_string(i));
    d.set("code", std::to_string(dtype_dlpack_code(io.dtype)));
    d.set("bits", std::to_string(dtype_bits(io.dtype)));
    d.set("ndim", std::to_string(io.shape.size()));
    d.set("align", std::to_string(std::max<size_t>(1, dtype_size(io.dtype))));
    std::string dims;
    for (int64_t s : io.shape) dims += (dims.empty() ? "" : ", ") + c_int(s);
    d.set("shape_sym", io.shape.empty() ? "NULL" : fmt::format("{}_shape{}", kind, i));
    d.set("dims", dims);
    if (!io.shape.empty()) d.set("has_dims", data::type::bool_true);
    if (io.quantized) {
      d.set("quantized", data::type::bool_true);
      d.set("dtype", std::string(dtype_name(io.dtype)));
      d.set("scale", c_float(io.scale));
      d.set("scale_exact", fmt::format("{:.9g}", io.scale));
      d.set("zero_point", io.zero_point < 0 ? fmt::format("({})", io.zero_point) : std::to_string(io.zero_point));
    }
    list.push_back(d);
  }
  return list;
}

// templates/firmware/main.c's values: each tensor's buffer and size, the
// pattern that fills an input of its type, and how output 0's top class
// compares (templates/firmware/main.c).
data firmware_main_data(const AotInput& in) {
  data d;
  d.set("module", in.module);
  d.set("MODULE", upper(in.module));
  d.set("generator", in.generator);
  d.set("alignment", std::to_string(in.workspace_alignment));
  auto tensors = [](const std::vector<IoInfo>& list, bool input) {
    data out{data::type::list};
    for (size_t k = 0; k < list.size(); ++k) {
      const IoInfo& io = list[k];
      const std::string ctype(dtype_ctype(io.dtype));
      const std::string at = fmt::format("(({}*)(void*)fw_in{})[i]", ctype, k);
      data t;
      t.set("index", std::to_string(k));
      t.set("member", io.member);
      t.set("dtype", std::string(dtype_name(io.dtype)));
      t.set("size", std::to_string(io.size_bytes));
      t.set("alloc", std::to_string(std::max<size_t>(io.size_bytes, 1)));
      t.set("count", std::to_string(io.size_bytes / dtype_size(io.dtype)));
      if (input) {
        if (io.dtype == DType::Float32 || io.dtype == DType::Float64)
          t.set("fill", fmt::format("{} = ({})((int32_t)(h >> 24) - 128) / 128;", at, ctype));
        else if (io.dtype == DType::Bool)
          t.set("fill", fmt::format("{} = (uint8_t)(h >> 31);", at));
        else if (dtype_is_integer(io.dtype))
          t.set("fill", fmt::format("{} = ({})(h >> 25);", at, ctype));
        else  // float16, bfloat16
          t.set("fill", fmt::format("(({}*)(void*)fw_in{})[i] = 0;", "uint16_t", k));
      }
      out.push_back(t);
    }
    return out;
  };
  d.set("inputs", tensors(in.inputs, true));
  d.set("outputs", tensors(in.outputs, false));
  if (in.inputs.empty()) d.set("no_inputs", data::type::bool_true);
  if (!in.outputs.empty()) {
    const IoInfo& o = in.outputs[0];
    const bool is_float = o.dtype == DType::Float32 || o.dtype == DType::Float64;
    if (is_float || dtype_is_integer(o.dtype)) {
      data top;
      top.set("ctype", std::string(dtype_ctype(o.dtype)));
      top.set("count", std::to_string(o.size_bytes / dtype_size(o.dtype)));
      if (is_float) top.set("is_float", data::type::bool_true);
      d.set("top", top);
    }
  }
  return d;
}

}  // namespace

std::map<std::string, std::string> write_aot_sources(const AotInput& in) {
  data d;
  d.set("module", in.module);
  d.set("MODULE", upper(in.module));
  d.set("generator", in.generator);
  d.set("workspace_size", std::to_string(in.workspace_size));
  d.set("alignment", std::to_string(in.workspace_alignment));
  d.set("num_inputs", std::to_string(in.inputs.size()));
  d.set("num_outputs", std::to_string(in.outputs.size()));
  d.set("inputs", io_list(in.inputs, "i_", "input"));
  d.set("outputs", io_list(in.outputs, "o_", "output"));
  if (in.inputs.empty()) d.set("no_inputs", data::type::bool_true);
  if (in.outputs.empty()) d.set("no_outputs", data::type::bool_true);
  if (in.workspace_size > 0) d.set("has_workspace", data::type::bool_true);

  // The main function's parameters: inputs, outputs, then the workspace.
  std::vector<std::string> params, run_args, ptr_args;
  for (size_t i = 0; i < in.inputs.size(); ++i) {
    params.push_back("void* i_" + in.inputs[i].member);
    run_args.push_back("inputs->" + in.inputs[i].member);
    ptr_args.push_back(fmt::format("inputs[{}]", i));
  }
  for (size_t i = 0; i < in.outputs.size(); ++i) {
    params.push_back("void* o_" + in.outputs[i].member);
    run_args.push_back("outputs->" + in.outputs[i].member);
    ptr_args.push_back(fmt::format("outputs[{}]", i));
  }
  params.push_back("uint8_t* workspace");
  const std::string ws = in.workspace_size > 0 ? "global_workspace" : "(uint8_t*)0";
  run_args.push_back(ws);
  ptr_args.push_back(ws);
  d.set("main_params", fmt::format("{}", fmt::join(params, ", ")));
  d.set("run_args", fmt::format("{}", fmt::join(run_args, ", ")));
  d.set("ptr_args", fmt::format("{}", fmt::join(ptr_args, ", ")));
  std::vector<std::string> param_names;  // "void* i_x" -> "i_x"
  for (const std::string& p : params) param_names.push_back(p.substr(p.rfind(' ') + 1));
  std::string unused;
  for (const std::string& name : param_names) unused += fmt::format("  (void){};\n", name);
  d.set("unused_params", unused);

  // The constants' definitions (for a large model, hundreds of megabytes of
  // text) do not go through the template engine: lib0.c is rendered around a
  // marker that they then replace.
  std::string decls;
  for (const auto& [sym, t] : in.constants) decls += fmt::format("extern {};\n", c_constant_declarator(sym, *t));
  if (!in.constants.empty()) d.set("has_constants", data::type::bool_true);
  const std::string marker = "/* mlipc: constant definitions */";
  d.set("constant_defs", marker);
  d.set("constant_decls", decls);

  std::set<std::string> includes;
  for (const AotKernel& k : in.kernels) includes.insert(k.includes.begin(), k.includes.end());
  std::string include_lines;
  for (const std::string& h : includes) include_lines += fmt::format("#include \"{}\"\n", h);
  d.set("kernel_includes", include_lines);

  data kernels{data::type::list};
  for (const AotKernel& k : in.kernels) {
    data kd;
    kd.set("comment", k.comment);
    kd.set("code", k.code);
    kernels.push_back(kd);
  }
  std::string main_body;
  if (in.main_steps.size() <= kMaxLayersInMain) {
    for (const std::string& s : in.main_steps) main_body += s;
  } else {
    // The parts follow the kernels (kMaxLayersInMain says why).
    const std::string args = fmt::format("{}", fmt::join(param_names, ", "));
    for (size_t first = 0, part = 0; first < in.main_steps.size(); first += kLayersPerPart, ++part) {
      const size_t last = std::min(first + kLayersPerPart, in.main_steps.size());
      const std::string fn = fmt::format("tvmgen_{}___tvm_main___part{}", in.module, part);
      std::string code = part == 0 ? "#if defined(__GNUC__)\n#define MLIP_NOINLINE __attribute__((noinline))\n#else\n"
                                     "#define MLIP_NOINLINE\n#endif\n"
                                   : "";
      code += fmt::format("static MLIP_NOINLINE int32_t {}({}) {{\n{}", fn, fmt::join(params, ", "), unused);
      for (size_t s = first; s < last; ++s) code += in.main_steps[s];
      code += "  return 0;\n}\n";
      data kd;
      kd.set("comment", fmt::format("layers {} to {} of the main function", first, last - 1));
      kd.set("code", code);
      kernels.push_back(kd);
      main_body += fmt::format("  {{\n    int32_t status = {}({});\n    if (status != 0) return status;\n  }}\n", fn, args);
    }
  }
  d.set("kernels", kernels);
  d.set("main_body", main_body);
  // A run that can fail reports to the platform's error hook (the runtime
  // core's mlip_platform_error); one that cannot calls nothing in the runtime.
  if (std::any_of(in.kernels.begin(), in.kernels.end(), [](const AotKernel& k) { return k.returns_status; }))
    d.set("can_fail", data::type::bool_true);

  const std::string m = in.module;
  const std::string lib0 = render("templates/aot/lib0.c", d);
  size_t at = lib0.find(marker);
  if (at == std::string::npos) {
    if (!in.constants.empty()) fail("internal: template aot/lib0.c has no constant definitions");
    at = lib0.size();
  }
  size_t total = lib0.size();
  for (const auto& c : in.constants) total += c.second->nbytes() * 4 + c.second->nbytes() / kConstantRowBytes * 4 + 512;
  std::string lib0_full;
  lib0_full.reserve(total);
  lib0_full.append(lib0, 0, at);
  for (const auto& [sym, t] : in.constants) {
    lib0_full += c_constant_definition(sym, *t);
    lib0_full += '\n';
  }
  if (at < lib0.size()) lib0_full.append(lib0, at + marker.size(), std::string::npos);
  return {
      {"codegen/host/include/tvmgen_" + m + ".h", render("templates/aot/header.h", d)},
      {"codegen/host/src/" + m + "_lib0.c", std::move(lib0_full)},
      {"codegen/host/src/" + m + "_lib1.c", render("templates/aot/lib1.c", d)},
      {"templates/firmware/main.c", render("templates/firmware/main.c", firmware_main_data(in))},
  };
}

}  // namespace mlipc::c
