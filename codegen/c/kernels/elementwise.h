// The one template of every elementwise operator (templates/kernels/elementwise.c):
// k inputs broadcast together (numpy's rule; k = 1 is a plain map), nested
// loops over the simplified output axes with each input's offset built from
// baked strides, and a per-operator body that computes the element. The
// element access matches the reference's (ops/elem.h): float16 is loaded
// into float and rounded back on store, bool reads as 0 or 1.
#pragma once

#include <string>
#include <vector>

#include "c/kernel.h"

namespace mlipc::c::kernels {

// C spellings of ops/elem.h for element type t.
std::string c_compute_type(DType t);                    // "float" for float16, "int" for bool
std::string c_load(DType t, const std::string& e);      // storage -> compute
std::string c_store(DType t, const std::string& e);     // compute -> storage
std::string c_round(DType t, const std::string& e);     // float16: round to float16 and back
// The value v as a literal of compute type t ("0.5f", "0.5", "(int8_t)3").
std::string c_const(DType t, double v);
// "(v != v ? 0 : v <= lo ? lo : v >= hi ? hi : (T)v)": ops::saturate_cast of
// floating-point expression `e` of type `from` to integer type `to`.
std::string c_saturate(DType to, DType from, const std::string& e);

// Throws unless input i has one of the listed element types.
void expect_dtype_in(const Graph& g, const Node& n, int input, const std::vector<DType>& allowed);

struct ElementwiseBody {
  std::vector<int> inputs;  // node inputs read, loaded as v0, v1, ... in their compute types
  std::string body;         // C statements that define `v`, the output's compute type, from them
  // Shapes the inputs are read with when not their own (PRelu's legacy slope); empty: their own.
  std::vector<Shape> read_shapes;
};

// Fills `spec` for elementwise.c. The output is node output 0. A caller may
// then set "post": C statements run after the loops on the whole output y
// (Exp and Erf map it in place with mlip/kmath_n.h's array forms).
void elementwise_kernel(const Graph& g, const Node& n, KernelSpec& spec, const ElementwiseBody& b);

// A float32 map y = f(x) of one input as one call of mlip/kmath_f.h's map
// form `map_fn` (templates/kernels/map_f.c): one pass over the elements,
// in place where the planner gives y x's bytes. The input has the output's
// shape and layout, so the stored elements correspond one to one.
void float32_map_f(const Graph& g, const Node& n, KernelSpec& spec, const char* map_fn);

// The common case: one statement "<ct> v = <expr>;" with the output's compute type.
std::string define_v(const Graph& g, const Node& n, const std::string& expr);

}  // namespace mlipc::c::kernels
