#include "c/c_backend.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "c/aot.h"
#include "c/constants.h"
#include "c/kernel.h"
#include "c/layout.h"
#include "ops/activation.h"
#include "ops/op.h"
#include "memory/schedule.h"
#include "resources/resources.h"
#include "support/error.h"
#include "support/text.h"

namespace mlipc::c {

bool valid_module_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; });
}

namespace {

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// C comments must not end early on a "*/" inside an ONNX name, nor nest a
// "/*" (-Wcomment), nor carry control bytes (a NUL, a carriage return).
std::string comment_safe(std::string s) {
  s = printable(s);
  for (size_t p; (p = s.find("*/")) != std::string::npos;) s.replace(p, 2, "* /");
  for (size_t p; (p = s.find("/*")) != std::string::npos;) s.replace(p, 2, "/ *");
  return s;
}

[[noreturn]] void fail_no_kernel(const Graph& g, const Node& n) {
  for (ValueId in : n.inputs)
    if (in != kNoValue && !g.value(in).is_constant())
      fail("{}: {} is supported only on constant inputs, where it is folded at compile time; here input '{}' is "
           "computed at run time and mlipc has no CPU kernel for it",
           n.describe(), n.op, g.value(in).name);
  fail("{}: operator {} has no CPU kernel", n.describe(), n.op);
}

// Unique C member names for graph inputs/outputs.
std::vector<IoInfo> io_infos(const Graph& g, const std::vector<GraphIO>& ios, bool tvm_names, const std::string& tvm_base,
                             std::set<std::string>& used) {
  std::vector<IoInfo> out;
  for (size_t i = 0; i < ios.size(); ++i) {
    const Value& v = g.value(ios[i].value);
    IoInfo info{ios[i].name, "", v.dtype, v.shape, v.nbytes(), ios[i].quantized, ios[i].scale, ios[i].zero_point};
    std::string base = tvm_names ? (ios.size() == 1 ? tvm_base : tvm_base + std::to_string(i)) : c_ident(ios[i].name);
    std::string member = base;
    for (int k = 1; used.count(lower(member)); ++k) member = fmt::format("{}_{}", base, k);
    used.insert(lower(member));
    info.member = member;
    out.push_back(info);
  }
  return out;
}

class Generator {
 public:
  Generator(Graph& g, const CodegenOptions& opt) : g_(g), opt_(opt), prefix_("tvmgen_" + opt.module_name) {}

  CModule run() {
    if (!valid_module_name(opt_.module_name))
      fail("module name '{}' is not a C identifier (letters, digits, '_'; not starting with a digit)",
           opt_.module_name);
    for (ValueId v = 0; v < static_cast<ValueId>(g_.num_values()); ++v)
      if (numel(g_.value(v).shape) > std::numeric_limits<int32_t>::max())
        fail("tensor '{}' {} has more than 2^31 elements; the CPU kernels index with int32_t", g_.value(v).name,
             shape_str(g_.value(v).shape));
    std::set<std::string> used;
    m_.inputs = io_infos(g_, g_.inputs, false, "input", used);
    m_.outputs = io_infos(g_, g_.outputs, opt_.tvm_output_names, "output", used);

    // Kernels are prepared first: a kernel's scratch is an arena buffer live
    // at its own step only, planned with the tensors.
    std::vector<KernelSpec> specs(g_.nodes.size());
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      if (!is_view(g_.nodes[i])) specs[i] = prepare(g_.nodes[i], {}, {});
    // A Concat whose inputs are written straight into its output (liveness
    // below) stays row-major: its inputs are then contiguous slices of it.
    if (opt_.arena_reuse) {
      std::vector<memory::Slice> slices;
      for (int i : memory::concat_slices(g_, slices)) specs[static_cast<size_t>(i)].layouts = {};
    }
    // Then the layouts the kernels allow (c/layout.h), and the kernels that
    // touch a channels-last tensor prepared again for it.
    m_.channels_last = plan_layouts(g_, specs);
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      if (is_view(n)) continue;
      std::vector<bool> in_cl, out_cl;
      bool any = false;
      for (ValueId v : n.inputs) any |= in_cl.emplace_back(v != kNoValue && m_.channels_last[v]);
      for (ValueId v : n.outputs) any |= out_cl.emplace_back(v != kNoValue && m_.channels_last[v]);
      if (any) specs[i] = prepare(n, in_cl, out_cl);
    }
    // Where the graph branches, the order whose arena is smallest
    // (memory/schedule.h), the source order on a tie.
    if (opt_.arena_reuse) choose_order(specs);
    std::vector<bool> elided;
    m_.liveness = liveness(g_, pointers(specs), elided);
    // Convolutions that offer a zero-padded copy of their input get it
    // where its scratch keeps their step within the lower bound.
    {
      std::vector<size_t> live(g_.nodes.size(), 0);
      size_t peak = 0;
      for (const memory::Buffer& b : m_.liveness.buffers)
        for (int st = b.first; st <= b.last; ++st)
          live[static_cast<size_t>(st)] += memory::align_up(b.size, opt_.workspace_alignment);
      for (size_t v : live) peak = std::max(peak, v);
      for (size_t i = 0; i < g_.nodes.size(); ++i) {
        const size_t extra = memory::align_up(specs[i].pad_scratch_bytes, opt_.workspace_alignment);
        if (extra > 0 && live[i] + extra <= peak)
          specs[i] = prepare(g_.nodes[i], specs[i].in_cl, specs[i].out_cl, true);
      }
    }
    std::vector<int> scratch_buffer(g_.nodes.size(), -1);
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      if (specs[i].scratch_bytes > 0) {
        scratch_buffer[i] = static_cast<int>(m_.liveness.buffers.size());
        const int step = static_cast<int>(i);
        m_.liveness.buffers.push_back({g_.nodes[i].name + ":scratch", specs[i].scratch_bytes, step, step});
        m_.liveness.buffer_root.push_back(kNoValue);
      }
    m_.plan = memory::plan_memory(m_.liveness.buffers, opt_.workspace_alignment, opt_.memory_planner);
    m_.workspace_size = m_.plan.total;
    m_.workspace_lower_bound = memory::lower_bound(m_.liveness.buffers, opt_.workspace_alignment);

