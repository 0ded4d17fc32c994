// The five PRESTA tests, each a loop over its points that hands rows to the reporters.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "core/accurate.hpp"
#include "core/progress.hpp"
#include "core/reporter.hpp"
#include "core/watchdog.hpp"
#include "suites/presta/options.hpp"

namespace mpiscope::presta {

struct RunContext {
  const Options& options;
  Pairing pairing;
  core::Reporter& out;  // the reporters on rank 0, a null reporter elsewhere
  core::Watchdog& watchdog;
  core::ProgressDisplay& progress;
  double wtick_s = 0;  // MPI_Wtick
  bool root = false;
  // --method accurate: the accurate mode's settings (measure.hpp); empty in classic mode.
  std::optional<core::AccurateSettings> accurate;
  const core::AccurateSettings* accurate_settings() const {
    return accurate ? &*accurate : nullptr;
  }
  // A measurement point: watched for hangs (--timeout) and shown on the progress line.
  void point_started(const std::string& what) {
    watchdog.arm(what);
    progress.point_started(what);
  }
  void point_finished() {
    watchdog.end_phase();
    progress.point_finished();
  }
};

// The measurement points a run of `o` has (for the progress line's estimate of the time left).
long points_of(const Options& o);
std::size_t global_op_count();  // loop_tests.cpp

// Each returns the exit code (0, or 1 when a point could not be measured).
int run_com(RunContext& c);       // pair_tests.cpp
int run_laten(RunContext& c);     // pair_tests.cpp
int run_rma(RunContext& c);       // rma.cpp
int run_allred(RunContext& c);    // loop_tests.cpp
int run_globalop(RunContext& c);  // loop_tests.cpp

// rma's memory requirement per process (README): operations per epoch x largest message x 2
// (origin buffer and window).
double rma_bytes_per_process(const Options& o);
// Empty when every host has the memory that its rma processes need, else the reason (rank 0).
// Collective over MPI_COMM_WORLD.
std::string rma_memory_error(const Options& o);

// allred's MPI_Allreduce (README): "a fixed operation size of 4 MPI_DOUBLEs".
inline constexpr int kAllreduceDoubles = 4;

// Units written with every figure.
inline constexpr const char* kMegabytesPerSecond = "MB/s (10^6 bytes per second)";
inline constexpr const char* kMicroseconds = "microseconds";
inline constexpr const char* kTicks = "MPI_Wtick ticks";

}  // namespace mpiscope::presta
