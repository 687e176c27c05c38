// A size of memory as the command line gives it (--pe-memory).
#pragma once

#include <cstdint>
#include <string>

namespace mlipc::cli {

// "524288", "512KiB", "512K", "1MiB", "1M": bytes. Throws naming --pe-memory.
uint64_t parse_memory_size(const std::string& text);

}  // namespace mlipc::cli
