#include "core/accurate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/convergence.hpp"
#include "core/mpi.hpp"
#include "core/stats.hpp"

namespace mpiscope::core {

const char* time_definition_name(TimeDefinition d) {
  return d == TimeDefinition::GlobalSpan ? "global" : "max-local";
}

namespace {

constexpr int kPilotRepetitions = 5;

// What rank 0 tells every rank before a batch (one broadcast, outside any timed region).
struct BatchPlan {
  double count = 0;         // repetitions in this batch; 0: the point is finished
  double start_global = 0;  // window sync: global time of the first window
  double window_s = 0;
  double sync = 0;        // SyncMethod
  double per_sample = 1;  // repetitions timed back to back as one sample
};

// One repetition on one rank, in the layout the reduction to rank 0 needs: the maximum of each
// field over ranks, with the start negated so that its maximum is the earliest start.
struct Records {
  explicit Records(int n) : values(static_cast<std::size_t>(5 * n), 0.0), n_(n) {}
  double& duration(int i) { return values[static_cast<std::size_t>(i)]; }
  double& end(int i) { return values[static_cast<std::size_t>(n_ + i)]; }
  double& negative_start(int i) { return values[static_cast<std::size_t>(2 * n_ + i)]; }
  double& late(int i) { return values[static_cast<std::size_t>(3 * n_ + i)]; }
  double& overrun(int i) { return values[static_cast<std::size_t>(4 * n_ + i)]; }
  std::vector<double> values;

 private:
  int n_;
};

Records run_batch(RepetitionRef repetition, const RepetitionRef* after_sample, MPI_Comm comm,
                  MPI_Comm sync_comm, const BatchPlan& plan, const ClockModel& clock,
                  int first_index) {
  const int n = static_cast<int>(plan.count);
  const int per_sample = static_cast<int>(plan.per_sample);
  const auto sync = static_cast<SyncMethod>(static_cast<int>(plan.sync));
  Records r(n);
  for (int i = 0; i < n; ++i) {
    double target_global = 0;
    if (sync == SyncMethod::Window) {
      target_global = plan.start_global + i * plan.window_s;
      const double target = clock.to_local(target_global);
      double now = MPI_Wtime();
      r.late(i) = now > target ? 1 : 0;
      while (now < target) now = MPI_Wtime();
    } else if (sync == SyncMethod::OwnBarrier) {
      own_barrier(sync_comm);
    } else {
      MPI_Barrier(comm);
    }
    const double start = MPI_Wtime();
    for (int k = 0; k < per_sample; ++k) repetition(first_index + i * per_sample + k);
    const double end = MPI_Wtime();
    r.duration(i) = end - start;
    r.end(i) = clock.to_global(end);
    r.negative_start(i) = -clock.to_global(start);
    if (sync == SyncMethod::Window) r.overrun(i) = r.end(i) > target_global + plan.window_s ? 1 : 0;
    if (after_sample != nullptr) (*after_sample)(first_index + (i + 1) * per_sample - 1);
  }
  int rank = 0;
  MPI_Comm_rank(sync_comm, &rank);
  const int count = static_cast<int>(r.values.size());
  if (rank == 0)
    MPI_Reduce(MPI_IN_PLACE, r.values.data(), count, MPI_DOUBLE, MPI_MAX, 0, sync_comm);
  else
    MPI_Reduce(r.values.data(), nullptr, count, MPI_DOUBLE, MPI_MAX, 0, sync_comm);
  return r;
}

// Re-estimates the clock model when it is missing, stale or belongs to another reference rank.
void refresh_clocks(MPI_Comm sync_comm, const AccurateSettings& s, AccurateState& state) {
  int reference = mpi::world_rank();
  MPI_Bcast(&reference, 1, MPI_INT, 0, sync_comm);
  if (reference != state.reference_world_rank) {
    state.clock = ClockModel();
    state.reference_world_rank = reference;
    state.synchronized_at = -1;
  }
  // Stale if it is on any rank: a rank that sat out the earlier process sets has no model yet
  // while the others have one, and all must enter the synchronisation or none.
  int stale =
      state.synchronized_at < 0 || MPI_Wtime() - state.synchronized_at > s.resync_interval_s;
  MPI_Allreduce(MPI_IN_PLACE, &stale, 1, MPI_INT, MPI_MAX, sync_comm);
  if (!stale) return;
  synchronize_clocks(sync_comm, state.clock);
  state.synchronized_at = MPI_Wtime();
}

// The largest timer resolution or reading cost over the ranks, measured once per state (and the
// largest resolution alone, the step a sample can show).
// Agreed by all ranks of sync_comm: one that sat out the earlier process sets (an inactive rank
// of a smaller set) has none yet, and then all measure again (the collective needs them all).
double timer_floor(MPI_Comm sync_comm, AccurateState& state) {
  int missing = state.timer_floor_s < 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &missing, 1, MPI_INT, MPI_MAX, sync_comm);
  if (missing) {
    const TimerProperties t = measure_timer();
    double floor_and_resolution[2] = {std::max({t.resolution_s, t.cost_s, state.timer_floor_s}),
                                      std::max(t.resolution_s, state.timer_resolution_s)};
    MPI_Allreduce(MPI_IN_PLACE, floor_and_resolution, 2, MPI_DOUBLE, MPI_MAX, sync_comm);
    state.timer_floor_s = floor_and_resolution[0];
    state.timer_resolution_s = floor_and_resolution[1];
  }
  return state.timer_floor_s;
}

}  // namespace

