// Einsum: one- and two-operand equations (ops/einsum.h says which forms),
// float32 and float64. Each output element sums, from 0, the product of the
// operands' elements over the summed labels in order of first appearance in
// the equation (the last label fastest), in the element type.
#include "ops/einsum.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

// Labels: letters 0..51, the ellipsis axes 52 + k (k counted from the left of
// the widest ellipsis).
constexpr int kEllipsis = 52;

int letter_id(char ch) { return ch >= 'a' && ch <= 'z' ? ch - 'a' : 26 + (ch - 'A'); }
std::string label_name(int id) {
  if (id >= kEllipsis) return fmt::format("...{}", id - kEllipsis);
  return std::string(1, static_cast<char>(id < 26 ? 'a' + id : 'A' + (id - 26)));
}

// A term as written: letters, with at most one ellipsis (position `ell`, or -1).
struct Term {
  std::vector<int> letters;
  int ell = -1;
};

Term parse_term(const std::string& text, const std::string& equation) {
  Term t;
  for (size_t i = 0; i < text.size();) {
    const char ch = text[i];
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
      t.letters.push_back(letter_id(ch));
      ++i;
    } else if (text.compare(i, 3, "...") == 0) {
      if (t.ell >= 0) fail("equation '{}': term '{}' has more than one ellipsis", equation, text);
      t.ell = static_cast<int>(t.letters.size());
      i += 3;
    } else {
      fail("equation '{}': '{}' is not a label (letters a-z, A-Z and '...' only)", equation, std::string(1, ch));
    }
  }
  return t;
}

// The labels of a term for an operand of `rank` axes, the ellipsis expanded
// to the last `rank - letters` of the `width` ellipsis labels.
std::vector<int> expand(const Term& t, int rank, int width) {
  std::vector<int> v(t.letters.begin(), t.letters.end());
  if (t.ell >= 0) {
    const int n = rank - static_cast<int>(t.letters.size());
    std::vector<int> e;
    for (int k = 0; k < n; ++k) e.push_back(kEllipsis + width - n + k);
    v.insert(v.begin() + t.ell, e.begin(), e.end());
  }
  return v;
}

}  // namespace

EinsumPlan plan_einsum(const std::string& equation, const std::vector<Shape>& shapes) {
  std::string eq;
  for (char ch : equation)
    if (ch != ' ') eq += ch;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != shapes.size())
    fail("equation '{}' has {} input terms but the node has {} inputs", equation, terms.size(), shapes.size());
  if (shapes.empty() || shapes.size() > 2)
    fail("Einsum with {} operands is not supported; mlipc runs equations of one or two operands", shapes.size());

  EinsumPlan p;
  p.operands = static_cast<int>(shapes.size());
  std::vector<Term> parsed;
  int width = 0;  // ellipsis axes of the broadcast
  for (size_t k = 0; k < terms.size(); ++k) {
    parsed.push_back(parse_term(terms[k], equation));
    const Term& t = parsed.back();
    const int rank = static_cast<int>(shapes[k].size()), n = static_cast<int>(t.letters.size());
    if (t.ell < 0 ? rank != n : rank < n)
      fail("equation '{}': term '{}' names {} axes; input {} has shape {}", equation, terms[k], n, k,
           shape_str(shapes[k]));
    if (t.ell >= 0) width = std::max(width, rank - n);
  }

  // Extents per label (the ellipsis axes broadcast), the order labels first
  // appear in, and how often each occurs.
  std::vector<std::vector<int>> labels;
  std::map<int, EinsumAxis> axes;
  std::vector<int> order;
  std::map<int, int> count;
  for (size_t k = 0; k < parsed.size(); ++k) {
    labels.push_back(expand(parsed[k], static_cast<int>(shapes[k].size()), width));
    for (size_t i = 0; i < labels[k].size(); ++i) {
      const int id = labels[k][i];
      const int64_t ext = shapes[k][i];
      auto [it, fresh] = axes.try_emplace(id);
      EinsumAxis& a = it->second;
      ++count[id];
      if (fresh) {
        order.push_back(id);
        a.label = label_name(id);
        a.extent = ext;
      } else if (a.extent != ext) {
        if (id < kEllipsis || (a.extent != 1 && ext != 1))
          fail("equation '{}': label '{}' has extent {} in one place and {} in input {} {}", equation, a.label,
               a.extent, ext, k, shape_str(shapes[k]));
        a.extent = std::max(a.extent, ext);
      }
    }
  }
  // Strides: a label repeated in a term adds its axes' strides (the diagonal);
  // an operand broadcasting an ellipsis axis (extent 1) adds none.
  for (size_t k = 0; k < parsed.size(); ++k) {
    const std::vector<int64_t> strides = strides_of(shapes[k]);
    for (size_t i = 0; i < labels[k].size(); ++i) {
      EinsumAxis& a = axes[labels[k][i]];
      if (shapes[k][i] == a.extent) a.stride[k] += strides[i];
    }
  }

  std::vector<int> out;
  if (arrow != std::string::npos) {
    const std::string rhs = eq.substr(arrow + 2);
    if (rhs.find("->") != std::string::npos || rhs.find(',') != std::string::npos)
      fail("equation '{}' has more than one output term", equation);
    const Term t = parse_term(rhs, equation);
    out = expand(t, static_cast<int>(t.letters.size()) + (t.ell >= 0 ? width : 0), width);
    for (size_t i = 0; i < out.size(); ++i) {
      if (!axes.count(out[i]))
        fail("equation '{}': output label '{}' does not appear in any input", equation, label_name(out[i]));
      if (std::find(out.begin(), out.begin() + static_cast<long>(i), out[i]) != out.begin() + static_cast<long>(i))
        fail("equation '{}': output label '{}' appears twice", equation, label_name(out[i]));
    }
  } else {
    for (int e = 0; e < width; ++e) out.push_back(kEllipsis + e);
    std::vector<char> once;
    for (const auto& [id, n] : count)
      if (id < kEllipsis && n == 1) once.push_back(label_name(id)[0]);
    std::sort(once.begin(), once.end());  // ASCII: upper case first
    for (char ch : once) out.push_back(letter_id(ch));
  }
  for (int id : out) {
    p.out.push_back(axes[id]);
    p.out_shape.push_back(axes[id].extent);
  }
  for (int id : order)
    if (std::find(out.begin(), out.end(), id) == out.end()) p.sum.push_back(axes[id]);
  return p;
}

