// GatherND / ScatterND geometry, shared by the references and the C kernels.
#pragma once

#include "ir/graph.h"

namespace mlipc::ops {

struct NdGeometry {
  int64_t batches = 1;      // product of the batch_dims leading axes
  int64_t tuples = 1;       // index tuples per batch
  int k = 0;                // coordinates per tuple (indices' last axis)
  int64_t chunk = 1;        // elements each tuple addresses (data axes after the k indexed ones)
  int64_t batch_stride = 1; // data elements per batch
  Shape dims;               // the k indexed data axes' lengths
  std::vector<int64_t> strides;  // and their element strides in data
};

// Checks data / indices shapes (batch_dims b: equal leading axes) and
// returns the geometry.
NdGeometry nd_geometry(const Shape& data, const Shape& indices, int64_t batch_dims);

}  // namespace mlipc::ops
