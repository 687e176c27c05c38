// mlipc's main: the command line itself is cli/app.cpp.
#include "cli/app.h"

int main(int argc, char** argv) { return mlipc::cli::main_command(argc, argv); }
