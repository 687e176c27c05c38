// The MLIP target table: what is known about each processor (from DPDK's
// cnxk ML driver) and what this project models (docs/mlip-spec.md section 5),
// plus the tvmc-style target options.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mlipc::mlip {

struct TargetInfo {
  std::string mcpu;            // "cn10ka", "cnf10kb"
  uint32_t mcpu_code = 0;      // MLIP_MCPU_*
  int max_tiles = 0;           // tiles on the chip
  uint32_t ocm_bytes = 0;      // OCM per tile
  uint32_t ocm_page = 0;       // allocation granule of the pinned range
  uint32_t dma_align = 0;      // OCM buffer alignment
  uint32_t macs_per_cycle = 0; // fp16, per tile (modeled)
  uint32_t dma_bytes_per_cycle = 0;
  uint32_t eltwise_per_cycle = 0;
  uint32_t cmd_overhead_cycles = 0;
  uint32_t clock_mhz = 0;
  int max_kernel = 0;          // largest kernel side a layer may use (modeled)
  int max_stride = 0;
  bool dilation = false;
  std::vector<std::string> sources;  // which of the above are public facts
};

// Throws Error listing the choices for an unknown mcpu.
const TargetInfo& target_info(const std::string& mcpu);
const std::vector<TargetInfo>& all_targets();

struct Options {
  std::string mcpu = "cn10ka";
  int num_tiles = 8;
  bool hardware = false;   // -mattr=hw
  // "fp16", "int8", or "" (-quantize unset): the driver then chooses by the
  // model (driver/quantization.h: int8 for a quantized model, fp16
  // otherwise) and says why in quantize_why. Code after the driver sees
  // "fp16" or "int8" ("" is taken as fp16).
  std::string quantize;
  std::string quantize_why;
  bool wb_pin_ocm = false;
  // With -quantize=int8: float nodes may still be fp16 layers, in regions of
  // their own (a region is all fp16 or all int8). Set by the driver for a
  // model it calibrated, whose float layers are the mixed-precision choice
  // (passes/quantize); a model quantized before keeps its float part on the CPU.
  bool fp16_float_layers = false;
};

// Parses --target-mrvl-mattr, e.g. "sim -quantize=fp16 -wb_pin_ocm=1".
// Unknown or malformed words are one-line errors listing the allowed values.
void parse_mattr(const std::string& mattr, Options& options);
// The options as the command line gives them (--target-mrvl-mcpu,
// --target-mrvl-num_tiles, --target-mrvl-mattr), parsed and validated.
Options parse_options(const std::string& mcpu, const std::string& num_tiles, const std::string& mattr);
// The one check of a set of options: mcpu known, num_tiles 1, 2, 4 or 8 and
// at most the chip's. The driver calls it before any work; everything after
// takes the options as valid.
void validate_options(const Options& options);

// Images one layer processes (as TVM's Marvell integration); a larger batch
// stays on the CPU.
constexpr int64_t kMaxBatch = 8;
// Dimensions of a row-major tensor inside a region (transformers: at most 4
// or 5; PERMUTE copies up to MLIP_PERMUTE_RANK, the same 6).
constexpr int64_t kMaxRank = 6;

// OCM per tile for a layer's working buffers: all of it, or with
// wb_pin_ocm=1 half of it, the other half holding pinned weights.
uint32_t working_ocm_bytes(const TargetInfo& target, const Options& options);
// OCM per tile reserved for pinned weights (0 without wb_pin_ocm).
uint32_t pinned_ocm_bytes(const TargetInfo& target, const Options& options);

}  // namespace mlipc::mlip
