// A stage assignment of a graph's nodes and what follows from it: the
// tensors that cross between stages (the pipeline's tensors, in
// pipeline.json's order) and each stage as a graph of its own, which the
// driver compiles into the stage's module.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "mesh/manifest.h"

namespace mlipc::mesh {

// The stage of every node of `g` given each unit's stage (node_unit: the
// unit of each node, -1 for a node that is no layer of its own, which goes
// with its first reader); empty when a node would read from a later stage
// (a cut that cannot be).
std::vector<int> node_stages(const Graph& g, const std::vector<int>& node_unit, const std::vector<int>& unit_stage);

// Values computed in one stage and read in a later one.
std::vector<ValueId> crossing(const Graph& g, const std::vector<int>& st);

// The tensors of the pipeline for a stage assignment: the model's inputs,
// then each stage's results that a later stage or the host reads; `values`
// gets the value of each.
std::vector<PipeTensor> pipe_tensors(const Graph& g, const std::vector<int>& st, std::vector<ValueId>& values);

// Stage s of `g` as a graph of its own: its nodes, its inputs and outputs
// the pipeline's tensors (quantized model inputs and outputs keep their
// scale and zero point).
Graph stage_graph(const Graph& g, const std::vector<int>& st, int s, const std::vector<PipeTensor>& tensors,
                  const std::vector<ValueId>& values);

}  // namespace mlipc::mesh
