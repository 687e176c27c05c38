// What the MLIP backend tells the user, typed: per region its layers (kind,
// ONNX nodes, MACs, estimated cycles, split, passes), OCM, pinned weights and
// sizes, and the nodes left on the CPU with the reason. The driver writes it
// as the "mlip" key of metadata.json and `mlipc inspect` and `mlipc run
// --profile` read it back from there: the schema is this file's to_json and
// report_from_json, in one place.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlip/target.h"

namespace mlipc::mlip {

struct LayerReport {
  std::string name, kind, composite;
  std::vector<std::string> origins;  // ONNX nodes
  uint64_t macs = 0, est_cycles = 0;
  std::string split;                 // split_name()
  std::vector<std::pair<int64_t, int64_t>> ranges;  // per tile
  int64_t passes = 0;
  bool pinned = false;
  std::string dtype = "fp16";        // element type: fp16, or int8/uint8 (-quantize=int8), or int16 (16x8)
};

struct RegionReport {
  std::string name;
  std::vector<std::string> inputs, outputs;
  std::vector<LayerReport> layers;  // the model's layers (the weight loading is not one of them)
  std::vector<uint32_t> ocm_used;   // per tile, working + pinned bytes
  uint32_t ocm_size = 0, pinned_offset = 0, scratch_size = 0;
  std::vector<std::string> pinned, streamed;  // layer names by weight placement
  uint64_t pinned_bytes = 0, weight_bytes = 0;
  uint64_t est_cycles = 0;
  size_t bin_size = 0;
  // The estimated cycles of its border layers (convert_in, convert_out):
  // fp32 NCHW <-> fp16 NHWC at the region's inputs and outputs.
  uint64_t border_cycles() const;
  uint64_t macs() const;  // of its layers
};

// A node left on the CPU, and why.
struct CpuNode {
  std::string node, op;
  std::vector<std::string> origins;
  std::string reason;
};

// What the partition decided about a node whose fp16 form would change its
// meaning (a constant binary16 cannot hold, issue 30 item 11): "guard folded"
// (into the Div's command, in fp32), "epsilon folded" (into LAYERNORM, in
// fp32) or "kept on the CPU in float", and why. `mlipc inspect` lists them.
struct Fp16Decision {
  std::string node, op, decision, why;
};

struct MlipReport {
  Options options;
  TargetInfo target;  // what metadata.json records of it (tiles, OCM, page, DMA alignment, the cycle model, sources)
  std::vector<RegionReport> regions;  // schedule order
  std::vector<CpuNode> cpu_nodes;     // schedule order
  std::vector<Fp16Decision> fp16_decisions;  // schedule order
};

nlohmann::json to_json(const MlipReport& report);
// Throws Error naming the field when `j` is not what to_json writes.
MlipReport report_from_json(const nlohmann::json& j);

}  // namespace mlipc::mlip
