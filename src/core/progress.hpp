// A one-line progress display for long runs: suite, benchmark and size being measured, points
// done, elapsed and estimated remaining time, on rank 0's terminal. It writes to the controlling
// terminal (/dev/tty) or to stderr when that is a terminal, never into the results on stdout, and
// stays quiet when there is no terminal (batch jobs, CI) or when MPISCOPE_PROGRESS=0.
//
// The launcher forwards stdout asynchronously, so the line must not be drawn while report text
// may still be on its way: it appears only once a second has passed without a report, i.e. on
// points that take long, which is when it is wanted. A small thread (no MPI calls) redraws it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include "core/reporter.hpp"

namespace mpiscope::core {

// One progress message line for whoever watches (b_eff's lengths, SKaMPI's suites): on the
// controlling terminal or a terminal stderr, never on a stderr that is a pipe or a file, where the
// launcher could merge it into the tables on stdout (2>&1, Slurm's default). Quiet with
// MPISCOPE_PROGRESS=0.
void progress_message(const std::string& text);

// "elapsed 1:05 | ~2:10 left": the time so far and, once `done` of `total` steps are done, the
// rest at the rate so far (an estimate, marked as one with '~').
std::string elapsed_and_left(double elapsed_s, long done, long total);

class ProgressDisplay {
 public:
  // Opens the terminal on world rank 0 only; `total_points` may be 0 when unknown.
  ProgressDisplay(std::string suite, long total_points);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  bool active() const { return out_ != nullptr; }
  void point_started(const std::string& what);  // e.g. "PingPong, 65536 bytes, 2 processes"
  void point_finished();
  // Erases the line; call before anything is printed on rank 0.
  void clear();

  // The text of the line (elapsed and remaining from the points done so far).
  static std::string line(const std::string& suite, const std::string& what, long done, long total,
                          double elapsed_s);

 private:
  using Clock = std::chrono::steady_clock;
  void run();
  void draw_locked(Clock::time_point now);
  void clear_locked();
  std::FILE* out_ = nullptr;
  bool own_file_ = false;
  std::string suite_, what_;
  long done_ = 0, total_ = 0;
  bool in_point_ = false, shown_ = false, stop_ = false;
  Clock::time_point start_, last_quiet_, last_draw_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

// Erases the progress line before anything reaches the reporters; passes every event on.
class ClearingReporter : public Reporter {
 public:
  ClearingReporter(Reporter& inner, ProgressDisplay& progress)
      : inner_(inner), progress_(progress) {}
  void benchmark_started(const BenchmarkRun& b) override {
    progress_.clear();
    inner_.benchmark_started(b);
  }
  void row(const BenchmarkRun& b, const Measurement& m) override {
    progress_.clear();
    inner_.row(b, m);
  }
  void benchmark_finished(const BenchmarkRun& b) override {
    progress_.clear();
    inner_.benchmark_finished(b);
  }
  void note(const std::string& n) override {
    progress_.clear();
    inner_.note(n);
  }
  void summary(const NamedValue& v) override {
    progress_.clear();
    inner_.summary(v);
  }
  void run_started(const RunInfo& i) override { inner_.run_started(i); }
  void run_finished(const RunInfo& i, bool ok) override {
    progress_.clear();
    inner_.run_finished(i, ok);
  }

 private:
  Reporter& inner_;
  ProgressDisplay& progress_;
};

}  // namespace mpiscope::core
