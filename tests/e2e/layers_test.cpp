// The layer rule of the build (cmake/check_layers.cmake, run by every build
// of codegen/): a layer may include only its own folders and those of the
// layers it depends on. Here on a small tree of its own: a C backend that
// includes the MLIP backend's header fails, naming the file and the
// include; the same name under include/ (a public header, as
// "mlip/region.h") is not codegen's and passes, as does a declared
// dependency.
#include <gtest/gtest.h>

#include "support/file_util.h"
#include "support/process.h"

namespace fs = std::filesystem;

namespace mlipc::test::e2e_layers {
namespace {

const fs::path kScript = fs::path(MLIPC_E2E_DIR) / ".." / ".." / "cmake" / "check_layers.cmake";

// Runs the check on `root` (a codegen/ tree) with `manifest`.
ProcessResult check(const fs::path& root, const std::string& manifest) {
  write_file(root.parent_path() / "layers.manifest", manifest);
  return run_process({"cmake", "-DMANIFEST=" + (root.parent_path() / "layers.manifest").string(),
                      "-DROOT=" + root.string(), "-P", kScript.string()},
                     root.parent_path(), 120);
}

struct Tree {
  TempDir dir{"mlipc-layers"};
  fs::path root;
  Tree() {
    root = dir.path() / "codegen";
    write_file(root / "ops/subgraph.h", "#pragma once\n");
    write_file(root / "mlip/backend.h", "#pragma once\n#include \"ops/subgraph.h\"\n");
    write_file(root / "c/kernels/call.cpp", "#include \"ops/subgraph.h\"\n#include \"mlip/region.h\"\n");
    write_file(dir.path() / "include/mlip/region.h", "#pragma once\n");
  }
};

const char* const kLayers = "ops|ops|ops\nmlip|mlip|mlip,ops\nc|c,c/kernels|c,c/kernels,ops\n";

TEST(LayerRule, APublicHeaderOfTheSameFolderNamePasses) {
  Tree t;
  ProcessResult r = check(t.root, kLayers);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(LayerRule, TheCBackendIncludingTheMlipBackendFailsTheBuild) {
  Tree t;
  write_file(t.root / "c/kernels/call.cpp", "#include \"ops/subgraph.h\"\n#include \"mlip/backend.h\"\n");
  ProcessResult r = check(t.root, kLayers);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("codegen/c/kernels/call.cpp: #include \"mlip/backend.h\": codegen/mlip is layer mlip, which c "
                       "does not depend on"),
            std::string::npos)
      << r.err;
  // Declared, the same include is allowed.
  r = check(t.root, "ops|ops|ops\nmlip|mlip|mlip,ops\nc|c,c/kernels|c,c/kernels,mlip,ops\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace mlipc::test::e2e_layers
