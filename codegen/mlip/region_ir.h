// A region on its way to a command buffer: DDR tensors, layers (composites
// in NHWC/OHWI form with fp16 weights), and finally commands per tile.
#pragma once

#include <any>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mlip/cmdbuf.h"

namespace mlipc::mlip {

// Element sizes: tensors inside a region and weights are fp16; region inputs
// and outputs, biases and dense accumulators are fp32.
constexpr int64_t kF16Bytes = 2;
constexpr int64_t kF32Bytes = 4;

// A tensor the region reads or writes in DDR.
struct RTensor {
  std::string name;
  enum Home { Input, Output, Scratch } home = Scratch;
  int index = 0;               // binding number for Input/Output
  int64_t n = 1;               // batch (images)
  int64_t h = 1, w = 1, c = 1; // NHWC dims of one image; a 2-D [N, K] tensor is h = w = 1, c = K
  bool planar = false;         // fp32 NCHW (region inputs/outputs) rather than fp16 NHWC
  bool flat = false;           // a [1, C*H*W] view of an NHWC tensor whose ONNX order is c, h, w:
                               // a dense layer reading it reorders its weights
  bool hwc_order = false;      // a 4-D tensor whose ONNX order is already h, w, c (after Transpose 0,2,3,1)
  // Row-major: the bytes are in the ONNX order of `dims` (the tensors of the
  // row-major kinds: MATMUL, SOFTMAX, LAYERNORM, ...; n = dims[0], h = 1,
  // w = the middle dims' product, c = the last dim). A 4-D tensor that is
  // not row-major is NHWC; a 2-D or 3-D one has the same bytes either way.
  bool rowmajor = false;
  std::vector<int64_t> dims;   // the ONNX shape
  int alias_of = -1;           // shares the bytes of another tensor (flatten)
  uint32_t dtype = MLIP_DT_FP16; // MLIP_DT_INT8/UINT8: one byte per element, in DDR and OCM (int8 regions);
                                 // MLIP_DT_INT16 (16x8): two
  uint32_t offset = 0;         // in SCRATCH, once planned
  int64_t image_elems() const { return h * w * c; }
  int64_t elems() const { return n * h * w * c; }
  bool q8() const { return dtype != MLIP_DT_FP16; }
  int64_t elem_bytes() const { return dtype == MLIP_DT_INT16 ? 2 : q8() ? 1 : (planar ? kF32Bytes : kF16Bytes); }
  int64_t bytes() const { return elems() * elem_bytes(); }
};

struct Activation {
  uint32_t kind = MLIP_ACT_NONE;
  float lo = 0.0f, hi = 0.0f;
};

// One MLIP layer: a composite of ONNX nodes. Its kind's description (name,
// composite, nodes-JSON name, rules) is layer_kind(kind) (layer_kind.h).
// What every kind has is here; what one kind alone reads (a window, an
// ELTWISE function, RESIZE's tables, the int8 requantization fields) is its
// `params`, a type its file layers/<kind>.cpp defines and only it reads
// (layers::params_of, layers/rules.h).
struct RLayer {
  uint32_t kind = 0;                 // MLIP_LAYER_*
  std::string name;                  // the main ONNX node's name
  std::vector<std::string> origins;  // every ONNX node it stands for
  std::vector<int> inputs;           // RTensor indices
  int output = -1;
  Activation act;                    // fused (kinds that fuse one, layer_kind.h) or ACTIVATION's own
  // Weights in the WEIGHTS section, by output channel (the planner slices and
  // pins them per tile): fp16 OHWI (conv) or [out][in] (fc), int8 likewise;
  // the bias fp32, or an int8 layer's requantization records.
  int64_t weight_offset = -1, weight_bytes = 0, bias_offset = -1, bias_bytes = 0;
  std::string weight_name, bias_name;  // ONNX initializer names (consts-JSON)
  // 4-bit weights (--weight-bits 4; CONV2D and FC, 8-bit): 0, or the block
  // of their packed rows, one record of mlip/kq4_format.h per output channel
  // (weight_bytes / channels bytes each): its commands' w4_block field.
  int64_t w4_block = 0;
  uint64_t macs = 0;
  // The element type of its commands: fp16, or int8/uint8, or int16 (16x8:
  // CONV2D and FC) (docs/mlip-spec.md 4a).
  uint32_t dtype = MLIP_DT_FP16;
  // An 8-bit layer's requantization arithmetic (its commands' `requant`
  // field): MLIP_REQUANT_ORT where the node says so (ops::requant_mode).
  uint32_t requant = MLIP_REQUANT_FIXED;
  std::any params;                   // the kind's own (layers/<kind>.cpp)
  bool q8() const { return dtype != MLIP_DT_FP16; }
  bool has_weights() const { return weight_offset >= 0; }
  bool has_bias() const { return bias_offset >= 0; }
};

// A command as the planner builds it: the encoded record (from its typed
// operands, mlip/cmd_args.h), and whether the offsets of its weights (the
// fields the table marks PIN and PIN_OPT) are relative to the pinned range,
// to be placed once the range is (backend.cpp).
struct RCommand {
  mlip_cmd cmd{};
  bool pinned = false;
};

// How a layer's work is divided between tiles.
enum class Split {
  Rows,       // output rows (conv, pools, region borders)
  Channels,   // output channels (conv, fc, global pools)
  Elements,   // a flat range of elements (add, borders of [N, C] tensors)
  Positions,  // NHWC positions (concat)
};
// "rows", "channels", "elements", "positions" (reports and metadata.json).
const char* split_name(Split s);

struct TileSplit {
  Split how = Split::Rows;
  std::vector<std::pair<int64_t, int64_t>> ranges;  // per tile
};

struct LayerPlan {
  std::vector<RCommand> commands;  // all tiles, in order, ending with a barrier
  TileSplit split;
  uint64_t est_cycles = 0;
  std::vector<uint32_t> ocm_used;  // per tile, working area bytes
  bool pinned = false;             // weights come from the pinned range
  int64_t passes = 0;
};

}  // namespace mlipc::mlip
