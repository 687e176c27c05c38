# Warning flags for our own targets. The runtime is C99 and must stay clean
# under -pedantic on every compiler we ship to; -ffp-contract=off keeps the
# numerics identical on x86-64, AArch64 and Cortex-M: in the C++ too, whose
# reference evaluator (ops/) sums as the kernels do, and which GCC would
# otherwise fuse into multiply-adds where the machine has them (AArch64).
set(MLIPC_C_FLAGS -Wall -Wextra -pedantic -ffp-contract=off)
set(MLIPC_CXX_FLAGS -Wall -Wextra -ffp-contract=off)
if(MLIPC_WERROR)
  list(APPEND MLIPC_C_FLAGS -Werror)
  list(APPEND MLIPC_CXX_FLAGS -Werror)
endif()

function(mlipc_c_target target)
  target_compile_options(${target} PRIVATE ${MLIPC_C_FLAGS})
endfunction()

function(mlipc_cxx_target target)
  target_compile_options(${target} PRIVATE ${MLIPC_CXX_FLAGS})
endfunction()
