// Storage layouts of the CPU tensors. A tensor is stored row-major as its
// shape says ([N, C, D1.., Dk]: "NCHW") unless the backend stores it
// channels-last ([N, D1.., Dk, C]: "NHWC"), which lets a convolution keep a
// block of output channels in a vector and store it in one piece, and a
// depthwise convolution or a pool load one. The choice is the backend's
// alone: the IR, the reference evaluator and every graph input, output and
// constant keep the shape's order, and a kernel computes the same bits in
// either layout (only its addresses change).
#pragma once

#include <vector>

#include "c/kernel.h"
#include "ir/graph.h"

namespace mlipc::c {

// True when `shape` has the same bytes in both layouts: rank below 3, or at
// most one of the channel axis and the spatial axes above extent 1.
bool layout_invariant(const Shape& shape);

// The shape as stored: `shape` right-aligned to `rank` axes (numpy
// broadcasting's leading 1s), then, for channels-last, axis 1 moved last.
Shape stored_shape(const Shape& shape, size_t rank, bool channels_last);

// Per value, whether it is stored channels-last. A value is when it is an
// arena tensor (computed by a kernel, not a graph output, not read or made
// by a view) whose bytes differ between the layouts, its writer and every
// reader can handle channels-last (their specs' `layouts`), and so can every
// value a Tied kernel binds to it.
std::vector<bool> plan_layouts(const Graph& g, const std::vector<KernelSpec>& specs);

}  // namespace mlipc::c
