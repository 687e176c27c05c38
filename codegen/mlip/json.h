// The Marvell per-region JSON files (mlip/<region>-nodes.json and
// -consts.json), with the field names of TVM's Marvell integration.
#pragma once

#include <string>

#include "mlip/lower.h"

namespace mlipc::mlip {

std::string nodes_json(const LoweredRegion& r);
std::string consts_json(const LoweredRegion& r);

}  // namespace mlipc::mlip
