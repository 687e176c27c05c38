// BitShift: x << s or x >> s in the unsigned type's wrapping width, 0 when s
// is the type's width or more (C leaves that undefined), as ops/bitshift.cpp.
#include <fmt/format.h>

#include "c/kernels/elementwise.h"
#include "c/kernels/kernels.h"
#include "ops/elem.h"

namespace mlipc::c::kernels {

void prepare_BitShift(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_dtype_in(g, n, 0, ops::unsigned_types());
  const DType t = g.value(n.inputs[0]).dtype;
  const std::string u = dtype_size(t) > 4 ? "uint64_t" : "uint32_t";
  const char* op = n.attrs.get_string("direction") == "LEFT" ? "<<" : ">>";
  elementwise_kernel(g, n, spec,
                     {{0, 1},
                      define_v(g, n, fmt::format("v1 >= {} ? 0 : ({})(({})v0 {} v1)", dtype_size(t) * 8,
                                                 dtype_ctype(t), u, op)),
                      {}});
}

}  // namespace mlipc::c::kernels
