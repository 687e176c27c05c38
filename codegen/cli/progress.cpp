#include "cli/progress.h"

#include <cstdio>
#include <unistd.h>

#include <fmt/format.h>

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

ProgressBar::ProgressBar(std::string label, bool enabled) : label_(std::move(label)), enabled_(enabled) {}

ProgressBar::~ProgressBar() {
  if (open_) std::fputc('\n', stderr);
}

bool ProgressBar::stderr_is_terminal() { return isatty(fileno(stderr)) != 0; }

void ProgressBar::update(std::string_view phase, size_t done, size_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (phase != phase_) {
    if (open_) std::fputc('\n', stderr);
    phase_ = std::string(phase);
    phase_start_ = now;
    last_draw_ = {};
  }
  if (done != total && done != 0 && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - phase_start_).count();
  // \r and clear to the end of the line: the line is redrawn in place.
  std::fprintf(stderr, "\r%s\033[K", progress_line(label_, phase, done, total, elapsed).c_str());
  std::fflush(stderr);
  open_ = true;
}

}  // namespace mlipc::cli
