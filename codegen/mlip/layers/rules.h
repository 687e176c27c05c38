// Pieces the layer kinds' support rules and nodes-JSON writers share.
#pragma once

#include <any>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ir/graph.h"
#include "ops/spatial.h"
#include "mlip/region_ir.h"
#include "mlip/layer_kind.h"
#include "mlip/target.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

// The parameters of layer l's kind, of the type its lowering stored in
// RLayer::params (each kind's file defines its own).
template <class P>
const P& params_of(const RLayer& l) {
  if (const P* p = std::any_cast<P>(&l.params)) return *p;
  fail("internal: MLIP layer '{}' does not hold its kind's parameters", l.name);
}
template <class P>
P& params_of(RLayer& l) {
  if (P* p = std::any_cast<P>(&l.params)) return *p;
  fail("internal: MLIP layer '{}' does not hold its kind's parameters", l.name);
}

// A 2-D window (CONV2D, the pools): kernel, strides, dilations, pads.
struct Window {
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, pt = 0, pl = 0, pb = 0, pr = 0;
};
// The window of a resolved geometry with kernel kh x kw.
Window window_of(const ops::Geometry& geo, int64_t kh, int64_t kw);

// A float32 4-D (NCHW) tensor.
bool is_float4d(const Graph& g, ValueId v);
// Input i of n is present and a constant.
bool is_const(const Graph& g, const Node& n, size_t i);
// "" or why `batch` images are too many for one layer (kMaxBatch).
std::string batch_reason(int64_t batch);
// "" or why the target cannot run a window: kernel side, stride, or a
// dilation (only where `dilation` says the operator may have one and the
// target supports it).
std::string window_reason(const ops::Geometry& geo, const TargetInfo& target, bool dilation);

// "" or why tensor `v` could not cross a region border (layers/convert.cpp):
// converting one row of one channel must fit the OCM working area.
std::string border_reason(const Value& v, uint32_t work_bytes);

// ELTWISE's rule and lowering (layers/eltwise.cpp), which ADD uses for an
// Add that broadcasts or adds a constant.
std::string eltwise_reason(const Graph& g, const Node& n, const SupportLimits& limits);
void lower_eltwise(LowerContext& ctx, const Node& n);

// The int8 FC (layers/fc.cpp) of a dense 1x1 QLinearConv (conv_is_dense,
// layers/conv2d.cpp: what passes/fold_qdq makes of a QDQ Gemm or MatMul):
// "" or why n rows of k inputs cannot run, and the lowering.
bool conv_is_dense(const Graph& g, const Node& n);
std::string dense_q8_reason(int64_t n, int64_t k, const SupportLimits& limits);
void lower_dense_conv_q8(LowerContext& ctx, const Node& n);

// CHANNEL_SHUFFLE (layers/channel_shuffle.cpp): the Reshape, Transpose,
// Reshape of a channel shuffle in groups, by node index.
struct Shuffle {
  int reshape, transpose, reshape_back;
  int64_t groups;
};
// The shuffle node `node` is one of the three nodes of, or nullopt.
std::optional<Shuffle> shuffle_at(const Graph& g, const std::vector<std::vector<int>>& consumers,
                                  const std::vector<int>& producers, int node);
// "" or why the MLIP cannot run the shuffle.
std::string shuffle_reason(const Graph& g, const Shuffle& s, const SupportLimits& limits);
// Its layer (at the last Reshape; the other two make none).
void lower_shuffle(LowerContext& ctx, const Shuffle& s);

// nodes-JSON: the weights (kernel_layout, kernel_const_name, bias) of a
// layer and a window (padding, strides, pool_size).
void json_weights(const RLayer& l, const char* kernel_layout, nlohmann::json& attrs);
void json_window(const Window& w, nlohmann::json& attrs);

}  // namespace mlipc::mlip::layers
