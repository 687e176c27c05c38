// The template values every sliding-window kernel (Conv, MaxPool,
// AveragePool) shares: per-axis geometry and the plane sizes.
#include "c/kernels/kernels.h"

namespace mlipc::c::kernels {

void set_window(KernelSpec& spec, const ops::Geometry3& geo) {
  // Products as single literals: C evaluates `a * b` of literals in int.
  spec.set("ISIZE", geo.in[0] * geo.in[1] * geo.in[2]);
  spec.set("OSIZE", geo.out[0] * geo.out[1] * geo.out[2]);
  const char* axes[] = {"D", "H", "W"};
  for (int i = 0; i < ops::kMaxSpatial; ++i) {
    const std::string a = axes[i];
    spec.set("I" + a, geo.in[i]);
    spec.set("O" + a, geo.out[i]);
    spec.set("K" + a, geo.kernel[i]);
    spec.set("S" + a, geo.stride[i]);
    spec.set("D" + a, geo.dilation[i]);
    spec.set("P" + a, geo.pad_begin[i]);
  }
}

}  // namespace mlipc::c::kernels