    std::vector<AotKernel> kernels;
    std::vector<std::string> steps;
    for (int i = 0; i < static_cast<int>(g_.nodes.size()); ++i) {
      const Node& n = g_.nodes[i];
      if (is_view(n) || elided[static_cast<size_t>(i)]) continue;
      int layer = static_cast<int>(m_.layers.size());
      KernelSpec& spec = specs[static_cast<size_t>(i)];
      const std::string op = spec.op.empty() ? n.op : spec.op;
      std::string fn = fmt::format("{}_{}_{}", prefix_, layer, c_ident(lower(op)));
      const int sb = scratch_buffer[static_cast<size_t>(i)];
      std::string scratch =
          sb < 0 ? "" : fmt::format("(void*)(workspace + {})", m_.plan.offsets[static_cast<size_t>(sb)]);
      AotKernel k = instantiate(n, spec, op, fn, scratch);
      steps.push_back(fmt::format("  MLIP_LAYER_BEGIN({0});\n  {1}\n  MLIP_LAYER_END({0});\n", layer, k.call));
      kernels.push_back(std::move(k));
      m_.layers.push_back({i, fn, op, n.origins});
    }

    AotInput in;
    in.module = opt_.module_name;
    in.generator = opt_.generator;
    in.workspace_size = m_.workspace_size;
    in.workspace_alignment = opt_.workspace_alignment;
    in.inputs = m_.inputs;
    in.outputs = m_.outputs;
    in.kernels = std::move(kernels);
    in.main_steps = std::move(steps);
    for (const auto& [sym, t] : m_.constants) in.constants.push_back({sym, t});
    m_.files = write_aot_sources(in);
    return std::move(m_);
  }

 private:
  // The C expression of a value's storage as a pointer to its element type.
  std::string pointer(ValueId v, bool write) {
    const Value& val = g_.value(v);
    const std::string t = std::string(write ? "" : "const ") + std::string(dtype_ctype(val.dtype));
    if (numel(val.shape) == 0) return fmt::format("(({}*)0)", t);
    const memory::Storage& s = m_.liveness.storage[v];
    switch (s.kind) {
      case memory::Storage::Input: return fmt::format("({}*)i_{}", t, m_.inputs[s.index].member);
      case memory::Storage::Output:
        if (s.offset > 0) return fmt::format("({}*)((uint8_t*)o_{} + {})", t, m_.outputs[s.index].member, s.offset);
        return fmt::format("({}*)o_{}", t, m_.outputs[s.index].member);
      case memory::Storage::Arena:
        return fmt::format("({}*)(workspace + {})", t, m_.plan.offsets[static_cast<size_t>(s.index)] + s.offset);
      case memory::Storage::Constant: return constant_symbol(s.root);
      default: fail("internal: value '{}' has no storage", val.name);
    }
  }

