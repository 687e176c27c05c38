#include "cli/progress.h"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include <fmt/format.h>

#include "support/error.h"
#include "support/text.h"

namespace mlipc::cli {

std::string progress_line(std::string_view label, std::string_view phase, size_t done, size_t total,
                          double elapsed_s) {
  constexpr size_t kWidth = 30;
  const size_t filled = total ? done * kWidth / total : kWidth;
  std::string bar(filled, '#');
  bar.resize(kWidth, '.');
  std::string left = "";
  if (done > 0 && done < total) {
    const double rest = elapsed_s / static_cast<double>(done) * static_cast<double>(total - done);
    left = rest < 60.0 ? fmt::format(", {:.0f} s left", rest) : fmt::format(", {:.0f} min left", rest / 60.0);
  } else if (done == total) {
    left = fmt::format(", {:.1f} s", elapsed_s);
  }
  return fmt::format("{} {:<13} [{}] {}/{} samples{}", label, phase, bar, done, total, left);
}

ProgressBar::ProgressBar(std::string label, bool terminal) : label_(std::move(label)), terminal_(terminal) {
  if (const char* v = std::getenv("MLIPC_PROGRESS_SECONDS")) {
    const std::string s = v;
    if (s.empty() || s.size() > 4 || s.find_first_not_of("0123456789") != std::string::npos || std::stoi(s) > 3600)
      fail("MLIPC_PROGRESS_SECONDS '{}': give whole seconds from 0 to 3600", printable(s));
    line_every_ = std::chrono::seconds(std::stoi(s));
  }
}

ProgressBar::~ProgressBar() {
  if (open_) std::fputc('\n', stderr);
}

bool ProgressBar::stderr_is_terminal() { return isatty(fileno(stderr)) != 0; }

void ProgressBar::update(std::string_view phase, size_t done, size_t total) {
  const auto now = std::chrono::steady_clock::now();
  if (phase != phase_) {
    if (open_) std::fputc('\n', stderr);
    open_ = written_ = false;
    phase_ = std::string(phase);
    phase_start_ = now;
    last_draw_ = terminal_ ? std::chrono::steady_clock::time_point{} : now;
  }
  const double elapsed = std::chrono::duration<double>(now - phase_start_).count();
  if (!terminal_) {
    // A log gets a line every few seconds: the phase's first after line_every_.
    const bool end = done == total && written_;
    if (!end && now - last_draw_ < line_every_) return;
    last_draw_ = now;
    written_ = true;
    std::fprintf(stderr, "%s\n", progress_line(label_, phase, done, total, elapsed).c_str());
    std::fflush(stderr);
    return;
  }
  if (done != total && done != 0 && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  // \r and clear to the end of the line: the line is redrawn in place.
  std::fprintf(stderr, "\r%s\033[K", progress_line(label_, phase, done, total, elapsed).c_str());
  std::fflush(stderr);
  open_ = true;
}

}  // namespace mlipc::cli
