// A size of memory as the command line gives it (--pe-memory).
#pragma once

#include <cstdint>
#include <string>

namespace mlipc::cli {

// The largest --pe-memory: 1 TiB (a PE is a bare-metal device; any larger
// value would be "no limit", which is what leaving the option out says).
constexpr uint64_t kMaxPeMemory = uint64_t{1} << 40;

// "524288", "512KiB", "512K", "1MiB", "1M": bytes, from 1 to kMaxPeMemory.
// Throws naming --pe-memory and the allowed range (an empty text included).
uint64_t parse_memory_size(const std::string& text);

}  // namespace mlipc::cli
