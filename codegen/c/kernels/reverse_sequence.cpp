// ReverseSequence: per batch entry, the sequence length is read at run time
// (MLIP_ERR_INVALID_ARG when outside [0, time length], before any write) and
// each time step copies its chunk from the mirrored step.
#include "c/kernels/kernels.h"
#include "ops/reverse_sequence.h"

namespace mlipc::c::kernels {

void prepare_ReverseSequence(const Graph& g, const Node& n, KernelSpec& spec) {
  const ops::ReverseSequenceParams p = ops::reverse_sequence_params(n.attrs, g.value(n.inputs[0]).shape);
  spec.template_name = "reverse_sequence.c";
  spec.returns_status = true;
  spec.includes = {"mlip/status.h"};
  spec.set("time", c_int(p.time));
  spec.set("batch", c_int(p.batch));
  spec.set("inner", c_int(p.inner));
  spec.set("ts", c_int(p.time_stride));
  spec.set("bs", c_int(p.batch_stride));
  spec.args = {0, 1};
}

}  // namespace mlipc::c::kernels
