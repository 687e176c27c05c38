// The CPU the generated C is for: --target-c-mcpu, or what
// --target-llvm-mcpu / --target-llvm-mtriple imply (docs/user-guide.md,
// "Target CPU"; docs/adding-an-operator.md, "Kernel variants").
//
// Which instruction-set variant of a kernel runs is not decided here: the
// C picks it from the compiler's predefined macros (include/mlip/kisa.h), so
// a tarball builds, and gives the same bits, for any CPU and compiler, and
// never runs an instruction the CPU it is compiled for lacks. The CPU named
// here tunes what must be decided when the code is generated because it
// changes the code, its constants or its memory plan (how the int8 product's
// weight rows are padded, ...); every choice keeps every variant valid.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace mlipc::c {

struct CpuTarget {
  enum class Family { Generic, CortexM, AArch64, X86_64 };
  std::string name;  // as given; "" for no CPU in particular
  Family family = Family::Generic;
  // The kernel-variant instruction sets (mlip/kisa.h: "mve", "dsp", "neon",
  // "x86") its usual compiler flags enable, best first: what its build of
  // the tarball will run (for the compile summary and the docs).
  std::vector<std::string> isas;

  // Bytes each weight row of the int8 product (mlip/kq8.h) is padded to:
  // 4 on Cortex-M, where flash is scarce and the DSP and Helium variants
  // take a row's tail at no cost; 16 elsewhere (whole 16-byte vectors).
  int q8_row_align() const { return family == Family::CortexM ? 4 : 16; }
  // Whether the float kernels' loops over a tile's vectors and positions
  // carry MLIP_VUNROLL (mlip/kvec.h; the `unroll` flag of every kernel's
  // template): on Cortex-M, where GCC keeps them rolled and the
  // accumulators then live on the stack. The same bits either way.
  bool unroll_vector_loops() const { return family == Family::CortexM; }
  // Whether those kernels' functions carry MLIP_VNOINLINE (the `noinline`
  // flag): on Cortex-M, where GCC -O2 inlines every layer into the model's
  // main function and its few registers spill there.
  bool float_kernels_apart() const { return family == Family::CortexM; }
  // Output channels per block of the float convolution (conv_tiled.c), or 0
  // for the widest of 16, 8, 4 the channels suit: 8 on a Cortex-M without
  // Helium, whose kernels run on scalar floats (kvec.h's width 1) with 32
  // registers: a tile is then 2 positions x 8 channels, each weight loaded
  // once for both, where 16 channels leave room for one position (float
  // MLPerf Tiny models on the M4: 5 to 7% fewer instructions; 4 channels x
  // 6 positions saved about as much for twice the code; on the M55, 8
  // channels x 2 positions took 6 to 20% more than 16 x 1). How many blocks
  // a dense tile holds is the C's choice instead (conv_tiled.c's KB, from
  // MLIP_VREGS and the vector width: two on AVX-512), so a tarball built for
  // no CPU in particular still gets them where it is compiled with AVX-512.
  int float_conv_block() const {
    return family == Family::CortexM && std::find(isas.begin(), isas.end(), "mve") == isas.end() ? 8 : 0;
  }
  // Whether a float convolution with a fused pool keeps the rows of two
  // blocks in its scratch, for the variants whose tiles hold two (KB above):
  // not on Cortex-M, where none does and RAM is scarce.
  bool float_conv_pool_blocks() const { return family != Family::CortexM; }
};

// The CPU of that name (Cortex-M, AArch64 and x86-64 names as GCC and LLVM
// spell them); throws Error naming --target-c-mcpu and the known names for
// any other. "" gives the generic CPU.
CpuTarget cpu_target(std::string_view name);

// --target-c-mcpu when given; else --target-llvm-mcpu when it is a CPU of
// the table; else the architecture of --target-llvm-mtriple (`arch`, as
// driver::triple_arch names it: "aarch64" gives NEON, "x86_64" x86-64 with
// no AVX2 assumed), else the generic CPU. Throws Error when
// --target-c-mcpu and --target-llvm-mcpu name different CPUs.
CpuTarget resolve_cpu(const std::string& c_mcpu, const std::string& llvm_mcpu, const std::string& arch);

}  // namespace mlipc::c
