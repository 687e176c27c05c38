// docs/command-buffer.md shows every opcode's operand table; this test
// writes those tables from include/mlip/cmd_table.h (the X-macro tables the
// encoder, the decoder and the simulator's per-field rules are generated
// from) and requires the block between the doc's "cmd-tables" markers to be
// exactly that text, so the doc cannot drift from the format. When a table
// changes, the failure prints the block to paste.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "mlip/cmdbuf.h"

namespace mlipc::unit_mlip_cmd_table {
namespace {

namespace fs = std::filesystem;

const char* when_text(const std::string& when) {
  if (when == "F16") return "fp16";
  if (when == "Q8") return "8-bit";
  if (when == "AVG") return "AVG";
  if (when == "AVG_Q8") return "8-bit AVG";
  return "";
}

const char* forms_text(const std::string& forms) {
  if (forms == "F16") return "MLIP_DT_FP16 (fp16 only)";
  if (forms == "Q8") return "MLIP_DT_INT8 or MLIP_DT_UINT8 (8-bit only)";
  if (forms == "Q8W") return "MLIP_DT_INT8, MLIP_DT_UINT8 or MLIP_DT_INT16 (16x8; int8 buffers only)";
  if (forms == "BOTH") return "MLIP_DT_FP16 in an fp16 buffer, MLIP_DT_INT8 or MLIP_DT_UINT8 in an int8 buffer";
  if (forms == "WIDE")
    return "MLIP_DT_FP16 in an fp16 buffer, MLIP_DT_INT8, MLIP_DT_UINT8 or MLIP_DT_INT16 (16x8) in an int8 buffer";
  return "0 (no element type)";
}

std::string type_text(const std::string& t) { return t == "float" ? "float" : t.substr(0, t.size() - 2); }

std::string dtype_row(const std::string& forms) {
  return fmt::format("| 29 | `dtype` | uint32 |  |  | {} |\n", forms_text(forms));
}

// The generated block: the rules, then one table per format.
std::string tables() {
  std::string s;
  s += "| rule | checked | values |\n|---|---|---|\n";
#define RULE_(name, checked, doc) s += fmt::format("| {} | {} | {} |\n", #name, checked ? "field" : "opcode", doc);
  MLIP_RULES(RULE_)
#undef RULE_
  std::string heading, forms;
  auto format = [&](const char* fmt_name) {
    heading.clear();
    forms.clear();
#define OPCODE_(NAME, name, value, format_name, f)                                   \
  if (std::string(#format_name) == fmt_name) {                                      \
    heading += fmt::format("{}{} ({})", heading.empty() ? "" : ", ", #NAME, value); \
    forms = #f;                                                                     \
  }
    MLIP_OPCODES(OPCODE_)
#undef OPCODE_
    s += fmt::format("\n#### {}: `mlip_{}_args`\n\n", heading, fmt_name);
    s += "| word | field | type | when | rule | meaning |\n|---|---|---|---|---|---|\n";
  };
#define W_(x, name, word, type, when, rule, doc)                                                               \
  s += fmt::format("| {} | `{}` | {} | {} | {} | {} |\n", word, #name, type_text(#type), when_text(#when), #rule, \
                   doc);
#define A_(x, name, word, type, when, rule, doc, shadow)                                                          \
  s += fmt::format("| {} | `{}` | {} | {} | {} | {} (the word of `{}`) |\n", word, #name, type_text(#type),       \
                   when_text(#when), #rule, doc, #shadow);
#define FORMAT_(format_name) \
  format(#format_name);      \
  MLIP_FIELDS_##format_name(W_, A_, format_name) s += dtype_row(forms);
  MLIP_FORMATS(FORMAT_)
#undef FORMAT_
#undef W_
#undef A_
  return s;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(MlipCmdTable, TheDocShowsTheTablesOfTheFormat) {
  const fs::path doc = fs::path(MLIPC_TEST_DATA).parent_path().parent_path() / "docs" / "command-buffer.md";
  const std::string text = read(doc);
  const std::string begin = "<!-- cmd-tables: generated from include/mlip/cmd_table.h -->\n";
  const std::string end = "<!-- /cmd-tables -->";
  const size_t b = text.find(begin), e = text.find(end);
  ASSERT_NE(b, std::string::npos) << doc << " has no " << begin;
  ASSERT_NE(e, std::string::npos) << doc << " has no " << end;
  const std::string block = text.substr(b + begin.size(), e - b - begin.size());
  const std::string want = tables();
  EXPECT_EQ(block, want) << "docs/command-buffer.md's operand tables differ from include/mlip/cmd_table.h; the "
                            "block between the markers should read:\n"
                         << want;
}

// The table's rows are what the generated structs hold, word for word.
TEST(MlipCmdTable, TheStructsFollowTheTables) {
  EXPECT_EQ(offsetof(mlip_conv2d_args, in), 4u);
  EXPECT_EQ(offsetof(mlip_conv2d_args, y_zp), 4u + 4u * 27u);
  EXPECT_EQ(offsetof(mlip_conv2d_args, act_lo), 4u + 4u * 24u);
  EXPECT_EQ(offsetof(mlip_conv2d_args, requant), 4u + 4u * 28u);
  EXPECT_EQ(offsetof(mlip_conv2d_args, clamp_lo), 4u + 4u * 29u);  // the A fields follow the words
  EXPECT_EQ(sizeof(mlip_barrier_args), 4u);
  EXPECT_EQ(MLIP_conv2d_WORDS, 29);
  EXPECT_EQ(MLIP_dma_WORDS, 8);
  EXPECT_EQ(mlip_opcode_format(MLIP_OP_AVGPOOL), MLIP_FORMAT_pool);
  EXPECT_EQ(mlip_opcode_forms(MLIP_OP_TABLE), static_cast<uint32_t>(MLIP_FORMS_Q8W));
  EXPECT_EQ(mlip_opcode_forms(MLIP_OP_MATMUL), static_cast<uint32_t>(MLIP_FORMS_WIDE));
  EXPECT_EQ(mlip_opcode_forms(MLIP_OP_CONV2D), static_cast<uint32_t>(MLIP_FORMS_WIDE));
  EXPECT_EQ(mlip_opcode_forms(MLIP_OP_MAXPOOL), static_cast<uint32_t>(MLIP_FORMS_WIDE));
  EXPECT_EQ(mlip_opcode_forms(MLIP_OP_AVGPOOL), static_cast<uint32_t>(MLIP_FORMS_WIDE));
}

}  // namespace
}  // namespace mlipc::unit_mlip_cmd_table
