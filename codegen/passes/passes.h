// IR-to-IR transformations, one per file, run in this order by the driver.
#pragma once

#include "ir/graph.h"

namespace mlipc::passes {

// Drops Identity and inference-mode Dropout (a used Dropout mask becomes a
// constant of ones).
void simplify(Graph& g);

// Folds an inference BatchNormalization into the Conv or Gemm that feeds it
// when all parameters are constants and the BatchNorm is its only reader.
void fold_batchnorm(Graph& g);

// Merges a Pad that only adds zeros around the spatial axes into the
// padding of the Conv that reads it.
void fuse_pad(Graph& g);

// Fuses Relu, LeakyRelu, Clip, Sigmoid and Tanh into the producing Conv,
// Gemm, MatMul, Add/Sub/Mul/Div or BatchNormalization.
void fuse_activation(Graph& g);

// Makes every graph output the result of its own computing node: outputs
// that are graph inputs, constants, views of those, or shared with another
// output get an explicit copy (Identity), so the caller's output buffer can
// be their storage.
void materialize_outputs(Graph& g);

}  // namespace mlipc::passes
