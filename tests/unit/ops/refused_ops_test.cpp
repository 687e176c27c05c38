// Operators whose output shape depends on the data are recognized and refused
// with that reason, not as unknown operators.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "ops/op.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_refused_ops {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

TEST(RefusedOps, DataDependentShapesSayWhy) {
  for (const char* op : {"NonZero", "Unique", "Compress", "NonMaxSuppression"}) {
    SCOPED_TRACE(op);
    EXPECT_THAT(std::string(refused_op_reason(op)), HasSubstr("output shape depends on the input data"));
    OnnxBuilder b;
    b.input("x", DType::Float32, {4});
    b.node(op, {"x"}, {"y"}, {}, "n1").output("y");
    try {
      frontend::import_onnx(b.save(test::scratch_dir(), std::string("refused_") + op + ".onnx"));
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(std::string("node 'n1' (") + op + "): operator '" + op +
                                      "' is not supported: its output shape depends on the input data"));
    }
  }
  EXPECT_EQ(refused_op_reason("Conv"), "");
  EXPECT_EQ(refused_op_reason("NoSuchOp"), "");
}

}  // namespace
}  // namespace mlipc::unit_ops_refused_ops
