// Declarations of every CPU kernel's prepare function.
#pragma once

#include "c/kernel.h"
#include "ir/ops/gather_nd.h"
#include "ir/ops/spatial.h"

namespace mlipc::c::kernels {

#define MLIPC_KERNEL(name) void prepare_##name(const Graph& g, const Node& n, KernelSpec& spec);
#include "c/kernels/kernel_list.inc"
#undef MLIPC_KERNEL

// ISIZE, OSIZE and the per-axis I/O/K/S/D/P<axis> values of a sliding window
// (axes D, H, W), for Conv and the pools.
void set_window(KernelSpec& spec, const ops::Geometry3& geo);

// "k", "dims", "strides", "batches", "tuples", "chunk" and "batch_stride" of a
// GatherND / ScatterND geometry, for their templates.
void set_nd_geometry(KernelSpec& spec, const ops::NdGeometry& geo);

// A sub-graph compiled by a backend: for the MLIP's (codegen/mlip), a call
// of the runtime's mlip_region_run (c/kernels/mlip_region.cpp).
void prepare_Subgraph(const Graph& g, const Node& n, KernelSpec& spec);

// mlipc.QLinearLookup (ir/ops/qlinear.h): y = table[x - type minimum].
void prepare_QLinearLookup(const Graph& g, const Node& n, KernelSpec& spec);
// mlipc.QLinearConvTranspose (ir/ops/conv_transpose.h), in c/kernels/conv_transpose.cpp.
void prepare_QLinearConvTranspose(const Graph& g, const Node& n, KernelSpec& spec);

}  // namespace mlipc::c::kernels