  std::string constant_symbol(ValueId v) {
    auto it = const_sym_.find(v);
    if (it != const_sym_.end()) return c_constant_values(it->second);
    std::string sym = fmt::format("{}_const_{}", prefix_, const_sym_.size());
    const_sym_[v] = sym;
    const TensorData* t = g_.value(v).constant.get();
    m_.constants.emplace_back(sym, t);
    m_.constants_size += t->nbytes();
    return c_constant_values(sym);
  }

  std::string packed_symbol(const std::shared_ptr<const TensorData>& t) {
    std::string sym = fmt::format("{}_packed_{}", prefix_, m_.packed.size());
    m_.packed.push_back(t);
    m_.constants.emplace_back(sym, t.get());
    m_.constants_size += t->nbytes();
    return c_constant_values(sym);
  }

  KernelSpec prepare(const Node& n, std::vector<bool> in_cl, std::vector<bool> out_cl, bool pad_input = false) {
    const KernelDef* def = find_kernel(n.op);
    if (!def) fail_no_kernel(g_, n);
    KernelSpec spec;
    spec.in_cl = std::move(in_cl);
    spec.out_cl = std::move(out_cl);
    spec.pad_input = pad_input;
    spec.cpu = &opt_.cpu;
    spec.set_flag("unroll", opt_.cpu.unroll_vector_loops());
    spec.set_flag("noinline", opt_.cpu.float_kernels_apart());
    try {
      def->prepare(g_, n, spec);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", n.describe(), e.what()));
    }
    return spec;
  }

