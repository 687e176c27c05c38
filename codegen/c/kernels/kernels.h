// Declarations of every CPU kernel's prepare function.
#pragma once

#include <array>

#include "c/kernel.h"
#include "ops/gather_nd.h"
#include "ops/spatial.h"

namespace mlipc::c::kernels {

#define MLIPC_KERNEL(name) void prepare_##name(const Graph& g, const Node& n, KernelSpec& spec);
#include "c/kernels/kernel_list.inc"
#undef MLIPC_KERNEL

// A C initializer "{a, b, ...}" of v, each value through literal(v[i]), 16
// to a line (resize.cpp and tfidf.cpp's tables).
template <class T, class F>
std::string c_initializer(const std::vector<T>& v, F literal) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? (i % 16 == 0 ? ",\n    " : ", ") : "") + literal(v[i]);
  return s + "}";
}

// ISIZE, OSIZE and the per-axis I/O/K/S/D/P<axis> values of a sliding window
// (axes D, H, W), for Conv and the pools.
void set_window(KernelSpec& spec, const ops::Geometry3& geo);

// X<N,C,D,H,W> (input) or Y<...> (output, `prefix` "Y"): the element
// strides of a [N, C, spatial...] tensor's batch, channel and three spatial
// axes (1-D and 2-D with size-1 leading axes), stored row-major or
// channels-last (c/layout.h).
void set_strides(KernelSpec& spec, const std::string& prefix, const Shape& shape, bool channels_last);

// NR and "rects": the output positions of a window grouped into boxes whose
// windows have the same taps inside the input, as a C initializer of
// int32_t [NR][12]: {od0, od1, kd0, kd1, oh0, oh1, kh0, kh1, ow0, ow1, kw0, kw1}
// (output ranges and the kernel ranges they read, ends exclusive); FULL: the
// index of the one whose window is whole (at most one), or -1.
void set_rectangles(KernelSpec& spec, const ops::Geometry3& geo);

// MaxPool and AveragePool (one output): they may read and write either
// layout (spec.layouts); when either tensor is channels-last, fills the
// common values of pool_cl.c and returns true (the caller adds "max" and its
// values), else leaves the row-major template to the caller.
bool set_pool_cl(const Graph& g, const Node& n, KernelSpec& spec, const ops::Geometry3& geo);

// "k", "dims", "strides", "batches", "tuples", "chunk" and "batch_stride" of a
// GatherND / ScatterND geometry, for their templates.
void set_nd_geometry(KernelSpec& spec, const ops::NdGeometry& geo);

// A sub-graph compiled by a backend: the C call its compiled form describes
// (ops/subgraph.h; c/kernels/subgraph.cpp).
void prepare_Subgraph(const Graph& g, const Node& n, KernelSpec& spec);

// mlipc.QLinearLookup (ops/qlinear.h): y = table[x - type minimum].
void prepare_QLinearLookup(const Graph& g, const Node& n, KernelSpec& spec);
// 4-bit weights as mlip/kq4.h reads them: w, m rows of k int8 values (each
// q * 2^e, q in [-8, 7], e in [0, 4] per block of `block` along a row), as
// the nibble stream of the q then that of each block's e (the smallest that
// holds the block), low nibbles first. A value no such q and e give fails
// naming `what`.
TensorData pack_weights_4bit(const TensorData& w, int64_t m, int64_t k, int64_t block, const std::string& what);

// The integer operands of ConvInteger, QLinearConv and mlipc.QLinearConvTranspose
// (c/kernels/conv_integer.cpp): inputs x, w and their optional zero points
// (node input indices {x, w, x_zp, w_zp}) as the kernel's first arguments,
// their C types x_t and w_t, has_zx, has_zw, and zw_index (`channel`, the
// template's variable naming an output's weight zero point, or 0 for one).
void set_integer_operands(const Graph& g, const Node& n, KernelSpec& spec, const std::array<int, 4>& in,
                          const char* channel);
// QLinearConv's and mlipc.QLinearConvTranspose's requantization baked into
// their kernel (c/kernels/conv_integer.cpp): y_t, the (q, shift) lists NQ,
// q_list, shift_list, q_index (`channel`, the template's variable naming an
// output's entry, or 0 for one entry), the clamp LO, HI, has_bias, and the
// arguments y_zero_point (input 7) and the optional bias (input 8).
void set_qlinear_conv_requant(const Graph& g, const Node& n, KernelSpec& spec, const char* channel);
// mlipc.QLinearConvTranspose (ops/conv_transpose.h), in c/kernels/conv_transpose.cpp.
void prepare_QLinearConvTranspose(const Graph& g, const Node& n, KernelSpec& spec);

}  // namespace mlipc::c::kernels
