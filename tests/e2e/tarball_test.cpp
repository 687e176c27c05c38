// The tarball builds alone: extracted, every C file compiles with a plain
// `cc -std=c99 -Wall -Wextra -Werror` (and -pedantic; the TVM adapter of
// runtime/src/runtime/crt with the crt_config.h of templates/, as firmware
// built the TVM way has it), no object references the heap, and there is
// one dlpack.h.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "driver/compile.h"
#include "mlf/archive.h"
#include "models.h"
#include "support/file_util.h"
#include "support/process.h"

namespace fs = std::filesystem;

namespace mlipc::test::e2e_tarball {
namespace {

class Tarball : public ::testing::TestWithParam<ModelCase> {};

// The C files outside templates/: those of the TVM adapter, or all others.
std::vector<std::string> c_files(const fs::path& dir, bool tvm_adapter) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string rel = fs::relative(e.path(), dir).string();
    if (e.path().extension() == ".c" && rel.rfind("templates/", 0) != 0 &&
        (rel.rfind("runtime/src/runtime/crt/", 0) == 0) == tvm_adapter)
      files.push_back(rel);
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST_P(Tarball, BuildsWithPlainCcAndNoHeap) {
  const ModelCase& m = GetParam();
  TempDir dir("mlipc-tarball");
  driver::CompileResult r = driver::compile_model(m.dir / "model.onnx", {});
  driver::write_tarball(r, dir.path() / "model.tar");
  mlf::extract_tar(dir.path() / "model.tar", dir.path() / "x");
  const fs::path x = dir.path() / "x";
  // One DLPack header: the TVM-compatible headers include it too.
  int dlpack = 0;
  for (const auto& e : fs::recursive_directory_iterator(x)) dlpack += e.path().filename() == "dlpack.h";
  EXPECT_EQ(dlpack, 1);
  std::vector<std::string> files = c_files(x, false), adapter = c_files(x, true);
  ASSERT_GE(files.size(), 3u);
  ASSERT_EQ(adapter.size(), 2u);
  fs::create_directories(x / "crt_config");
  fs::copy_file(x / "templates/crt_config.h.template", x / "crt_config/crt_config.h");
  for (const char* extra : {"", "-pedantic"}) {
    for (const auto* set : {&files, &adapter}) {
      std::vector<std::string> argv = {"cc", "-std=c99", "-Wall", "-Wextra", "-Werror"};
      if (*extra) argv.push_back(extra);
      argv.insert(argv.end(), {"-Icodegen/host/include", "-Iruntime/include", "-Icrt_config", "-c"});
      argv.insert(argv.end(), set->begin(), set->end());
      ProcessResult p = run_process(argv, x, 600);
      ASSERT_EQ(p.exit_code, 0) << extra << "\n" << p.err;
    }
  }
  // The firmware template for the platform hooks compiles on the host as is.
  ProcessResult t = run_process({"cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Iruntime/include",
                                 "-x", "c", "-c", "templates/platform.c.template", "-o", "platform.o.tmp"},
                                x, 600);
  EXPECT_EQ(t.exit_code, 0) << t.err;
  std::vector<std::string> nm = {"nm", "-u"};
  for (const auto& e : fs::directory_iterator(x))
    if (e.path().extension() == ".o") nm.push_back(e.path().filename().string());
  ASSERT_GT(nm.size(), 2u);
  ProcessResult p = run_process(nm, x, 60);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  for (const char* sym : {"malloc", "free", "calloc", "realloc", "aligned_alloc", "posix_memalign"}) {
    std::string line = std::string(" U ") + sym + "\n";
    EXPECT_EQ(p.out.find(line), std::string::npos) << m.name << " references " << sym;
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, Tarball, ::testing::ValuesIn(model_cases()),
                         [](const auto& info) { return model_case_name(info.param); });

}  // namespace
}  // namespace mlipc::test::e2e_tarball
