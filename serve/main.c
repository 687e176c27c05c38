/* mlipc-serve: the remote-run server alone, for the target board (a small
 * static program with no compiler; CMake cross-builds it for AArch64).
 * `mlipc serve` is the same code inside the host binary. */
#include "server.h"

int main(int argc, char** argv) { return mlrx_serve_main(argc, argv); }
