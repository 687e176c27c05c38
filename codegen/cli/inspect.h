// The report of `mlipc inspect`, rendered whole before anything is printed
// (a damaged metadata.json gives one error line and no partial output):
// inspect_data() reads the tarball once (cli/inspect_data.h), and the text
// and --json are two renderings of the same structure.
#pragma once

#include <string>

#include "cli/inspect_data.h"

namespace mlipc::cli {

// The report for the tarball `bytes`; `tarball` names it in the report and
// in errors. Throws Error (never a JSON exception).
std::string render_inspect(const std::string& bytes, const std::string& tarball);

// The text of the report.
std::string render_inspect(const InspectData& d);
// --json: one JSON object (docs/inspect-json.md; the schema is
// docs/inspect.schema.json, "schema_version" kInspectSchemaVersion), two-space
// indented, with a final newline.
std::string render_inspect_json(const InspectData& d);

}  // namespace mlipc::cli
