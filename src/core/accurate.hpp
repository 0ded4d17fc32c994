// Accurate mode: one measurement point timed repetition by repetition. Each repetition starts by
// the chosen synchronisation (sync.hpp), is timed on every rank, and becomes one sample: the
// slowest rank's time (max-local) or, on synchronised clocks, last exit minus first start
// (global). Repetitions that started late or overran their window are counted invalid and left
// out. Batches run until the stopping rule (stopping.hpp) is met; the collective decisions
// between batches are outside every timed region.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "core/benchmark.hpp"
#include "core/clock_model.hpp"
#include "core/stopping.hpp"
#include "core/sync.hpp"

namespace mpiscope::core {

enum class TimeDefinition { MaxLocal, GlobalSpan };
const char* time_definition_name(TimeDefinition d);  // "max-local", "global"

struct AccurateSettings {
  StoppingRule stopping;
  SyncMethod sync = SyncMethod::Window;
  bool global_time = false;           // GlobalSpan when the clocks are synchronised (window)
  double resync_interval_s = 1.0;     // re-estimate the clock model when older than this
  double max_invalid_fraction = 0.5;  // beyond this in a batch: widen the window, then fall back
  int max_window_doublings = 3;
};

// What one point produced; complete on rank 0 of the communicator, `seconds` on every rank.
struct AccurateResult {
  std::vector<double> samples;  // valid repetitions' times in seconds (time factor applied)
  int attempted = 0, late = 0, overrun = 0;
  StopReason stop = StopReason::Continue;
  SyncMethod sync_used = SyncMethod::Window;
  TimeDefinition time_definition = TimeDefinition::MaxLocal;
  double window_s = 0;  // the final window length (window sync)
  bool fell_back = false;
  int window_attempted = 0, window_invalid = 0;  // before a fall-back (not in the counts above)
  double seconds = 0;                            // the median sample, broadcast to every rank
  double clock_offset_max_s = 0, clock_drift_max = 0;  // the largest |offset| and |drift| seen
};

// State that outlives a point: the clock model against the reference rank, and whether the
// window scheme already failed in this run (then it is not tried again).
struct AccurateState {
  ClockModel clock;
  int reference_world_rank = -1;
  double synchronized_at = -1;
  bool window_failed = false;
};

// Collective over ctx.comm (its rank 0 is the reference clock). `sync_comm` is a duplicate of
// ctx.comm reserved for synchronisation messages.
AccurateResult measure_accurately(const Benchmark& b, PointContext& ctx, MPI_Comm sync_comm,
                                  const AccurateSettings& settings, AccurateState& state);

}  // namespace mpiscope::core
