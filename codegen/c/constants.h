// Constant tensors in the generated C: each one a union of its bytes, written
// as string literals (a compiler reads a string in a fraction of the time it
// takes over an initializer list of numbers: ~10x for a large weight blob),
// and its values, which the kernels read (`<sym>.v`).
#pragma once

#include <string>

#include "ir/tensor_data.h"

namespace mlipc::c {

// The bytes of a constant go in rows of this many, each one string literal
// (C99 promises string literals of 4095 characters; a row is 4 per byte).
constexpr size_t kConstantRowBytes = 512;

// "const union { ... } <sym>": the type and name, without the initializer,
// the same text for the definition and for an extern declaration.
std::string c_constant_declarator(const std::string& sym, const TensorData& t);

// The definition: the declarator in .rodata.tvm, 16-byte aligned, and its
// bytes in the host's (little-endian) order.
std::string c_constant_definition(const std::string& sym, const TensorData& t);

// How a kernel names the constant's values: a `const <ctype>*` expression.
std::string c_constant_values(const std::string& sym);

}  // namespace mlipc::c
