// The reference evaluator: runs a graph (or one node) with the reference
// kernels on host tensors. Used for constant folding and as the test oracle.
#pragma once

#include <vector>

#include "ir/graph.h"

namespace mlipc {

// Evaluates one node whose input values are constants or given in `env`
// (indexed by ValueId; empty entries mean "use the constant").
std::vector<TensorData> eval_node(const Graph& g, const Node& n, const std::vector<TensorData>* env = nullptr);

// Evaluates the whole graph on `inputs` (in graph-input order); returns the
// outputs in graph-output order. Checks each input's dtype and shape.
std::vector<TensorData> evaluate(const Graph& g, const std::vector<TensorData>& inputs);

// The same run keeping every value (indexed by ValueId): the graph inputs
// and what each node computed; constants and omitted values stay empty.
// Calibration reads the statistics of every tensor from it.
std::vector<TensorData> evaluate_values(const Graph& g, const std::vector<TensorData>& inputs);

}  // namespace mlipc