  // `scratch` is the C expression of the kernel's scratch buffer, or "".
  AotKernel instantiate(const Node& n, KernelSpec& spec, const std::string& op, const std::string& fn,
                        const std::string& scratch) {
    spec.data.set("fn", fn);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i] == kNoValue) continue;
      const Value& v = g_.value(n.inputs[i]);
      spec.set(fmt::format("in{}_t", i), std::string(dtype_ctype(v.dtype)));
      spec.set(fmt::format("in{}_n", i), numel(v.shape));
    }
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      if (n.outputs[i] == kNoValue) fail("internal: {}: omitted outputs are not supported by the C backend", n.describe());
      const Value& v = g_.value(n.outputs[i]);
      spec.set(fmt::format("out{}_t", i), std::string(dtype_ctype(v.dtype)));
      spec.set(fmt::format("out{}_n", i), numel(v.shape));
    }
    Activation act = activation_of(n.attrs);
    spec.set("act", c_activation(act));
    spec.set("act_block", c_activation_block(act));
    spec.set("act_vector", c_activation_vector(act));
    spec.set_flag("has_act_vector", !c_activation_vector(act).empty());
    spec.set_flag("has_act_block", !c_activation_block(act).empty());

    std::string text(resources::get("templates/kernels/" + spec.template_name));
    const bool block = text.find("{{act_block}}") != std::string::npos;
    if (act.kind != Activation::None && text.find("{{act}}") == std::string::npos && !block)
      fail("internal: {}: template {} ignores the fused activation", n.describe(), spec.template_name);
    if (act.kind == Activation::Sigmoid || act.kind == Activation::Silu || act.kind == Activation::Tanh ||
        act.kind == Activation::Gelu || act.kind == Activation::GeluTanh)
      spec.includes.push_back("mlip/kmath_f.h");
    if (act.kind == Activation::Gelu && block) spec.includes.push_back("mlip/kvec_gelu.h");  // its activation block
    kainjow::mustache::mustache tmpl(text);
    if (!tmpl.is_valid())
      fail("internal: template {}: {}", spec.template_name, tmpl.error_message());
    tmpl.set_custom_escape([](const std::string& s) { return s; });
    AotKernel k;
    k.comment = comment_safe(fmt::format("{} {}: {}", op, n.name, fmt::join(n.origins, ", ")));
    k.code = tmpl.render(spec.data);

    std::vector<std::string> args;
    for (int a : spec.args) {
      if (!n.has_input(static_cast<size_t>(a))) fail("internal: {}: kernel argument #{} is omitted", n.describe(), a);
      args.push_back(pointer(n.inputs[static_cast<size_t>(a)], false));
    }
    for (const auto& t : spec.packed) args.push_back(packed_symbol(t));
    for (ValueId out : n.outputs) args.push_back(pointer(out, true));
    if (!scratch.empty()) args.push_back(scratch);
    k.call = spec.returns_status
                 ? fmt::format("{{\n    int32_t status = {}({});\n    if (status != 0) return status;\n  }}", fn,
                               fmt::join(args, ", "))
                 : fmt::format("{}({});", fn, fmt::join(args, ", "));
    k.includes = spec.includes;
    k.returns_status = spec.returns_status;
    return k;
  }

  static std::vector<const KernelSpec*> pointers(const std::vector<KernelSpec>& specs) {
    std::vector<const KernelSpec*> p;
    p.reserve(specs.size());
    for (const KernelSpec& s : specs) p.push_back(&s);
    return p;
  }

  // The arena buffers of g in its order: values, then in place where a
  // kernel allows it, Concats elided (`elided` flags them) when arena reuse
  // is on.
  // (specs[i] is node i's spec.)
  memory::Liveness liveness(const Graph& g, const std::vector<const KernelSpec*>& specs,
                            std::vector<bool>& elided) const {
    std::vector<memory::InPlace> in_place;
    if (opt_.arena_reuse)
      for (size_t i = 0; i < g.nodes.size(); ++i)
        for (int k : specs[i]->in_place) {
          // Not where the same value is also another input the kernel reads
          // otherwise (a Conv whose fused residual is its own input x: its
          // windows read x after y's first rows are written).
          const ValueId v = g.nodes[i].inputs.at(static_cast<size_t>(k));
          bool other = false;
          for (size_t j = 0; j < g.nodes[i].inputs.size(); ++j)
            other = other || (g.nodes[i].inputs[j] == v && std::find(specs[i]->in_place.begin(), specs[i]->in_place.end(),
                                                                      static_cast<int>(j)) == specs[i]->in_place.end());
          if (!other) in_place.push_back({static_cast<int>(i), v, g.nodes[i].outputs[0]});
        }
    // Concats whose inputs are written straight into their output (and
    // then copy nothing).
    std::vector<memory::Slice> slices;
    elided.assign(g.nodes.size(), false);
    if (opt_.arena_reuse)
      for (int i : memory::concat_slices(g, slices)) elided[static_cast<size_t>(i)] = true;
    return memory::analyze_liveness(g, in_place, slices);
  }

  // The arena a schedule of g needs: its buffers and the kernels' scratch,
  // planned as the module's arena is.
  size_t arena_bytes(const Graph& g, const std::vector<const KernelSpec*>& specs) const {
    std::vector<bool> elided;
    std::vector<memory::Buffer> buffers = liveness(g, specs, elided).buffers;
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (specs[i]->scratch_bytes > 0)
        buffers.push_back({g.nodes[i].name + ":scratch", specs[i]->scratch_bytes, static_cast<int>(i), static_cast<int>(i)});
    return memory::plan_memory(buffers, opt_.workspace_alignment, opt_.memory_planner).total;
  }

  // Reorders g_'s nodes (and their specs) into the candidate order whose
  // arena is strictly smaller than the source order's, if one is.
  void choose_order(std::vector<KernelSpec>& specs) {
    std::vector<std::vector<int>> candidates = memory::candidate_orders(g_);
    if (candidates.empty()) return;
    size_t best_bytes = arena_bytes(g_, pointers(specs));
    const std::vector<int>* best = nullptr;
    for (const std::vector<int>& order : candidates) {
      Graph g = g_;
      memory::reorder(g, order);
      std::vector<const KernelSpec*> s;
      s.reserve(order.size());
      for (int i : order) s.push_back(&specs[static_cast<size_t>(i)]);
      const size_t bytes = arena_bytes(g, s);
      if (bytes < best_bytes) {
        best_bytes = bytes;
        best = &order;
      }
    }
    if (!best) return;
    memory::reorder(g_, *best);
    std::vector<KernelSpec> s;
    s.reserve(best->size());
    for (int i : *best) s.push_back(std::move(specs[static_cast<size_t>(i)]));
    specs = std::move(s);
  }

  Graph& g_;
  const CodegenOptions& opt_;
  std::string prefix_;
  CModule m_;
  std::map<ValueId, std::string> const_sym_;
};

}  // namespace

CModule generate(Graph& g, const CodegenOptions& options) { return Generator(g, options).run(); }

}  // namespace mlipc::c