int repetitions_per_sample(double repetition_s, double timer_floor_s, int requested) {
  if (requested > 0) return requested;
  const double wanted = kTimerFloorFactor * timer_floor_s;
  if (!(repetition_s < wanted)) return 1;
  return static_cast<int>(std::min(1000.0, std::ceil(wanted / std::max(repetition_s, 1e-9))));
}

AccurateResult measure_accurately(RepetitionRef repetition, MPI_Comm comm, MPI_Comm sync_comm,
                                  double time_factor, const AccurateSettings& s,
                                  AccurateState& state, const RepetitionRef* after_sample) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const bool root = rank == 0;
  AccurateResult out;
  out.stopping = s.stopping;
  out.timer_floor_s = timer_floor(sync_comm, state);
  int window_failed = state.window_failed ? 1 : 0;  // every rank must choose the same scheme
  MPI_Allreduce(MPI_IN_PLACE, &window_failed, 1, MPI_INT, MPI_MAX, sync_comm);
  state.window_failed = window_failed != 0;
  out.sync_used =
      s.sync == SyncMethod::Window && state.window_failed ? SyncMethod::OwnBarrier : s.sync;
  if (out.sync_used == SyncMethod::Window) refresh_clocks(sync_comm, s, state);
  const ClockModel identity;
  const ClockModel& clock = out.sync_used == SyncMethod::Window ? state.clock : identity;

  // Pilot: a few barrier-started repetitions size the window and the first batch. One first; the
  // other four only when they fit in a tenth of the budget (a 100 MB transfer must not spend its
  // point's budget on the pilot).
  BatchPlan plan{1, 0, 0, static_cast<double>(SyncMethod::OwnBarrier), 1};
  const double pilot_start = MPI_Wtime();
  Records first = run_batch(repetition, after_sample, comm, sync_comm, plan, identity, 0);
  std::vector<double> pilot_times = {first.duration(0)};
  plan.count = root && 4 * first.duration(0) > s.stopping.budget_s / 10 ? 0 : kPilotRepetitions - 1;
  MPI_Bcast(&plan.count, 1, MPI_DOUBLE, 0, sync_comm);
  if (plan.count > 0) {
    Records more = run_batch(repetition, after_sample, comm, sync_comm, plan, identity, 1);
    for (int i = 0; i < static_cast<int>(plan.count); ++i) pilot_times.push_back(more.duration(i));
  }
  const int pilot_count = static_cast<int>(pilot_times.size());
  // Repetitions cost their synchronisation too: batches are sized by wall time per repetition.
  double seconds_per_repetition = (MPI_Wtime() - pilot_start) / pilot_count;
  std::sort(pilot_times.begin(), pilot_times.end());
  // Four median repetitions plus a margin for the timer and the wait: a slow pilot sample (one
  // preemption) must not make every window of the point long; widening handles real trouble.
  const double pilot_median = pilot_times[static_cast<std::size_t>(pilot_count / 2)];
  const int per_sample =
      repetitions_per_sample(pilot_median, out.timer_floor_s, s.repetitions_per_sample);
  out.repetitions_per_sample = per_sample;  // rank 0's choice; every rank follows its plans
  double window = 4 * pilot_median * per_sample + 5e-6;
  seconds_per_repetition *= per_sample;  // from here on a "repetition" of a batch is a sample
  int index = pilot_count, doublings = 0;
  double elapsed = 0;
  // Window sync: how long each valid sample occupied its window (last end minus the window's
  // start, global time). The window is shrunk towards 1.5 times their 99th percentile: idle
  // waiting costs wall time and buys nothing once the samples' spread is known.
  std::vector<double> occupancy;
  out.time_definition = s.global_time && out.sync_used == SyncMethod::Window
                            ? TimeDefinition::GlobalSpan
                            : TimeDefinition::MaxLocal;

  for (;;) {
    plan = {};
    if (root && out.stop == StopReason::Continue) {
      const int valid = static_cast<int>(out.samples.size());
      // A window is what a sample should cost; under load the last batch may have shown more.
      const double per_repetition = out.sync_used == SyncMethod::Window
                                        ? std::max(window, seconds_per_repetition)
                                        : seconds_per_repetition;
      plan.count = next_batch_size(s.stopping, valid, out.attempted, elapsed, per_repetition);
      plan.window_s = window;
      plan.sync = static_cast<double>(out.sync_used);
      plan.per_sample = per_sample;
      // The first window opens once every rank has surely received this plan.
      plan.start_global = clock.to_global(MPI_Wtime()) + std::max(5e-4, 2 * window);
    }
    MPI_Bcast(&plan, 5, MPI_DOUBLE, 0, sync_comm);
    if (plan.count == 0) break;
    const double batch_start = MPI_Wtime();
    Records r = run_batch(repetition, after_sample, comm, sync_comm, plan, clock, index);
    index += static_cast<int>(plan.count * plan.per_sample);
    if (!root) continue;
    const double batch_wall = MPI_Wtime() - batch_start;
    elapsed += batch_wall;
    const int n = static_cast<int>(plan.count);
    seconds_per_repetition = batch_wall / n;
    int invalid = 0;
    for (int i = 0; i < n; ++i) {
      const double span = out.time_definition == TimeDefinition::GlobalSpan
                              ? r.end(i) + r.negative_start(i)
                              : r.duration(i);
      ++out.attempted;
      if (r.late(i) > 0 || r.overrun(i) > 0) {
        ++invalid;
        out.late += r.late(i) > 0;
        out.overrun += r.late(i) == 0 && r.overrun(i) > 0;
        continue;
      }
      out.samples.push_back(span / per_sample * time_factor);
      if (plan.sync == static_cast<double>(SyncMethod::Window))
        occupancy.push_back(r.end(i) - (plan.start_global + i * plan.window_s));
    }
    if (plan.sync == static_cast<double>(SyncMethod::Window) && invalid <= 0.05 * n &&
        occupancy.size() >= 20) {
      const double needed = 1.5 * quantile(occupancy, 0.99) + 2e-6;
      window = std::max(window / 2, std::min(window, needed));  // at most halved per batch
    }
    std::vector<double> sorted = out.samples;
    std::sort(sorted.begin(), sorted.end());
    out.stop = stop_reason(s.stopping, sorted, out.attempted, elapsed,
                           state.timer_resolution_s / per_sample * time_factor);
    // A point that used its budget on windows without one valid sample is measured again with
    // the barrier rather than left empty.
    const bool empty_at_limit = out.stop != StopReason::Continue && out.samples.empty() &&
                                out.sync_used == SyncMethod::Window;
    if (invalid > s.max_invalid_fraction * n || empty_at_limit) {
      if (doublings < s.max_window_doublings && !empty_at_limit) {
        window *= 2;  // a wider window absorbs late starts from jitter
        ++doublings;
      } else {
        // The window scheme cannot work here (oversubscription, load): start the point again
        // with mpiscope's own barrier rather than report the few repetitions that fitted.
        out.fell_back = true;
        state.window_failed = true;
        out.window_attempted = out.attempted;
        out.window_invalid = out.late + out.overrun;
        out.attempted = out.late = out.overrun = 0;
        out.sync_used = SyncMethod::OwnBarrier;
        out.time_definition = TimeDefinition::MaxLocal;
        out.samples.clear();
        occupancy.clear();
        elapsed = 0;
        out.stop = StopReason::Continue;
        continue;
      }
    }
  }
  if (root)
    out.level_shift = detect_level_shift(
        out.samples, std::max(kLevelShiftMinimum, 2 * s.stopping.target_relative_half_width));
  // Every rank learns the fallback and the median (t_pure of non-blocking I/O needs it).
  double shared[4] = {out.samples.empty() ? 0.0 : quantile(out.samples, 0.5),
                      out.fell_back ? 1.0 : 0.0, window, static_cast<double>(per_sample)};
  MPI_Bcast(shared, 4, MPI_DOUBLE, 0, sync_comm);
  out.seconds = shared[0];
  out.repetitions_per_sample = static_cast<int>(shared[3]);
  out.window_s = out.sync_used == SyncMethod::Window ? shared[2] : 0;
  if (shared[1] > 0) state.window_failed = true;
  double clock_error[2] = {std::fabs(state.clock.offset()), std::fabs(state.clock.drift())};
  MPI_Allreduce(MPI_IN_PLACE, clock_error, 2, MPI_DOUBLE, MPI_MAX, sync_comm);
  out.clock_offset_max_s = clock_error[0];
  out.clock_drift_max = clock_error[1];
  return out;
}

