// Shape inference and constant folding over the whole graph, in schedule
// order: every value gets a static dtype and shape; a node whose inputs are
// all constant is evaluated with the reference kernel and disappears.
#pragma once

#include "ir/graph.h"

namespace mlipc {

// Runs the shape rule of every node (and folds what is constant). Throws
// Error naming the node for unsupported operators and bad shapes/attributes.
void infer_and_fold(Graph& g);

// Re-runs the shape rules without folding: passes call it after rewriting.
void infer_shapes(Graph& g);

}  // namespace mlipc