void infer_Einsum(InferContext& ctx) {
  if (ctx.num_inputs() < 1) fail("expects at least 1 input");
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  std::vector<Shape> shapes;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    ctx.expect_dtype(i, {DType::Float32, DType::Float64});
    if (ctx.in_dtype(i) != ctx.in_dtype(0))
      fail("input #{} has element type {}; every input must be {} like input #0", i, dtype_name(ctx.in_dtype(i)),
           dtype_name(ctx.in_dtype(0)));
    shapes.push_back(ctx.in_shape(i));
  }
  if (!ctx.attrs().has("equation")) fail("attribute equation is required");
  const EinsumPlan p = plan_einsum(ctx.attrs().get_string("equation"), shapes);
  ctx.set_output(0, ctx.in_dtype(0), p.out_shape);
}

void eval_Einsum(EvalContext& ctx) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) shapes.push_back(ctx.in(static_cast<int>(i)).shape());
  const EinsumPlan p = plan_einsum(ctx.attrs().get_string("equation"), shapes);
  visit_numeric(ctx.in(0).dtype(), "Einsum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* a = ctx.in(0).data<T>();
    const T* b = p.operands == 2 ? ctx.in(1).data<T>() : nullptr;
    T* y = ctx.outputs[0].data<T>();
    const int64_t total = ctx.outputs[0].numel();
    int64_t terms = 1;
    for (const EinsumAxis& s : p.sum) terms *= s.extent;
    std::vector<int64_t> oi(p.out.size(), 0);
    for (int64_t o = 0; o < total; ++o) {
      int64_t oa = 0, ob = 0;
      for (size_t d = 0; d < p.out.size(); ++d) {
        oa += oi[d] * p.out[d].stride[0];
        ob += oi[d] * p.out[d].stride[1];
      }
      T sum = T(0);
      std::vector<int64_t> si(p.sum.size(), 0);
      for (int64_t t = 0; t < terms; ++t) {
        int64_t sa = oa, sb = ob;
        for (size_t d = 0; d < p.sum.size(); ++d) {
          sa += si[d] * p.sum[d].stride[0];
          sb += si[d] * p.sum[d].stride[1];
        }
        sum += b ? a[sa] * b[sb] : a[sa];
        for (size_t d = p.sum.size(); d-- > 0;) {  // odometer, last label fastest
          if (++si[d] < p.sum[d].extent) break;
          si[d] = 0;
        }
      }
      y[o] = sum;
      for (size_t d = p.out.size(); d-- > 0;) {
        if (++oi[d] < p.out[d].extent) break;
        oi[d] = 0;
      }
    }
  });
}

}  // namespace mlipc::ops
