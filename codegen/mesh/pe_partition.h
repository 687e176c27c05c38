// Pipeline partitioning across processing elements (PEs), behind one call
// (as Ethos-U Vela's scheduler is): a schedule of units (layers, in order,
// each with its estimated time and memory) is cut into at most K contiguous
// stages that balance the estimated time per stage under a per-PE memory
// limit. It knows no graph and no backend: codegen/mesh/mesh_compile.cpp
// makes the units from a compiled model and checks the result by compiling
// the stages; the unit tests feed it synthetic lists.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mlipc::mesh {

struct Unit {
  std::string name;          // the ONNX node it stands for: "name (Op)", for messages
  uint64_t cycles = 0;       // estimated time on one PE
  uint64_t const_bytes = 0;  // weights, command buffers: held for the whole run
  uint64_t work_bytes = 0;   // activations live while it runs
  // Whether a stage may end after this unit, and what that cut costs: the
  // bytes crossing it (a send buffer in the stage before, a receive buffer
  // in the stage after) and the border work it adds on either side.
  bool cut_after = true;
  uint64_t cut_bytes = 0;
  uint64_t cut_out_cycles = 0;  // charged to the stage that ends here
  uint64_t cut_in_cycles = 0;   // charged to the stage that starts after
};

struct Request {
  std::vector<Unit> units;   // schedule order, at least one
  int pes = 1;               // K, at least 1
  uint64_t memory_limit = 0; // bytes per PE; 0: no limit
  uint64_t fixed_bytes = 0;  // per PE whatever it runs (the runtime)
  uint64_t input_bytes = 0;  // the model's inputs: counted in the first stage
  uint64_t output_bytes = 0; // the model's outputs: counted in the last stage
};

struct Stage {
  size_t first = 0, last = 0;  // units [first, last]
  uint64_t cycles = 0;         // estimated, borders included
  uint64_t memory = 0;         // estimated bytes on its PE
};

struct Plan {
  std::vector<Stage> stages;
  // Set when fewer stages than PEs were made, saying why (plainly).
  std::string fewer_note;
};

// Throws Error when no split fits: a unit alone above the limit names its
// ONNX node; otherwise the message says how many PEs would be needed.
Plan partition_pes(const Request& request);

// The estimate the partitioner uses for units [first, last] as one stage
// (also what the tests check a plan against).
Stage stage_estimate(const Request& request, size_t first, size_t last);

}  // namespace mlipc::mesh
