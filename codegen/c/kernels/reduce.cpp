// The Reduce* family: nested loops over the kept axes (the output in order),
// inside them nested loops over the reduced axes, input offsets from baked
// strides; the kind's accumulator, step and result are C snippets. Same
// order and expressions as the reference in ops/reduce.cpp.
#include <limits>

#include <fmt/format.h>

#include "c/kernels/kernels.h"
#include "ops/reduce.h"
#include "support/error.h"

namespace mlipc::c::kernels {

namespace {

struct Snippets {
  std::string acc_t, init, step, result;
};

// For float32 (suffix "f") and float64 (no suffix).
Snippets float_snippets(ops::ReduceKind k, int64_t count, bool dbl) {
  using K = ops::ReduceKind;
  const std::string f = dbl ? "" : "f", t = dbl ? "double" : "float";
  Snippets s{t, dbl ? "0.0" : "0.0f", "acc += v;", "acc"};
  switch (k) {
    case K::Max: s.init = "(-INFINITY)"; s.step = "acc = (v > acc || isnan(v)) ? v : acc;"; break;
    case K::Min: s.init = "INFINITY"; s.step = "acc = (v < acc || isnan(v)) ? v : acc;"; break;
    case K::Prod: s.init = dbl ? "1.0" : "1.0f"; s.step = "acc *= v;"; break;
    case K::L1: s.step = "acc += fabs" + f + "(v);"; break;
    case K::L2: s.step = "acc += v * v;"; s.result = "sqrt" + f + "(acc)"; break;
    case K::SumSquare: s.step = "acc += v * v;"; break;
    case K::LogSum: s.result = (dbl ? "mlip_log" : "mlip_logf") + std::string("(acc)"); break;
    case K::LogSumExp:
      s.step = (dbl ? "acc += mlip_exp(v - shift);" : "acc += mlip_expf(v - shift);");
      s.result = (dbl ? "mlip_log(acc) + shift" : "mlip_logf(acc) + shift");
      break;
    case K::Mean:
      s.result = "acc / " + (dbl ? c_double(static_cast<double>(count)) : c_float(static_cast<float>(count)));
      break;
    case K::Sum: break;
  }
  return s;
}

template <class T>
Snippets int_snippets(ops::ReduceKind k, const std::string& t, const std::string& u) {
  using K = ops::ReduceKind;
  if (k == K::Max)
    return {t, c_int(std::numeric_limits<T>::lowest()), "acc = v > acc ? v : acc;", "acc"};
  if (k == K::Min)
    return {t, c_int(std::numeric_limits<T>::max()), "acc = v < acc ? v : acc;", "acc"};
  // Unsigned accumulators: overflow wraps as in the reference.
  const std::string cast = "(" + u + ")";
  Snippets s{u, "0", fmt::format("acc += {}v;", cast), fmt::format("({})acc", t)};
  if (k == K::Prod) {
    s.init = "1";
    s.step = fmt::format("acc *= {}v;", cast);
  } else if (k == K::L1) {
    s.step = fmt::format("acc += v < 0 ? {0}0 - {0}v : {0}v;", cast);
  } else if (k == K::SumSquare) {
    s.step = fmt::format("acc += {0}v * {0}v;", cast);
  }
  return s;
}

Snippets snippets(ops::ReduceKind k, DType t, int64_t count) {
  const std::string ct(dtype_ctype(t));
  switch (t) {
    case DType::Float32: return float_snippets(k, count, false);
    case DType::Float64: return float_snippets(k, count, true);
    case DType::Int32: return int_snippets<int32_t>(k, ct, "uint32_t");
    case DType::Int64: return int_snippets<int64_t>(k, ct, "uint64_t");
    case DType::Int8: return int_snippets<int8_t>(k, ct, "uint8_t");
    case DType::UInt8: return int_snippets<uint8_t>(k, ct, "uint8_t");
    default: fail("element type {} is not supported by the CPU kernel", dtype_name(t));
  }
}

void prepare_reduce(const Graph& g, const Node& n, KernelSpec& spec) {
  const ops::ReduceKind k = ops::reduce_kind(n.op);
  const Value& x = g.value(n.inputs[0]);
  if (k == ops::ReduceKind::Max || k == ops::ReduceKind::Min)
    expect_dtype(g, n, 0, {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Int8, DType::UInt8});
  else if (ops::reduce_allows_integers(k))
    expect_dtype(g, n, 0, {DType::Float32, DType::Float64, DType::Int32, DType::Int64});
  else
    expect_dtype(g, n, 0, {DType::Float32, DType::Float64});
  const TensorData* axes = n.has_input(1) ? g.value(n.inputs[1]).constant.get() : nullptr;
  if (n.has_input(1) && !axes) fail("axes must be a constant known at compile time");
  const ops::ReduceLoops l = ops::reduce_loops(n.attrs, x.shape, axes);
  // One numbering for both nests: s<d> is the input offset after loop d.
  std::vector<TemplateData> kept, reduced;
  size_t d = 0;
  auto add = [&](std::vector<TemplateData>& list, int64_t dim, int64_t stride) {
    ++d;
    TemplateData item;
    item.set("d", std::to_string(d));
    item.set("p", std::to_string(d - 1));
    item.set("dim", c_int(dim));
    item.set("stride", c_int(stride));
    list.push_back(item);
  };
  for (size_t i = 0; i < l.kept_dims.size(); ++i) add(kept, l.kept_dims[i], l.kept_strides[i]);
  const size_t nkept = d;
  for (size_t i = 0; i < l.reduced_dims.size(); ++i) add(reduced, l.reduced_dims[i], l.reduced_strides[i]);
  // The grouped form takes an output's offset apart from its index, the
  // innermost kept axis first.
  std::vector<TemplateData> kept_rev(kept.rbegin(), kept.rend());
  const Snippets s = snippets(k, x.dtype, l.count);
  spec.set("op", n.op);
  spec.set("r", std::to_string(d));
  spec.set_list("kept", kept);
  spec.set_list("kept_rev", kept_rev);
  spec.set("k", std::to_string(nkept));
  spec.set("nout", c_int(numel(l.out)));
  spec.set_list("reduced", reduced);
  spec.set_flag("lse", k == ops::ReduceKind::LogSumExp);
  spec.set("zero", x.dtype == DType::Float64 ? "0.0" : "0.0f");
  spec.set("acc_t", s.acc_t);
  spec.set("init", s.init);
  spec.set("step", s.step);
  spec.set("result", s.result);
  spec.includes.push_back("mlip/kvec.h");  // MLIP_VUNROLL
  spec.template_name = "reduce.c";
  spec.args = {0};
}

}  // namespace

void prepare_ReduceL1(const Graph& g, const Node& n, KernelSpec& spec) { prepare_reduce(g, n, spec); }
void prepare_ReduceL2(const Graph& g, const Node& n, KernelSpec& spec) { prepare_reduce(g, n, spec); }
void prepare_ReduceLogSum(const Graph& g, const Node& n, KernelSpec& spec) { prepare_reduce(g, n, spec); }
void prepare_ReduceLogSumExp(const Graph& g, const Node& n, KernelSpec& spec) { prepare_reduce(g, n, spec); }
void prepare_ReduceMax(const Graph& g, const Node& n, KernelSpec& spec) { prepare_reduce(g, n, spec); }
void prepare_ReduceMean(const Graph& g, const Node& n, KernelSpec& spec) { prepare_reduce(g, n, spec); }
void prepare_ReduceMin(const Graph& g, const Node& n, KernelSpec& spec) { prepare_reduce(g, n, spec); }
void prepare_ReduceProd(const Graph& g, const Node& n, KernelSpec& spec) { prepare_reduce(g, n, spec); }
void prepare_ReduceSum(const Graph& g, const Node& n, KernelSpec& spec) { prepare_reduce(g, n, spec); }
void prepare_ReduceSumSquare(const Graph& g, const Node& n, KernelSpec& spec) { prepare_reduce(g, n, spec); }

}  // namespace mlipc::c::kernels
