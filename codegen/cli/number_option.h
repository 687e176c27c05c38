// Numbers on the command line. Every numeric option is taken as text and
// read here, so that a bad value is one line naming the option and what it
// allows (never the argument parser's own text, never a value that wrapped
// or was cut to fit: `--pes -1`, `--pe-memory 17179869185G`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mlipc::cli {

// A whole number from lo to hi: digits with an optional leading '-', nothing
// else (no spaces, no '+', no fraction, no exponent). `unit` follows the
// range in the message ("seconds"), may be empty.
// "--timeout 'abc' is not a whole number (allowed: 1 to 1,000,000 seconds)",
// "--pes 2147483648 is out of range (allowed: 1 to 4,096)".
int64_t parse_whole(std::string_view option, const std::string& text, int64_t lo, int64_t hi,
                    std::string_view unit = "");

// A finite decimal number (strtod's syntax, all of `text`, no NaN or
// infinity). `allowed` says what the option allows, for the message.
double parse_real(std::string_view option, const std::string& text, std::string_view allowed);

}  // namespace mlipc::cli
