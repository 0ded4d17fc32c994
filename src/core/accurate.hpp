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
#include "core/mpi.hpp"
#include "core/result.hpp"
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
  int repetitions_per_sample = 0;  // --reps-per-sample; 0: auto (see repetitions_per_sample())
};

// Repetitions timed back to back as one sample. A sample shorter than about 100 timer
// resolutions (or readings) is mostly the timer: then enough repetitions are timed together
// that a sample lasts that long (at most 1000), Hoefler & Belli's rule on timer precision.
// `requested` > 0 is the user's choice and wins.
constexpr double kTimerFloorFactor = 100;
// A point's halves must differ by this fraction (or twice --target-ci, if larger) to be reported
// as a change of speed: a 4 MiB PingPong drifts by 5-8 % within a second on a quiet VM.
constexpr double kLevelShiftMinimum = 0.10;
int repetitions_per_sample(double repetition_s, double timer_floor_s, int requested);

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
  int repetitions_per_sample = 1;
  double timer_floor_s = 0;  // the largest timer resolution or reading cost over the ranks
  LevelShift level_shift;    // the valid samples' first and second halves, compared
  StoppingRule stopping;     // the rule the point ran under
};

// State that outlives a point: the clock model against the reference rank, and whether the
// window scheme already failed in this run (then it is not tried again).
struct AccurateState {
  ClockModel clock;
  int reference_world_rank = -1;
  double synchronized_at = -1;
  bool window_failed = false;
  double timer_floor_s = -1;      // measured on first use, the largest over the ranks
  double timer_resolution_s = 0;  // the smallest step of the timer, the largest over the ranks
};

// One repetition of whatever a suite times, called with the repetition's index on every rank
// of the communicator. A reference to a callable (no allocation, one indirect call), so that
// the timed region holds the suite's kernel and nothing else.
class RepetitionRef {
 public:
  template <class F>
  RepetitionRef(F& f)  // NOLINT(google-explicit-constructor): built from lambdas at call sites
      : self_(&f), call_([](void* self, int index) { (*static_cast<F*>(self))(index); }) {}
  void operator()(int index) const { call_(self_, index); }

 private:
  void* self_;
  void (*call_)(void*, int);
};

// Collective over comm (its rank 0 is the reference clock). `sync_comm` is a duplicate of comm
// reserved for synchronisation messages. `time_factor` scales a repetition's time into the
// reported one (1/2 for a ping-pong's round trip). `after_sample`, when given, runs untimed after
// each sample (with the index of the sample's last repetition), on every rank: the clean-up of
// what repetitions create and must not pile up over a point (SKaMPI's MPI_Comm_split: MPICH has
// 2,048 communicators, and a point may time more repetitions than that).
AccurateResult measure_accurately(RepetitionRef repetition, MPI_Comm comm, MPI_Comm sync_comm,
                                  double time_factor, const AccurateSettings& settings,
                                  AccurateState& state,
                                  const RepetitionRef* after_sample = nullptr);

// An engine benchmark's kernel (one iterate() per repetition; a loop of n_sample transfers per
// sample in aggregate mode).
AccurateResult measure_accurately(const Benchmark& b, PointContext& ctx, MPI_Comm sync_comm,
                                  const AccurateSettings& settings, AccurateState& state);

// What a suite outside the engine holds to measure accurately: the settings, a duplicate of the
// communicator for synchronisation messages and the clock model that outlives a point. One per
// communicator; collective construction.
class AccurateMeter {
 public:
  AccurateMeter(MPI_Comm comm, const AccurateSettings& settings);
  // Collective over the communicator.
  AccurateResult measure(RepetitionRef repetition, double time_factor = 1.0,
                         const RepetitionRef* after_sample = nullptr) {
    return measure_accurately(repetition, comm_, sync_.get(), time_factor, settings_, state_,
                              after_sample);
  }
  // Each table (or pattern) tries the window scheme afresh.
  void new_table() { state_.window_failed = false; }
  MPI_Comm comm() const { return comm_; }

 private:
  MPI_Comm comm_;
  mpi::Comm sync_;
  AccurateSettings settings_;
  AccurateState state_;
};

// Rank 0 of the communicator: fills the row from the point's result: AccurateStats, the
// repetition count, t_min/t_max/t_avg over the valid repetitions (microseconds), the raw samples
// when `keep_samples`, and the notes: first "not converged: <reason>" when the stopping rule was
// not met (core/convergence.hpp decides), then a window fall-back. Returns false when no
// repetition was valid (then the row stays unmeasured, with a note saying why).
bool fill_accurate_row(const AccurateResult& r, bool keep_samples, Measurement& m);

}  // namespace mpiscope::core
