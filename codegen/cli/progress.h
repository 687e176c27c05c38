// A progress bar on stderr for long compile steps (calibration): drawn only
// when stderr is a terminal, silent otherwise (CI logs, pipes, tests).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace mlipc::cli {

class ProgressBar {
 public:
  // `label` heads the line ("calibration"); `enabled` false draws nothing.
  ProgressBar(std::string label, bool enabled);
  ~ProgressBar();  // ends a line left open
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Redraws "label phase [#####.....] done/total samples, N s left" (at most
  // ten times a second, and at the end of each phase).
  void update(std::string_view phase, size_t done, size_t total);

  // Whether stderr is a terminal.
  static bool stderr_is_terminal();

 private:
  std::string label_, phase_;
  bool enabled_;
  bool open_ = false;
  std::chrono::steady_clock::time_point phase_start_, last_draw_;
};

// The line update() draws, without the carriage return (for tests).
std::string progress_line(std::string_view label, std::string_view phase, size_t done, size_t total,
                          double elapsed_s);

}  // namespace mlipc::cli
