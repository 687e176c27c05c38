// A progress bar on stderr for long compile steps (calibration): redrawn in
// place when stderr is a terminal; otherwise (CI logs, pipes) a line every
// kLineSeconds once a phase has run that long, so short runs print nothing.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace mlipc::cli {

class ProgressBar {
 public:
  static constexpr int kLineSeconds = 5;

  // `label` heads the line ("calibration"); `terminal`: stderr is one. The
  // line interval is kLineSeconds, or MLIPC_PROGRESS_SECONDS (whole seconds
  // from 0 to 3600: 0 writes every update); throws Error on another value.
  ProgressBar(std::string label, bool terminal);
  ~ProgressBar();  // ends a line left open
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Redraws "label phase [#####.....] done/total samples, N s left" (at most
  // ten times a second, and at the end of each phase); not on a terminal,
  // writes it as a line every kLineSeconds (and at the end of a phase that
  // wrote one).
  void update(std::string_view phase, size_t done, size_t total);

  // Whether stderr is a terminal.
  static bool stderr_is_terminal();

 private:
  std::string label_, phase_;
  bool terminal_;
  std::chrono::seconds line_every_{kLineSeconds};
  bool open_ = false;    // a terminal line left without its newline
  bool written_ = false; // a line written in this phase (not on a terminal)
  std::chrono::steady_clock::time_point phase_start_, last_draw_;
};

// The line update() draws, without the carriage return (for tests).
std::string progress_line(std::string_view label, std::string_view phase, size_t done, size_t total,
                          double elapsed_s);

}  // namespace mlipc::cli
