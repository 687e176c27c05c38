#include "mlip/target.h"

#include <sstream>
#include <stdexcept>

#include "mlip/cmdbuf.h"
#include "support/error.h"

namespace mlipc::mlip {

const std::vector<TargetInfo>& all_targets() {
  static const std::vector<TargetInfo> table = {
      {"cn10ka", MLIP_MCPU_CN10KA, 8, 1u << 20, 16u << 10, 128, 256, 32, 64, 40, 1000, 16, 8, true,
       {"tiles, OCM per tile, page and DMA alignment: DPDK cnxk ML driver", "throughput and clock: modeled"}},
      {"cnf10kb", MLIP_MCPU_CNF10KB, 4, 1u << 20, 16u << 10, 128, 128, 16, 32, 40, 800, 8, 4, false,
       {"page and DMA alignment: DPDK cnxk ML driver", "tiles, OCM, throughput, clock and limits: modeled"}},
  };
  return table;
}

const TargetInfo& target_info(const std::string& mcpu) {
  for (const TargetInfo& t : all_targets())
    if (t.mcpu == mcpu) return t;
  fail("--target-mrvl-mcpu '{}' is not supported (allowed: cn10ka, cnf10kb)", mcpu);
}

void parse_mattr(const std::string& mattr, Options& o) {
  std::istringstream words(mattr);
  std::string w;
  const char* allowed = "sim or hw, -quantize=fp16 or int8, -wb_pin_ocm=0 or 1";
  while (words >> w) {
    if (w == "sim") o.hardware = false;
    else if (w == "hw") o.hardware = true;
    else if (w.rfind("-quantize=", 0) == 0) {
      o.quantize = w.substr(10);
      if (o.quantize != "fp16" && o.quantize != "int8") fail("--target-mrvl-mattr '{}': unknown -quantize value '{}' (allowed: {})", mattr, o.quantize, allowed);
    } else if (w.rfind("-wb_pin_ocm=", 0) == 0) {
      std::string v = w.substr(12);
      if (v != "0" && v != "1") fail("--target-mrvl-mattr '{}': -wb_pin_ocm must be 0 or 1 (allowed: {})", mattr, allowed);
      o.wb_pin_ocm = v == "1";
    } else {
      fail("--target-mrvl-mattr '{}': unknown attribute '{}' (allowed: {})", mattr, w, allowed);
    }
  }
}

Options parse_options(const std::string& mcpu, const std::string& num_tiles, const std::string& mattr) {
  Options o;
  o.mcpu = mcpu;
  target_info(mcpu);  // an unknown processor is the first thing to say
  try {
    size_t used = 0;
    o.num_tiles = std::stoi(num_tiles, &used);
    if (used != num_tiles.size()) throw std::invalid_argument("trailing text");
  } catch (const std::exception&) {
    fail("--target-mrvl-num_tiles '{}' is not supported (allowed: 1, 2, 4, 8)", num_tiles);
  }
  parse_mattr(mattr, o);
  validate_options(o);
  return o;
}

uint32_t working_ocm_bytes(const TargetInfo& t, const Options& o) { return o.wb_pin_ocm ? t.ocm_bytes / 2 : t.ocm_bytes; }

uint32_t pinned_ocm_bytes(const TargetInfo& t, const Options& o) { return t.ocm_bytes - working_ocm_bytes(t, o); }

void validate_options(const Options& o) {
  const TargetInfo& t = target_info(o.mcpu);
  if (o.num_tiles != 1 && o.num_tiles != 2 && o.num_tiles != 4 && o.num_tiles != 8)
    fail("--target-mrvl-num_tiles {} is not supported (allowed: 1, 2, 4, 8)", o.num_tiles);
  if (o.num_tiles > t.max_tiles)
    fail("--target-mrvl-num_tiles {}: {} has {} tiles (allowed: 1 to {})", o.num_tiles, t.mcpu, t.max_tiles, t.max_tiles);
}

}  // namespace mlipc::mlip
