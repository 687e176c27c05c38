#include "c/kernel.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "support/error.h"

namespace mlipc::c {

void KernelSpec::set_list(const std::string& key, const std::vector<TemplateData>& items) {
  TemplateData list{TemplateData::type::list};
  for (const TemplateData& item : items) list.push_back(item);
  data.set(key, list);
}

const KernelDef* find_kernel(std::string_view op);  // defined in kernel_table.cpp

namespace {
std::string finish_float(std::string s) {
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}
}  // namespace

std::string c_float(float v) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
  // fmt prints the shortest decimal that reads back as the same float.
  return finish_float(fmt::format("{}", v)) + "f";
}

std::string c_double(double v) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
  return finish_float(fmt::format("{}", v));
}

// A C string literal's content: model names may hold quotes, backslashes,
// control bytes, or "??/" (a trigraph under -std=c99: every '?' is escaped).
std::string c_string(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\' || ch == '?') out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) out += fmt::format("\\{:03o}", static_cast<unsigned char>(ch));
    else out += ch;
  }
  return out;
}

std::string c_int(int64_t v) {
  if (v == std::numeric_limits<int64_t>::min()) return "(-9223372036854775807LL - 1)";
  if (v == std::numeric_limits<int32_t>::min()) return "(-2147483647 - 1)";
  if (v > std::numeric_limits<int32_t>::max() || v < std::numeric_limits<int32_t>::min())
    return fmt::format("{}LL", v);
  return std::to_string(v);
}

std::string c_scalar(const TensorData& v) {
  switch (v.dtype()) {
    case DType::Float32: return c_float(v.data<float>()[0]);
    case DType::Float64: return c_double(v.data<double>()[0]);
    case DType::Float16:
    case DType::BFloat16: return fmt::format("0x{:04x}", v.raw_as<uint16_t>()[0]);
    case DType::Bool: return v.raw()[0] ? "1" : "0";
    case DType::UInt64: return fmt::format("{}ULL", v.data<uint64_t>()[0]);
    case DType::UInt32: return fmt::format("{}U", v.data<uint32_t>()[0]);
    default: return c_int(v.as_int64()[0]);
  }
}

std::string c_ident(std::string_view name) {
  // C99/C11 keywords, and the names <stdbool.h>/<stddef.h> define.
  static const std::set<std::string> reserved = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool",
      "_Complex", "_Imaginary", "_Alignas", "_Alignof", "_Atomic", "_Generic", "_Noreturn", "_Static_assert",
      "_Thread_local", "bool", "true", "false", "NULL"};
  std::string s;
  for (char ch : name) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "_" + s;
  if (reserved.count(s)) s += "_";
  return s;
}

std::string c_activation(const Activation& a) {
  switch (a.kind) {
    case Activation::Relu: return "v = v <= 0.0f ? 0.0f : v;";  // Activation::relu: a NaN stays NaN
    case Activation::LeakyRelu: return fmt::format("v = v < 0.0f ? v * {} : v;", c_float(a.alpha));
    case Activation::Clip:
      // Bounds in sequence: with lo > hi every value becomes hi, as in ONNX.
      return fmt::format("v = v < {0} ? {0} : v; v = v > {1} ? {1} : v;", c_float(a.lo), c_float(a.hi));
    // mlip/kmath_f.h's float-precision functions (the reference,
    // ops/activation.h, calls the same ones).
    case Activation::Sigmoid: return "v = mlip_sigmoid_f(v);";
    case Activation::Tanh: return "v = mlip_tanh_f(v);";
    case Activation::Silu: return "v = mlip_silu_f(v);";
    case Activation::Gelu: return "v = mlip_gelu_f(v);";
    case Activation::GeluTanh: return "v = mlip_gelu_tanh_f(v);";
    case Activation::HardSigmoid:  // Activation::hard_sigmoid
      return fmt::format("{{ const float t = {} * v + {}; v = t > 1.0f ? 1.0f : (t < 0.0f ? 0.0f : t); }}",
                         c_float(a.alpha), c_float(a.beta));
    case Activation::HardSwish:  // v times Activation::hard_sigmoid
      return fmt::format("{{ const float t = {} * v + {}; v = v * (t > 1.0f ? 1.0f : (t < 0.0f ? 0.0f : t)); }}",
                         c_float(a.alpha), c_float(a.beta));
    default: return "";
  }
}

std::string c_activation_block(const Activation& a) {
  if (a.kind == Activation::Sigmoid) return "mlip_sigmoid_f_n(t, nt);";
  if (a.kind == Activation::Silu) return "mlip_silu_f_n(t, nt);";
  if (a.kind == Activation::Tanh) return "mlip_tanh_f_n(t, nt);";
  if (a.kind == Activation::Gelu) return "mlip_gelu_f_vn(t, nt);";  // mlip/kvec_gelu.h
  if (a.kind == Activation::GeluTanh) return "mlip_gelu_tanh_f_n(t, nt);";
  const std::string one = c_activation(a);
  if (one.empty()) return "";
  return "{\n      int32_t k_;\n      for (k_ = 0; k_ < nt; ++k_) {\n        float v = t[k_];\n        " + one +
         "\n        t[k_] = v;\n      }\n    }";
}

std::string c_activation_vector(const Activation& a) {
  // `(vt){0} + c`: a vector of c; a comparison gives the vm mask.
  const auto clamp01 = [](const std::string& t) {
    return fmt::format("MLIP__VSEL({0} > 1.0f, (vt){{0}} + 1.0f, MLIP__VSEL({0} < 0.0f, (vt){{0}}, {0}))", t);
  };
  switch (a.kind) {
    case Activation::Relu: return "v = MLIP__VSEL(v <= 0.0f, (vt){0}, v);";
    case Activation::LeakyRelu: return fmt::format("v = MLIP__VSEL(v < 0.0f, v * {}, v);", c_float(a.alpha));
    case Activation::Clip:
      return fmt::format("v = MLIP__VSEL(v < {0}, (vt){{0}} + {0}, v); v = MLIP__VSEL(v > {1}, (vt){{0}} + {1}, v);",
                         c_float(a.lo), c_float(a.hi));
    case Activation::HardSigmoid:
      return fmt::format("{{ const vt s_ = {} * v + {}; v = {}; }}", c_float(a.alpha), c_float(a.beta), clamp01("s_"));
    case Activation::HardSwish:
      return fmt::format("{{ const vt s_ = {} * v + {}; v = v * {}; }}", c_float(a.alpha), c_float(a.beta),
                         clamp01("s_"));
    default: return "";
  }
}

void expect_dtype(const Graph& g, const Node& n, int input, std::initializer_list<DType> allowed) {
  DType t = g.value(n.inputs.at(static_cast<size_t>(input))).dtype;
  if (std::find(allowed.begin(), allowed.end(), t) != allowed.end()) return;
  std::string names;
  for (DType a : allowed) names += (names.empty() ? "" : ", ") + std::string(dtype_name(a));
  fail("element type {} is not supported by the CPU kernel (supported: {})", dtype_name(t), names);
}

void expect_float(const Graph& g, const Node& n, int input) { expect_dtype(g, n, input, {DType::Float32}); }

}  // namespace mlipc::c