AccurateResult measure_accurately(const Benchmark& b, PointContext& ctx, MPI_Comm sync_comm,
                                  const AccurateSettings& settings, AccurateState& state) {
  if (ctx.aggregate()) {
    // IMB's aggregate mode: a sample is n_sample transfers to disjoint targets, completion once.
    auto aggregate = [&](int) { b.kernel.loop(ctx, std::max(1, ctx.repetitions), 0); };
    const double factor = b.time_factor / std::max(1, ctx.repetitions);
    return measure_accurately(aggregate, ctx.comm, sync_comm, factor, settings, state);
  }
  auto one = [&](int index) { b.kernel.iterate(ctx, index); };
  return measure_accurately(one, ctx.comm, sync_comm, b.time_factor, settings, state);
}

AccurateMeter::AccurateMeter(MPI_Comm comm, const AccurateSettings& settings)
    : comm_(comm), settings_(settings) {
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(comm, &dup);
  sync_ = mpi::Comm::own(dup);  // synchronisation never meets the suite's messages
}

bool fill_accurate_row(const AccurateResult& r, bool keep_samples, Measurement& m) {
  AccurateStats a;
  a.sync = sync_method_name(r.sync_used);
  a.time_definition = time_definition_name(r.time_definition);
  a.stop_reason = stop_reason_name(r.stop);
  a.attempted = r.attempted;
  a.valid = static_cast<int>(r.samples.size());
  a.min_repetitions = r.stopping.min_repetitions;
  a.target_relative_half_width = r.stopping.target_relative_half_width;
  a.late = r.late;
  a.overrun = r.overrun;
  a.fell_back = r.fell_back;
  a.window_us = r.window_s * 1e6;
  a.clock_offset_max_us = r.clock_offset_max_s * 1e6;
  a.clock_drift_max = r.clock_drift_max;
  a.repetitions_per_sample = r.repetitions_per_sample;
  a.timer_floor_us = r.timer_floor_s * 1e6;
  a.level_shift = r.level_shift;
  a.level_shift.first_median *= 1e6;
  a.level_shift.second_median *= 1e6;
  m.accurate = a;
  if (r.samples.empty()) {
    m.measured = false;
    m.note = "no valid repetition: " + std::to_string(r.attempted) + " attempted, " +
             std::to_string(r.late) + " started late, " + std::to_string(r.overrun) +
             " overran their window";
    return false;
  }
  std::vector<double> us;
  us.reserve(r.samples.size());
  for (double x : r.samples) us.push_back(x * 1e6);
  auto& stats = *m.accurate;
  stats.summary_us = summarize(us, r.stopping.confidence);  // the level it stopped at
  m.measured = true;
  m.repetitions = stats.valid;
  m.t_min_us = stats.summary_us.min;
  m.t_max_us = stats.summary_us.max;
  m.t_avg_us = stats.summary_us.mean;
  std::vector<std::string> notes;
  // The level shift, the budget, a median the timer cannot resolve: said once, first.
  if (auto why = not_converged_reason(m)) notes.push_back(std::string(kNotConvergedPrefix) + *why);
  if (r.fell_back)
    notes.push_back("window sync: too many repetitions started late or overran their window (" +
                    std::to_string(r.window_invalid) + " of " + std::to_string(r.window_attempted) +
                    ", even after widening it 8-fold: oversubscribed or loaded node?); measured "
                    "with " +
                    stats.sync + " instead");
  if (stats.repetitions_per_sample > 1)
    notes.push_back(fmt::format(
        "a sample is {} repetitions timed back to back (one lasts less than {:.0f} timer "
        "resolutions of {:.3f} usec); times are per repetition",
        stats.repetitions_per_sample, kTimerFloorFactor, stats.timer_floor_us));
  for (const auto& n : notes) m.note += (m.note.empty() ? "" : "; ") + n;
  if (keep_samples) {
    m.raw_samples_us = std::move(us);
    m.samples_us = stats.summary_us;
  }
  return true;
}

}  // namespace mpiscope::core
