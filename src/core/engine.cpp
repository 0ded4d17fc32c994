#include "core/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iterator>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "core/cpu_exploit.hpp"
#include "core/curve_model.hpp"
#include "core/fault_injection.hpp"
#include "core/mpi.hpp"
#include "core/overlap.hpp"
#include "core/process_sets.hpp"
#include "core/progress.hpp"
#include "core/scratch_files.hpp"
#include "core/sync.hpp"
#include "core/thread_team.hpp"
#include "core/watchdog.hpp"

namespace mpiscope::core {

namespace {
// A barrier at which `idle` ranks do not poll: they test it and sleep between tests. Ranks that
// sit out a process set wait for it here, and on a node with more ranks than cores a polling
// waiter takes a core from the ranks that measure (MPICH 4.0's waiters never yield: a 4-rank
// IMB-MPI1 PingPong and Allreduce on 2 cores took 129 s, its 2 idle ranks spinning in
// MPI_Barrier). The ranks that measured wait as usual; nothing timed is affected.
void wait_without_a_core(MPI_Comm comm, bool idle) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &request);
  if (!idle) {
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    return;
  }
  for (int done = 0; MPI_Test(&request, &done, MPI_STATUS_IGNORE), !done;)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
}
}  // namespace

const char* aggregation_name(Aggregation a) {
  switch (a) {
    case Aggregation::NonAggregate:
      return "non-aggregate";
    case Aggregation::Aggregate:
      return "aggregate";
    default:
      return "";
  }
}

const std::vector<ElementType>& element_types() {
  static const std::vector<ElementType> types = {{"byte", Datatype::Byte, Datatype::Byte},
                                                 {"char", Datatype::Char, Datatype::CharSum},
                                                 {"int", Datatype::Int, Datatype::IntSum},
                                                 {"float", Datatype::Float, Datatype::FloatSum},
                                                 {"double", Datatype::Double, Datatype::DoubleSum}};
  return types;
}

const ElementType* find_element_type(std::string_view name) {
  for (const auto& t : element_types())
    if (name == t.name) return &t;
  return nullptr;
}

const char* mpi_type_name(Datatype d) {
  const MPI_Datatype t = mpi_datatype(d);
  return t == MPI_CHAR     ? "MPI_CHAR"
         : t == MPI_INT    ? "MPI_INT"
         : t == MPI_FLOAT  ? "MPI_FLOAT"
         : t == MPI_DOUBLE ? "MPI_DOUBLE"
                           : "MPI_BYTE";
}

const char* family_name(Family f) {
  switch (f) {
    case Family::SingleTransfer:
      return "single_transfer";
    case Family::ParallelTransfer:
      return "parallel_transfer";
    default:
      return "collective";
  }
}

namespace {

constexpr std::size_t kWarmupBytes = sizeof(float);  // IMB 5.2.6: sizeof(assign_type)
constexpr std::byte kSentinel{0xA5};                 // receive buffers before a -check pass
constexpr double kUntimed = -1;  // a rank's time when it does not time (Benchmark::timed_rank)

std::string describe(const Benchmark& b, std::size_t bytes, int nprocs) {
  std::string s = b.name;
  if (b.sized) s += " at " + std::to_string(bytes) + " bytes";
  return s + " on " + std::to_string(nprocs) + " processes";
}

// Undoes what set_length made: the benchmark's setup, and the persistent request.
void release_point(const Benchmark& b, PointContext& ctx) {
  if (b.release) b.release(ctx);
  if (!b.make_request) return;
  for (auto& r : ctx.persistent)
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  ctx.persistent.clear();
}

void set_length(PointContext& ctx, const Benchmark& b, std::size_t bytes, const ProcessSet& ps,
                const ElementLayout& layout) {
  release_point(b, ctx);
  ctx.bytes = bytes;
  ctx.message_span = b.sized ? span_bytes(layout, bytes, element_bytes(b.datatype)) : bytes;
  ctx.datatype = mpi_datatype(b.datatype);
  ctx.element_bytes = element_bytes(b.datatype);
  ctx.count = static_cast<int>(bytes / ctx.element_bytes);
  ctx.op = MPI_SUM;
  ctx.element_spacing = 0;
  ctx.derived.reset();
  if (!layout.packed() && b.sized) {  // -contig_type, -D: the point's own datatype
    auto derived = std::make_shared<const DerivedTypes>(layout, b.datatype, bytes);
    ctx.datatype = derived->datatype();
    ctx.count = derived->count();
    ctx.element_bytes = derived->type_size();
    ctx.op = derived->op();
    ctx.element_spacing = derived->spacing();
    ctx.spaced_element = element_bytes(b.datatype);
    ctx.derived = std::move(derived);
  }
  ctx.counts.clear();
  ctx.types.clear();
  ctx.displs.clear();
  if (b.setup) {
    // Groups set up one after another: Open MPI 4.1 fails to create windows in two disjoint
    // communicators at the same moment on one node.
    for (std::size_t g = 0; g < ps.layout.groups.size(); ++g) {
      if (static_cast<int>(g) == ps.group_index) b.setup(ctx);
      if (ps.layout.groups.size() > 1) MPI_Barrier(ps.active.get());
    }
  }
  if (b.make_request) {
    ctx.persistent.assign(1, MPI_REQUEST_NULL);
    b.make_request(ctx, &ctx.persistent[0]);
  }
}

// A char sum sends its own pattern, whose sum over the ranks fits a char (-check's data); int
// and double sums the same pattern as ints or doubles (an int sum of the float pattern's bits
// overflows). Other benchmarks keep the rank's pattern.
void fill_sum_pattern(const Benchmark& b, const MessageBuffers& buffers, int rank, int nprocs) {
  const std::size_t bytes = buffers.shape().send;
  for (int slot = 0; slot < buffers.slots(); ++slot) {
    std::byte* send = buffers.send(slot);
    if (b.datatype == Datatype::CharSum) fill_char_sum_pattern(send, bytes, rank, nprocs);
    if (b.datatype == Datatype::IntSum)
      fill_sum_pattern_as<int>(send, bytes / sizeof(int), rank, nprocs);
    if (b.datatype == Datatype::DoubleSum)
      fill_sum_pattern_as<double>(send, bytes / sizeof(double), rank, nprocs);
  }
}

// Per-point resources (windows) are released whichever way the point ends.
struct ReleaseOnExit {
  const Benchmark& b;
  PointContext& ctx;
  ~ReleaseOnExit() {
    // Releasing is collective: not while an exception unwinds one rank alone (the front end
    // aborts the job then).
    if ((!b.release && !b.make_request) || std::uncaught_exceptions() > 0) return;
    fault::maybe_stop_in_release(b.name);
    release_point(b, ctx);
  }
};

// Defects of one receive: bytes (or elements of a sum) that differ from what was sent.
double count_defects(const Benchmark& b, const PointContext& ctx, int iteration) {
  double defects = 0;
  const std::byte* recv = ctx.recv(iteration);
  // A message's byte x lies at at(x) in the buffers (and in the pattern): packed, or under
  // -contig_type resize element k at k·spacing.
  const std::size_t element = element_bytes(b.datatype), spacing = ctx.element_spacing;
  const auto at = [&](std::size_t x) { return ctx.place(x); };
  for (const auto& blk : b.expected(ctx, iteration)) {
    if (blk.source >= 0 && spacing > 0) {  // a rank's pattern, element by element
      for (std::size_t e = 0; e < blk.length; e += element)
        defects += static_cast<double>(count_pattern_mismatches(
            recv + at(blk.recv_offset + e), std::min(element, blk.length - e),
            blk.source + ctx.pattern_base, at(blk.source_offset + e)));
      continue;
    }
    if (blk.source >= 0) {  // bytes of one rank's pattern
      defects += static_cast<double>(count_pattern_mismatches(
          recv + blk.recv_offset, blk.length, blk.source + ctx.pattern_base, blk.source_offset));
      continue;
    }
    if (b.datatype == Datatype::CharSum) {  // whole chars: the sum cannot overflow (buffers.hpp)
      for (std::size_t e = 0; e < blk.length; ++e) {
        const std::size_t index = at(blk.source_offset + e);
        const char expected = blk.source == ExpectedBlock::kOwnFloats
                                  ? char_sum_value(ctx.rank, ctx.nprocs, index)
                                  : char_sum_of_ranks(index);
        if (static_cast<char>(recv[at(blk.recv_offset + e)]) != expected) defects += 1;
      }
      continue;
    }
    if (b.datatype == Datatype::IntSum || b.datatype == Datatype::DoubleSum) {
      // The char-sum pattern as ints or doubles: exact.
      const bool ints = b.datatype == Datatype::IntSum;
      const std::size_t size = ints ? sizeof(int) : sizeof(double);
      for (std::size_t e = 0; e < blk.length / size; ++e) {
        const std::size_t index = at(blk.source_offset + e * size) / size;
        const int expected = blk.source == ExpectedBlock::kOwnFloats
                                 ? char_sum_value(ctx.rank, ctx.nprocs, index)
                                 : char_sum_of_ranks(index);
        const std::byte* got = recv + at(blk.recv_offset + e * size);
        int as_int = 0;
        double as_double = 0;
        if (ints)
          std::memcpy(&as_int, got, sizeof as_int);
        else
          std::memcpy(&as_double, got, sizeof as_double);
        if ((ints ? static_cast<double>(as_int) : as_double) != expected) defects += 1;
      }
      continue;
    }
    for (std::size_t e = 0; e < blk.length / sizeof(float); ++e) {
      const std::size_t index = at(blk.source_offset + e * sizeof(float)) / sizeof(float);
      double expected = 0;
      if (blk.source == ExpectedBlock::kOwnFloats)
        expected = buf_value(ctx.rank, index);
      else
        for (int r = 0; r < ctx.nprocs; ++r) expected += buf_value(r, index);
      float got = 0;
      std::memcpy(&got, recv + at(blk.recv_offset + e * sizeof(float)), sizeof got);
      // Summation order is the library's choice: allow float rounding over nprocs additions.
      const double tolerance = 4.0 * ctx.nprocs * 1.2e-7 * std::fabs(expected) + 1e-6;
      if (!(std::fabs(static_cast<double>(got) - expected) <= tolerance)) defects += 1;
    }
  }
  return defects;
}

// -check: repetitions outside the timed loop (one per root for rooted benchmarks) whose receive
// buffers are first filled with a sentinel and then compared with the senders' known patterns.
double verify(const Benchmark& b, PointContext& ctx) {
  if (!b.expected) return 0;
  const int passes = b.rooted ? ctx.nprocs : 1;
  double defects = 0;
  // A sum accumulated into a window starts from zeros; anything else from the sentinel.
  const std::byte fill = is_sum(b.datatype) ? std::byte{0} : kSentinel;
  for (int i = 0; i < passes; ++i) {
    if (ctx.buffers->shape().recv > 0) ctx.buffers->clear_recv(i, fill);
    if (b.prepare_check) b.prepare_check(ctx, i);
    // Orders the clearing before any transfer; a one-sided benchmark's completion step (a fence)
    // then opens its epoch too. Passive-target flushes order nothing, hence the barrier always.
    MPI_Barrier(ctx.comm);
    if (b.kernel.complete != &already_complete) b.kernel.complete(ctx);
    b.kernel.iterate(ctx, i);
    if (b.fetch_for_check) b.fetch_for_check(ctx);
    if (fault::corrupt_received_data() && ctx.buffers->shape().recv > 0 && ctx.bytes > 0)
      ctx.recv(i)[b.datatype == Datatype::FloatSum ? std::min<std::size_t>(ctx.bytes, 4) - 1 : 0] ^=
          std::byte{0x40};  // a float's exponent
    defects += count_defects(b, ctx, i);
  }
  return defects;
}

// -time (IMB 3.2 dynamic policy): estimate the time of one repetition in a preparatory run and
// keep the repetition count within the limit. Every active rank agrees on the result.
struct TimeLimit {
  int repetitions = 0;          // the count that fits the limit
  int probed = 0;               // the largest number of repetitions one probe ran back to back
  bool restart_failed = false;  // the set-up between the probes failed (noted in the row)
};
// `restart` sets a point with state (file pointers, a window's contents) up afresh between the
// two probes, so that the second does not read past what the set-up wrote; false: it failed.
TimeLimit time_limited(const Benchmark& b, PointContext& ctx, MPI_Comm active, int limit,
                       double seconds, const std::function<bool()>& restart) {
  auto slowest = [&](int reps) {
    double t = b.kernel.loop(ctx, reps, 1) / reps;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, active);
    return t;
  };
  double t = slowest(1);
  int probed = 1;
  const int probe = std::min(limit, t < 1e-3 ? 1000 : std::max(1, static_cast<int>(1.0 / t + 0.5)));
  if (probe > 1) {
    probed = std::min(probe, std::max(1, static_cast<int>(0.1 * seconds / t)));
    if (restart && !restart()) return {.repetitions = 1, .probed = 0, .restart_failed = true};
    t = slowest(probed);
  }
  return {.repetitions = time_limited_repetitions(limit, seconds, t), .probed = probed};
}

struct LocalPoint {
  int repetitions = 0;
  double seconds = 0;  // per repetition, scaled by the benchmark's time factor
  double defects = 0;
  double cpu_seconds = 0;  // overlap: t_CPU (IMB-IO: one call alone; IMB-NBC, OSU: the loop's mean)
  double cpu_spread = 0;   // overlap: relative spread of CPU_Exploit calls at the point
  // OSU's overlap (the timed loop's means per repetition): the MPI_Test calls inside the CPU
  // work, the operation's start and its wait.
  double test_seconds = 0, start_seconds = 0, wait_seconds = 0;
  std::vector<double> samples;
  std::optional<AccurateResult> accurate;
  std::vector<double> thread_seconds;  // on a team (IMB-MT): each thread's `seconds`
};

// The active process counts of a benchmark that is valid on this world size. Pairs (Uniband,
// Biband) run on even counts only, as current IMB: the world and P_min rounded to even.
std::vector<int> process_series(const Benchmark& b, int npmin, int world_size) {
  if (b.fixed_processes > 0)
    return std::vector<int>(world_size >= b.fixed_processes ? 1 : 0, b.fixed_processes);
  if (b.pairs) {
    const int even = world_size - world_size % 2;
    if (even < 2) return {};
    return active_process_series(even, std::min(npmin + npmin % 2, even));
  }
  return active_process_series(world_size, std::min(npmin, world_size));
}

// Messages of X bytes one repetition moves, as the throughput counts them (nmsg).
double messages_per_repetition(const Benchmark& b, int nprocs, int window) {
  const int receivers = b.turnover_per_process ? nprocs : b.turnover_per_peer ? nprocs - 1 : 1;
  return b.turnover * receivers * (b.message_rate && !b.time_per_message ? window : 1);
}

// Points the plan will measure (for the progress display's estimate).
long count_points(const SuitePlan& plan, const EngineSettings& s, int world_size) {
  long points = 0;
  for (const Benchmark* b : plan.benchmarks) {
    const auto series = process_series(*b, s.npmin, world_size);
    const long lengths = b->sized ? static_cast<long>(plan.lengths(*b).size()) : 1;
    points += static_cast<long>(series.size() * b->modes.size()) * lengths;
  }
  return points;
}

class SuiteRunner {
 public:
  SuiteRunner(const SuitePlan& plan, const EngineSettings& s, Reporter& r)
      : plan_(plan),
        settings_(s),
        progress_(plan.suite, count_points(plan, s, mpi::world_size())),
        reporter_(r, progress_),
        watchdog_(s.timeout_s, mpi::world_rank()) {
    world_rank_ = mpi::world_rank();
    world_size_ = mpi::world_size();
    order_.resize(static_cast<std::size_t>(world_size_));
    std::iota(order_.begin(), order_.end(), 0);
    if (s.map_rows > 0) order_ = map_order(world_size_, s.map_rows, s.map_cols);
  }

  SuiteOutcome run() {
    auto overlapping_with = [&](OverlapMethod method) {
      return std::any_of(plan_.benchmarks.begin(), plan_.benchmarks.end(), [&](const Benchmark* b) {
        return b->blocking_twin != nullptr && b->overlap_method == method;
      });
    };
    if (overlapping_with(OverlapMethod::FixedWork))
      calibrate_cpu_exploit();
    else if (overlapping_with(OverlapMethod::WorkSizedToPure))
      calibrate_cpu_exploit_rate();
    for (const Benchmark* b : plan_.benchmarks) run_benchmark(*b);
    scratch_files::remove_all();
    watchdog_.end_phase();
    if (world_rank_ == 0 && (skipped_ > 0 || !ok_))
      reporter_.note("# Incomplete run: " + std::to_string(skipped_) + " of " +
                     std::to_string(points_) + " measurement points did not run" +
                     (ok_ ? " (see the rows above)" : "; some failed (see the rows above)"));
    int flags[3] = {ok_ ? 1 : 0, static_cast<int>(defective_.size()), skipped_};
    MPI_Bcast(flags, 3, MPI_INT, 0, MPI_COMM_WORLD);
    return {flags[0] == 1 && flags[2] == 0, flags[0] == 0, flags[1]};
  }

 private:
  void calibrate_cpu_exploit() {
    // --timeout covers every phase a rank can hang in, not only the measurement points.
    watchdog_.arm("the CPU_Exploit calibration");
    const auto c = cpu_exploit::calibrate(settings_.cpu_target_s);
    double rate = c.mflops, t_cpu = c.seconds_per_call;
    MPI_Allreduce(MPI_IN_PLACE, &rate, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &t_cpu, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    watchdog_.end_phase();
    if (world_rank_ == 0) {
      char text[256];
      std::snprintf(text, sizeof text,
                    "# CPU_Exploit: %.1f Mflop/s (slowest rank); t_CPU = %.0f usec per call "
                    "(target %g s) at calibration; each row's t_CPU is timed next to it",
                    rate, t_cpu * 1e6, settings_.cpu_target_s);
      reporter_.note(text);
    }
  }

  // IMB-NBC: only the kernel's rate; each point sizes its CPU work to its t_pure.
  void calibrate_cpu_exploit_rate() {
    watchdog_.arm("the CPU_Exploit calibration");
    double rate = cpu_exploit::calibrate_rate().mflops;
    MPI_Allreduce(MPI_IN_PLACE, &rate, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    watchdog_.end_phase();
    if (world_rank_ == 0) {
      char text[256];
      std::snprintf(text, sizeof text,
                    "# CPU_Exploit: %.1f Mflop/s (slowest rank); the CPU work of each point is "
                    "sized to each rank's t_pure, and t_CPU is its mean time in the timed loop",
                    rate);
      reporter_.note(text);
    }
  }

  void run_benchmark(const Benchmark& b) {
    const std::vector<int> series = process_series(b, settings_.npmin, world_size_);
    if (series.empty()) {
      if (world_rank_ == 0)
        reporter_.note("# !! Benchmark " + b.name + " invalid for " + std::to_string(world_size_) +
                       " processes !! ");
      return;
    }
    const auto lengths = b.sized ? plan_.lengths(b) : std::vector<std::size_t>{0};
    timed_out_ = false;
    for (int q : series)
      for (Aggregation mode : b.modes)
        if (!timed_out_) run_layout(b, make_layout(order_, q, settings_.multi), mode, lengths);
  }

  // Current IMB's time-out, decided by the active rank 0's clock so that every rank agrees: the
  // table has run past its budget before this length.
  bool table_out_of_time(const ProcessSet& ps, double table_start, std::size_t lengths) {
    if (!settings_.table_time_budget_s || settings_.accurate) return false;
    int out = MPI_Wtime() - table_start > settings_.table_time_budget_s(lengths) ? 1 : 0;
    MPI_Bcast(&out, 1, MPI_INT, 0, ps.active.get());
    return out != 0;
  }

  void run_layout(const Benchmark& b, const Layout& layout, Aggregation mode,
                  const std::vector<std::size_t>& lengths) {
    watchdog_.arm("setting up " + b.name + " on " + std::to_string(layout.active_size) +
                  " processes");
    fault::maybe_stop_in_setup(layout.active_size);
    ProcessSet ps = make_process_set(layout, settings_.communicator);
    watchdog_.end_phase();
    BenchmarkRun run = describe_run(b, layout);
    run.mode = aggregation_name(mode);
    run.accurate = settings_.accurate;
    accurate_.window_failed = false;  // each table tries the window scheme afresh
    if (world_rank_ == 0) reporter_.benchmark_started(run);
    if (ps.is_active()) {
      bool first = true;
      // IMB-MT's -malloc_algo continuous spaces the threads' buffers by it.
      const std::size_t longest =
          lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
      const double table_start = MPI_Wtime();
      for (std::size_t bytes : lengths) {
        ++points_;
        if (table_out_of_time(ps, table_start, lengths.size())) {
          timed_out_ = true;
          ++skipped_;
          if (world_rank_ == 0) {
            Measurement m;
            m.bytes = bytes;
            m.note = fmt::format(
                "time-out.; Time limit (secs_per_sample * msg_sizes_list_len) is over; use "
                "\"-time X\" to increase time limit ({:g} s for this table)",
                settings_.table_time_budget_s(lengths.size()));
            run.rows.push_back(m);
            reporter_.row(run, run.rows.back());
          }
          break;
        }
        if (settings_.pause_before_length_s > 0)
          std::this_thread::sleep_for(
              std::chrono::duration<double>(settings_.pause_before_length_s));
        const double started = MPI_Wtime();
        Measurement m = settings_.threads > 1 ? measure_point_in_threads(b, ps, bytes, longest)
                                              : measure_point(b, ps, mode, bytes, first);
        if (settings_.pause_after_length)
          std::this_thread::sleep_for(
              std::chrono::duration<double>(std::max(0.1, (MPI_Wtime() - started) / 10)));
        progress_.point_finished();
        if (world_rank_ == 0) {
          run.rows.push_back(m);
          reporter_.row(run, run.rows.back());
        }
      }
    }
    // Ranks outside this layout wait here, as in IMB ("additional processes waiting"): as long
    // as its points may take (each a phase and its end, watched by the ranks that run them).
    if (ps.is_active())
      watchdog_.end_phase();
    else
      watchdog_.wait_for_others(
          "waiting for " + b.name + " on " + std::to_string(layout.active_size) + " processes",
          2 * static_cast<long>(lengths.size()) + 2);
    if (layout.inactive > 0)
      wait_without_a_core(MPI_COMM_WORLD, !ps.is_active());
    else
      MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank_ == 0) {
      for (const auto& m : run.rows)
        if (m.defects.value_or(0) > 0) defective_.insert(b.name);
      if (!b.windowed) run.model = model_of(run);
      reporter_.benchmark_finished(run);
    }
  }

  BenchmarkRun describe_run(const Benchmark& b, const Layout& layout) const {
    BenchmarkRun run;
    run.multi = settings_.multi;
    run.name = (settings_.multi && layout.groups.size() > 1 ? "Multi-" : "") + b.name;
    run.family = family_name(b.family);
    run.sized = b.sized;
    run.message_rate = b.message_rate;
    run.has_throughput = b.turnover > 0 && !b.blocking_twin;
    run.overlap = b.blocking_twin != nullptr;
    run.pure_and_ovrl_only = run.overlap && b.pure_and_ovrl_only;
    run.multi_outflag = settings_.multi_outflag;
    run.nprocs = layout.active_size;
    run.groups = layout.groups;
    run.inactive = layout.inactive;
    run.check = settings_.check;
    run.parameters = b.parameters;
    if (settings_.map_rows > 0) {
      run.map_order = order_;
      run.map_rows = settings_.map_rows;
      run.map_cols = settings_.map_cols;
    }
    return run;
  }

  // Agree before timing: a rank that cannot allocate must not leave the others in a barrier.
  bool allocated_everywhere(bool allocated, MPI_Comm active, std::size_t need, const char* what,
                            Measurement& m) {
    int failed_rank = allocated ? INT_MAX : world_rank_, first_failed = 0;
    MPI_Allreduce(&failed_rank, &first_failed, 1, MPI_INT, MPI_MIN, active);
    if (first_failed == INT_MAX) return true;
    ok_ = false;
    ++skipped_;
    m.note = "could not allocate " + format_gb(need) + " GB for " + what + " on rank " +
             std::to_string(first_failed);
    return false;
  }

  // The fields of a point's context that every path sets alike: one process's, or each thread's.
  PointContext context_for(const Benchmark& b, const ProcessSet& ps, MPI_Comm comm,
                           const MessageBuffers& buffers, int repetitions,
                           std::size_t bytes) const {
    PointContext ctx;
    ctx.comm = comm;
    ctx.rank = ps.group.rank();
    ctx.nprocs = ps.layout.active_size;
    ctx.buffers = &buffers;
    ctx.repetitions = repetitions;
    ctx.bytes = bytes;
    ctx.root_shift = settings_.root_shift;
    ctx.fixed_root = settings_.fixed_root;
    ctx.barrier_between_repetitions = barrier_between_repetitions(b);
    if (uses_own_barrier(b)) ctx.barrier = own_barrier;
    ctx.in_flight = window_of(b);
    ctx.pair_stride = settings_.pair_stride;
    return ctx;
  }

  // IMB-MT (EngineSettings::threads > 1): each of this process's threads runs the point at once
  // on a communicator of its own (a duplicate of the group's, with IMB's "thread_id" hint) and
  // on buffers of its own, each warming up and timing it with the loop every suite uses; the
  // row's statistics are over every thread of every process. What MPI calls the ranks must agree
  // on (the set-up, the allocation) stays on the calling thread, thread by thread in the same
  // order on every rank. The suite's front end offers none of -time, --method accurate,
  // --samples, -off_cache or overlap with threads.
  Measurement measure_point_in_threads(const Benchmark& b, ProcessSet& ps, std::size_t bytes,
                                       std::size_t longest) {
    Measurement m;
    m.bytes = bytes;
    const int q = ps.layout.active_size, threads = settings_.threads;
    MPI_Comm active = ps.active.get();
    const int repetitions = policy_repetitions(
        settings_.repetitions, settings_.repetitions_rule(settings_.repetitions, bytes, true),
        bytes, q, b.rooted);
    const BufferShape shape = b.shape(std::max(bytes, kWarmupBytes), q, repetitions);
    std::vector<std::optional<MessageBuffers>> buffers(static_cast<std::size_t>(threads));
    // Thread t sends the pattern of rank + t·q: a message in another thread's communicator is
    // wrong data.
    const auto pattern_rank = [&](int t) { return ps.group.rank() + t * q; };
    const auto allocate = [&](int t) {
      auto& own = buffers[static_cast<std::size_t>(t)];
      own = MessageBuffers::try_create(shape, OffCache{}, pattern_rank(t), 1);
      if (own) fill_sum_pattern(b, *own, ps.group.rank(), q);
    };
    // Continuous: each thread's part as long as the table's longest length needs (IMB-MT's
    // maxlen), at least the 4 bytes of the warm-up.
    const BufferShape spacing = b.shape(std::max(longest, kWarmupBytes), q, repetitions);
    switch (settings_.thread_buffers) {
      case ThreadBuffers::Serial:
        for (int t = 0; t < threads; ++t) allocate(t);
        break;
      case ThreadBuffers::Parallel:
        ThreadTeam::run(threads, allocate);
        break;
      case ThreadBuffers::Continuous: {
        std::vector<int> ranks;
        for (int t = 0; t < threads; ++t) ranks.push_back(pattern_rank(t));
        if (auto cut = MessageBuffers::try_create_contiguous(shape, spacing, ranks))
          for (int t = 0; t < threads; ++t) {
            auto& own = buffers[static_cast<std::size_t>(t)];
            own = std::move((*cut)[static_cast<std::size_t>(t)]);
            fill_sum_pattern(b, *own, ps.group.rank(), q);
          }
        break;
      }
    }
    const bool allocated =
        std::all_of(buffers.begin(), buffers.end(), [](const auto& x) { return x.has_value(); });
    const BufferShape slot =
        settings_.thread_buffers == ThreadBuffers::Continuous
            ? BufferShape{std::max(shape.send, spacing.send), std::max(shape.recv, spacing.recv)}
            : shape;
    if (!allocated_everywhere(allocated, active, (slot.send + slot.recv) * threads,
                              "the threads' message buffers", m))
      return m;
    ThreadTeam team(threads);
    std::vector<mpi::Comm> comms;
    std::vector<PointContext> contexts(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) {
      MPI_Comm dup = MPI_COMM_NULL;
      MPI_Comm_dup(ps.group.get(), &dup);
      comms.push_back(mpi::Comm::own(dup));
      MPI_Info info = MPI_INFO_NULL;
      MPI_Info_create(&info);
      MPI_Info_set(info, "thread_id", std::to_string(t).c_str());
      MPI_Comm_set_info(dup, info);
      MPI_Info_free(&info);
      PointContext& ctx = contexts[static_cast<std::size_t>(t)];
      ctx = context_for(b, ps, dup, *buffers[static_cast<std::size_t>(t)], repetitions, bytes);
      ctx.team = &team;
      ctx.thread = t;
      ctx.pattern_base = t * q;
      ctx.timer_reads = b.timer_reads;
      ctx.reads_timer = !b.timed_rank || b.timed_rank(ctx);
    }
    std::vector<ReleaseOnExit> releases;
    releases.reserve(contexts.size());
    const auto set_up_every_thread = [&] {
      for (auto& ctx : contexts) {
        set_length(ctx, b, bytes, ps, settings_.element_layout);
        if (!setup_succeeded_everywhere(ctx, active, m)) return false;
      }
      return true;
    };
    for (auto& ctx : contexts) releases.push_back({b, ctx});
    watchdog_.arm(describe(b, bytes, q) + " on " + std::to_string(threads) + " threads each");
    progress_.point_started(describe(b, bytes, q));
    if (!set_up_every_thread()) return m;
    std::vector<LocalPoint> lanes(static_cast<std::size_t>(threads));
    ThreadTeam::run(threads, [&](int t) {
      PointContext& ctx = contexts[static_cast<std::size_t>(t)];
      const int lead = warm_up_at_length(b, ctx, repetitions, 0);
      lanes[static_cast<std::size_t>(t)] = time_point(b, ctx, repetitions, lead);
    });
    LocalPoint local;
    local.repetitions = repetitions;
    if (settings_.check) {
      if (!set_up_every_thread()) return m;
      ThreadTeam::run(threads, [&](int t) {
        lanes[static_cast<std::size_t>(t)].defects =
            verify(b, contexts[static_cast<std::size_t>(t)]);
      });
    }
    for (const auto& lane : lanes) {
      local.thread_seconds.push_back(lane.seconds);
      local.defects += lane.defects;
    }
    collect(b, ps, local, m);
    watchdog_.end_phase();
    return m;
  }

  Measurement measure_point(const Benchmark& b, ProcessSet& ps, Aggregation mode, std::size_t bytes,
                            bool& first) {
    Measurement m;
    m.bytes = bytes;
    const int q = ps.layout.active_size;
    MPI_Comm active = ps.active.get();
    const bool aggregate = mode != Aggregation::NonAggregate && !b.nonaggregate_repetitions;
    const int repetitions = policy_repetitions(
        settings_.repetitions, settings_.repetitions_rule(settings_.repetitions, bytes, aggregate),
        bytes, q, b.rooted);
    // IMB sizes buffers for max(X, 4) so that the 4-byte warm-up fits (guide 5.2.6, 7.1).
    // An indexed type (OSU's -D indx) may reach past X bytes.
    const std::size_t per_message = std::max(
        b.sized ? span_bytes(settings_.element_layout, bytes, element_bytes(b.datatype)) : bytes,
        kWarmupBytes);
    // Messages with X bytes of their own: a window's (window_slots), or each thread's.
    std::size_t slots = b.window_slots ? static_cast<std::size_t>(window_of(b)) : 1;
    for (const int t : b.threads_per_rank) slots = std::max(slots, static_cast<std::size_t>(t));
    BufferShape shape = b.shape(per_message * slots, q, repetitions);
    if (b.sized) {  // -contig_type resize: every element followed by a gap of its size
      shape.send *= buffer_scale(settings_.element_layout);
      shape.recv *= buffer_scale(settings_.element_layout);
    }
    const OffCache& oc = settings_.off_cache;
    // -off_cache: repetition i uses slot i mod slots, so slots beyond the repetition count would
    // never be touched; Intel's IMB bounds its rotation the same way (min(n_sample, …)).
    int max_slots = std::max(repetitions, 1);
    std::size_t need = footprint(shape, oc, max_slots);
    if (shape.send > INT_MAX || shape.recv > INT_MAX) {
      m.note = "needs " + std::to_string(std::max(shape.send, shape.recv)) +
               " bytes in one buffer; MPI counts are limited to " + std::to_string(INT_MAX);
      ++skipped_;
      return m;
    }
    int wanted_slots = 0;  // -off_cache under -mem: the rotation it had to cut (the header says)
    const double limit = settings_.mem_limit_bytes;
    if (limit > 0 && static_cast<double>(need) > limit) {
      // -off_cache: a rotation shorter than twice the cache still measures; only a point
      // whose single buffer pair does not fit is skipped.
      wanted_slots =
          std::min(max_slots, std::max(slot_count(shape.send, oc), slot_count(shape.recv, oc)));
      max_slots = oc.enabled() ? std::min(max_slots, slots_within(shape, oc, limit)) : 0;
      if (max_slots == 0) {
        const std::size_t least = footprint(shape, oc, 1);
        m.note = "out of memory limit: needs " + format_gb(least) + " GB per process" +
                 (least < need ? " (" + format_gb(need) + " GB to rotate over twice the cache)"
                               : std::string()) +
                 "; raise it with -mem " + format_gb(least);
        ++skipped_;
        return m;
      }
      need = footprint(shape, oc, max_slots);
    }
    auto buffers = MessageBuffers::try_create(shape, oc, ps.group.rank(), max_slots);
    if (buffers) fill_sum_pattern(b, *buffers, ps.group.rank(), q);
    if (!allocated_everywhere(buffers.has_value(), active, need, "the message buffers", m))
      return m;
    PointContext ctx = context_for(b, ps, ps.group.get(), *buffers, repetitions, bytes);
    ctx.aggregation =
        mode == Aggregation::None && b.complete_once_per_sample ? Aggregation::Aggregate : mode;
    ctx.threads_per_rank = b.threads_per_rank;
    ctx.neighbourhood = &settings_.neighbourhood;
    if (b.uses_files)
      ctx.scratch_prefix =
          settings_.scratch_prefix +
          (ps.layout.groups.size() > 1 ? "_g" + std::to_string(ps.group_index) : "");
    ReleaseOnExit release{b, ctx};
    watchdog_.arm(describe(b, bytes, q));
    progress_.point_started(describe(b, bytes, q));
    // Non-blocking I/O (guide 5.2.8.3): t_pure from the blocking equivalent; its files are
    // closed, then reopened for the overlapped run.
    LocalPoint pure;
    if (b.blocking_twin && !prepare_and_time(*b.blocking_twin, ctx, ps, first, pure, m)) return m;
    // IMB-IO: t_CPU is timed next to the point, not taken from the start of the run as IMB does:
    // the CPU's speed drifts under load, and with t_pure ≪ t_CPU the overlap formula multiplies
    // the drift. IMB-NBC: the work is sized to this rank's t_pure; OSU: it computes for t_pure;
    // for both t_CPU comes from the timed loop.
    const bool sized_to_pure = b.overlap_method != OverlapMethod::FixedWork;
    if (b.blocking_twin) {
      switch (b.overlap_method) {
        case OverlapMethod::FixedWork:
          cpu_exploit::reset_call_times();
          pure.cpu_seconds = cpu_exploit::timed_call();
          break;
        case OverlapMethod::WorkSizedToPure:
          cpu_exploit::size_work(pure.seconds);
          break;
        case OverlapMethod::WorkTimedToPure:
          cpu_exploit::work_for(pure.seconds, settings_.overlap_probes);
          break;
      }
    }
    LocalPoint local;
    if (!prepare_and_time(b, ctx, ps, first, local, m)) return m;
    // The overlapped calls as well: how much the CPU's speed varied around this point.
    if (b.blocking_twin && sized_to_pure) {
      pure.cpu_seconds = local.cpu_seconds;
      pure.cpu_spread = local.cpu_spread;
    } else if (b.blocking_twin) {
      pure.cpu_spread = cpu_exploit::call_times().relative_spread();
    }
    first = false;
    if (settings_.check) {
      set_length(ctx, b, bytes, ps,
                 settings_.element_layout);  // a fresh start: file pointers back at the beginning
      if (!setup_succeeded_everywhere(ctx, active, m)) return m;
      local.defects = verify(b, ctx);
    }
    collect(b, ps, local, m);
    if (b.blocking_twin) collect_overlap(b, ps, pure, local, m);
    if (oc.enabled() && world_rank_ == 0) {
      m.values.push_back({"off_cache_buffers", static_cast<double>(buffers->slots()),
                          "disjoint buffers each repetition rotates through"});
      if (wanted_slots > 0)
        m.values.push_back({"off_cache_buffers_wanted", static_cast<double>(wanted_slots),
                            "buffers covering twice the cache, had -mem allowed them"});
    }
    // Only now: in Multi mode collect() waits for the other groups, and if one of them hangs,
    // world rank 0 (the one that speaks) must still time out naming the point. The release
    // (closing and removing IMB-IO's files, collective) is watched as the point's end.
    watchdog_.end_phase();
    return m;
  }

  // Set-up (agreed by every rank), the warm-up (-warm_up) and the timed loop.
  bool prepare_and_time(const Benchmark& b, PointContext& ctx, const ProcessSet& ps, bool first,
                        LocalPoint& out, Measurement& m) {
    MPI_Comm active = ps.active.get();
    const std::size_t bytes = ctx.bytes;
    const auto& rs = settings_.repetitions;
    ctx.barrier_between_repetitions = barrier_between_repetitions(b);  // a twin may differ
    ctx.timer_reads = b.timer_reads;
    ctx.reads_timer = !b.timed_rank || b.timed_rank(ctx);
    // Accurate mode keeps the warm-up it had under the default rule, then its pilot (which
    // warms each length); a per-length warm-up would shift the calls its tests count.
    const bool imb31 =
        rs.warm_up == WarmUp::Imb31 || (settings_.accurate && rs.warm_up == WarmUp::EveryLength);
    if (first && b.warm_up && imb31) {
      // IMB 3.1, guide 5.2.6: N_WARMUP runs with a sizeof(assign_type) message.
      set_length(ctx, b, kWarmupBytes, ps, settings_.element_layout);
      if (!setup_succeeded_everywhere(ctx, active, m)) return false;
      for (int i = 0; i < rs.n_warmup; ++i) b.kernel.iterate(ctx, i);
    }
    set_length(ctx, b, bytes, ps, settings_.element_layout);
    if (!setup_succeeded_everywhere(ctx, active, m)) return false;
    if (settings_.accurate) {  // its untimed pilot repetitions warm each length up
      CpuWorkInLoop record{b, out};
      out = time_point_accurately(b, ctx);
      return true;
    }
    int repetitions = ctx.repetitions;
    int rehearsed = 0;  // repetitions a -time probe already ran back to back
    if (rs.time_limit_s > 0 && policy_limits_time(rs, b.rooted)) {
      const bool set_up_per_point = b.setup || b.make_request;
      std::function<bool()> restart;
      if (set_up_per_point)
        restart = [&] {
          set_length(ctx, b, bytes, ps, settings_.element_layout);
          return setup_succeeded_everywhere(ctx, active, m);
        };
      const TimeLimit limit = time_limited(b, ctx, active, repetitions, rs.time_limit_s, restart);
      if (limit.restart_failed) return false;
      repetitions = limit.repetitions;
      // A point set up afresh below (a new window, a reopened file, a new request) has not run
      // yet.
      rehearsed = set_up_per_point ? 0 : limit.probed;
      // The preparatory run moved file pointers and filled windows: start the timed run afresh.
      set_length(ctx, b, bytes, ps, settings_.element_layout);
      if (!setup_succeeded_everywhere(ctx, active, m)) return false;
    }
    const int lead = warm_up_at_length(b, ctx, repetitions, rehearsed);
    CpuWorkInLoop record{b, out};
    out = time_point(b, ctx, repetitions, lead);
    return true;
  }

  // mpiscope's dissemination barrier instead of MPI_Barrier: IMB-MPI1's -imb_barrier (the
  // collectives) or IMB-MT's -barrier special (every benchmark).
  bool uses_own_barrier(const Benchmark& b) const {
    return settings_.own_barrier_everywhere ||
           (settings_.own_barrier_collectives && b.family == Family::Collective);
  }

  // OSU's programs ask for the barrier themselves; -sync on gives it to IMB's sized
  // collectives, not to Barrier: current IMB times its repetitions (and Ibarrier's) back to back.
  bool barrier_between_repetitions(const Benchmark& b) const {
    return b.barrier_between_repetitions ||
           (settings_.sync_collectives && b.family == Family::Collective && b.sized);
  }

  // IMB-NBC's and OSU's t_CPU: the mean time of the CPU_Exploit calls inside the timed loop (not
  // those of the warm-up or the -time probes; OSU's skip iterations, which run inside its timed
  // loop, count with the timed ones: their calls do the same work), and their spread; OSU's
  // phases of the same calls.
  struct CpuWorkInLoop {
    const Benchmark& b;
    LocalPoint& out;
    bool active() const { return b.blocking_twin && b.overlap_method != OverlapMethod::FixedWork; }
    explicit CpuWorkInLoop(const Benchmark& bench, LocalPoint& point) : b(bench), out(point) {
      if (active()) cpu_exploit::reset_call_times();
    }
    ~CpuWorkInLoop() {
      if (!active()) return;
      const auto& calls = cpu_exploit::call_times();
      out.cpu_seconds = calls.mean_s();
      out.cpu_spread = calls.relative_spread();
      out.test_seconds = calls.per_call(calls.test_s);
      out.start_seconds = calls.per_call(calls.start_s);
      out.wait_seconds = calls.per_call(calls.wait_s);
    }
    CpuWorkInLoop(const CpuWorkInLoop&) = delete;
    CpuWorkInLoop& operator=(const CpuWorkInLoop&) = delete;
  };

  // Current IMB's warm-up: the point itself, untimed and in its own mode, right before it is
  // timed, so that its first timed repetitions find connections, pages and caches as the later
  // ones do (without it, the first three of ten timed 4 MiB ping-pongs took twice as long).
  // Current IMB first runs the whole point once (IMB_init_buffers_iter: its iteration policy's
  // probe, or a plain run of the point when the policy has none), then n/10 more: with n/10
  // alone, MPICH's 64-byte Sendrecv came out 1.1-1.3 times Intel's (bench/README.md). A -time
  // probe that already ran the point's count back to back stands for that run.
  // Returns the repetitions left for the timed loop to run first (warm_up_in_timed_loop).
  int warm_up_at_length(const Benchmark& b, PointContext& ctx, int repetitions, int rehearsed) {
    if (!b.warm_up || settings_.repetitions.warm_up != WarmUp::EveryLength) return 0;
    if (settings_.rehearse_each_length && rehearsed < repetitions)
      b.kernel.loop(ctx, repetitions, settings_.repetitions.n_barr);
    const int n = settings_.warm_up_rule ? settings_.warm_up_rule(ctx.bytes, repetitions)
                                         : warm_up_repetitions(repetitions);
    if (n <= 0) return 0;
    if (settings_.warm_up_in_timed_loop && !settings_.keep_samples) return n;
    b.kernel.loop(ctx, n, 0);
    return 0;
  }

  // t_pure, t_CPU and overlap = (t_pure + t_CPU - t_ovrl) / base with t_ovrl the reported t_max,
  // clamped to 0–100 % as Intel's IMB prints it; the raw figure, its plausible error (the largest
  // spread of CPU_Exploit calls on any rank, the timer) and the verdict are kept. IMB-IO (guide
  // 4.2.5.2): the slowest rank's t_pure and t_CPU, base min(t_pure, t_CPU). IMB-NBC (current IMB):
  // t_pure and t_CPU of the rank with the largest t_ovrl, base max(t_pure, t_CPU).
  void collect_overlap(const Benchmark& b, const ProcessSet& ps, const LocalPoint& pure,
                       const LocalPoint& overlapped, Measurement& m) {
    if (b.overlap_method == OverlapMethod::WorkTimedToPure)
      return collect_mean_overlap(ps, pure, overlapped, m);
    const bool of_slowest_rank = b.overlap_method == OverlapMethod::WorkSizedToPure;
    constexpr int kValues = 4;  // t_pure, t_CPU, spread, t_ovrl
    const double local[kValues] = {pure.seconds * 1e6, pure.cpu_seconds * 1e6, pure.cpu_spread,
                                   overlapped.seconds * 1e6};
    double slowest[kValues] = {0, 0, 0, 0};
    MPI_Reduce(local, slowest, kValues, MPI_DOUBLE, MPI_MAX, 0, ps.active.get());
    std::vector<double> all(world_rank_ == 0 && of_slowest_rank
                                ? kValues * static_cast<std::size_t>(ps.layout.active_ranks())
                                : 0);
    if (of_slowest_rank)
      MPI_Gather(local, kValues, MPI_DOUBLE, all.data(), kValues, MPI_DOUBLE, 0, ps.active.get());
    if (world_rank_ != 0) return;
    OverlapTimes o;
    o.t_pure_us = slowest[0];
    o.t_cpu_us = slowest[1];
    o.cpu_spread = slowest[2];
    if (of_slowest_rank) {
      std::size_t at = 0;  // the first rank with the largest t_ovrl
      for (std::size_t r = 0; r < all.size(); r += kValues)
        if (all[r + 3] > all[at + 3]) at = r;
      o.t_pure_us = all[at];
      o.t_cpu_us = all[at + 1];
      o.base = OverlapBase::Larger;
    }
    set_overlap_figure(o, m.headline_us(), m);
  }

  // OSU 7.4 (osu_util_mpi.c calculate_and_print_stats): every figure is the mean over the active
  // ranks of each rank's mean, t_ovrl that of the whole repetition (the row's t_avg), t_CPU the
  // CPU work less its MPI_Test calls, the base t_pure; the extremes of t_pure, the start, the
  // MPI_Test calls and the wait become named values.
  void collect_mean_overlap(const ProcessSet& ps, const LocalPoint& pure,
                            const LocalPoint& overlapped, Measurement& m) {
    MPI_Comm active = ps.active.get();
    constexpr int kSums = 5;  // t_pure, t_CPU, MPI_Test, start, wait
    const double local[kSums] = {pure.seconds * 1e6,
                                 (overlapped.cpu_seconds - overlapped.test_seconds) * 1e6,
                                 overlapped.test_seconds * 1e6, overlapped.start_seconds * 1e6,
                                 overlapped.wait_seconds * 1e6};
    double sums[kSums] = {0, 0, 0, 0, 0};
    MPI_Reduce(local, sums, kSums, MPI_DOUBLE, MPI_SUM, 0, active);
    const double maxima_in[3] = {-local[0], local[0], overlapped.cpu_spread};
    double maxima[3] = {0, 0, 0};  // −min t_pure, max t_pure, spread
    MPI_Reduce(maxima_in, maxima, 3, MPI_DOUBLE, MPI_MAX, 0, active);
    if (world_rank_ != 0) return;
    const double ranks = ps.layout.active_ranks();
    OverlapTimes o;
    o.t_pure_us = sums[0] / ranks;
    o.t_cpu_us = sums[1] / ranks;
    o.cpu_spread = maxima[2];
    o.base = OverlapBase::Pure;
    o.t_ovrl_us = m.accurate ? m.headline_us() : m.t_avg_us;
    set_overlap_figure(o, *o.t_ovrl_us, m);
    const char* us = "microseconds";
    m.values.push_back({"coll_init_us", sums[3] / ranks,
                        std::string(us) + ": starting the operation (mean over the ranks)"});
    m.values.push_back(
        {"mpi_test_us", sums[2] / ranks,
         std::string(us) + ": MPI_Test calls in the CPU work (mean over the ranks)"});
    m.values.push_back(
        {"mpi_wait_us", sums[4] / ranks, std::string(us) + ": MPI_Wait (mean over the ranks)"});
    m.values.push_back({"t_pure_min_us", -maxima[0], std::string(us) + ": the smallest t_pure"});
    m.values.push_back({"t_pure_max_us", maxima[1], std::string(us) + ": the largest t_pure"});
  }

  static void set_overlap_figure(OverlapTimes& o, double t_ovrl, Measurement& m) {
    o.error_us = overlap_error_us(o.t_pure_us, o.t_cpu_us, t_ovrl, o.cpu_spread, MPI_Wtick() * 1e6);
    const OverlapFigure f = overlap_figure(o.t_pure_us, o.t_cpu_us, t_ovrl, o.error_us, o.base);
    o.overlap_percent = f.percent;
    o.raw_percent = f.raw_percent;
    o.error_percent = f.error_percent;
    o.doubtful = f.doubtful;
    m.overlap = o;
  }

  // A setup that failed on any rank (e.g. the library cannot create a window here) skips the
  // point on every rank, with the first failing rank's reason.
  bool setup_succeeded_everywhere(const PointContext& ctx, MPI_Comm active, Measurement& m) {
    int failed = ctx.setup_error.empty() ? INT_MAX : world_rank_, first_failed = INT_MAX;
    MPI_Allreduce(&failed, &first_failed, 1, MPI_INT, MPI_MIN, active);
    if (first_failed == INT_MAX) return true;
    std::string reason = ctx.setup_error;
    if (world_rank_ == 0 && first_failed != 0)
      reason = "set-up failed on rank " + std::to_string(first_failed);
    m.note = "not run: " + reason;
    ok_ = false;
    ++skipped_;
    return false;
  }

  LocalPoint time_point(const Benchmark& b, PointContext& ctx, int repetitions, int lead) {
    const auto& rs = settings_.repetitions;
    LocalPoint p;
    p.repetitions = repetitions;
    fault::maybe_hang(b.name, ctx.bytes);
    double elapsed = 0;
    if (settings_.keep_samples) {
      p.samples.resize(static_cast<std::size_t>(p.repetitions));
      elapsed = b.kernel.sampled(ctx, p.repetitions, rs.n_barr, p.samples.data());
      for (auto& s : p.samples) s *= b.time_factor;
    } else {
      ctx.untimed_lead = lead;
      elapsed = b.kernel.loop(ctx, p.repetitions, rs.n_barr);
      ctx.untimed_lead = 0;
    }
    p.seconds = elapsed / p.repetitions * b.time_factor;
    if (b.timed_rank && !b.timed_rank(ctx)) p.seconds = kUntimed;
    return p;
  }

  LocalPoint time_point_accurately(const Benchmark& b, PointContext& ctx) {
    fault::maybe_hang(b.name, ctx.bytes);
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(ctx.comm, &dup);
    const mpi::Comm sync = mpi::Comm::own(dup);  // synchronisation never meets kernel messages
    LocalPoint p;
    p.accurate = measure_accurately(b, ctx, sync.get(), settings_.accurate_settings, accurate_);
    p.repetitions = static_cast<int>(p.accurate->samples.size());
    p.seconds = p.accurate->seconds;
    return p;
  }

  // Accurate mode: the row's statistics are over repetitions (rank 0 of the group has them).
  void collect_accurate(const Benchmark& b, ProcessSet& ps, const LocalPoint& local,
                        Measurement& m) {
    double defects = 0;
    MPI_Reduce(&local.defects, &defects, 1, MPI_DOUBLE, MPI_SUM, 0, ps.active.get());
    if (world_rank_ != 0) return;
    if (settings_.check) m.defects = defects;
    if (!fill_accurate_row(*local.accurate, settings_.keep_samples, m)) {
      ok_ = false;
      ++skipped_;
      return;
    }
    const double moved = moved_bytes(b, m);
    if (b.turnover > 0) {
      const double messages = messages_per_repetition(b, ps.layout.active_size, window_of(b));
      const double median = m.accurate->summary_us.median;
      m.mbytes_per_sec = megabytes_per_second(messages * moved, median);
      if (b.message_rate) add_message_rate(messages, median, m);
    }
  }

  // The bytes a message of the row moves, as the throughput counts them: X, or under OSU's -D
  // what its type moves (OSU's transmit size), which the row keeps as its transmit_size.
  double moved_bytes(const Benchmark& b, Measurement& m) const {
    const ElementLayout& l = settings_.element_layout;
    if (!b.sized || !l.counts_transmitted()) return static_cast<double>(m.bytes);
    const auto moved =
        static_cast<double>(transmitted_bytes(l, m.bytes, element_bytes(b.datatype)));
    if (!m.value("transmit_size")) m.values.push_back({"transmit_size", moved, "bytes"});
    return moved;
  }

  // A windowed benchmark's messages in flight: its own window, else the run's.
  int window_of(const Benchmark& b) const {
    return b.window > 0 ? b.window : settings_.window_size;
  }

  static void add_message_rate(double messages, double t_us, Measurement& m) {
    m.values.push_back({"message_rate", t_us > 0 ? messages / t_us * 1e6 : 0.0, "messages/s"});
  }

  double megabytes_per_second(double bytes, double t_us) const {
    return t_us > 0 ? bytes / t_us * 1e6 / settings_.bytes_per_megabyte : 0.0;
  }

  // Brings every active rank's time to world rank 0 and fills the row's statistics.
  void collect(const Benchmark& b, ProcessSet& ps, const LocalPoint& local, Measurement& m) {
    if (local.accurate) return collect_accurate(b, ps, local, m);
    MPI_Comm active = ps.active.get();
    const auto nactive = static_cast<std::size_t>(ps.layout.active_ranks());
    // A time per rank, or on a team (IMB-MT) one per thread, each rank's threads in turn.
    std::vector<double> own_us;
    for (const double t :
         local.thread_seconds.empty() ? std::vector<double>{local.seconds} : local.thread_seconds)
      own_us.push_back(t < 0 ? kUntimed : t * 1e6);  // rank_times_us: -1
    const std::size_t per_rank = own_us.size();
    std::vector<double> times(world_rank_ == 0 ? nactive * per_rank : 0);
    MPI_Gather(own_us.data(), static_cast<int>(per_rank), MPI_DOUBLE, times.data(),
               static_cast<int>(per_rank), MPI_DOUBLE, 0, active);
    double defects = 0;
    MPI_Reduce(&local.defects, &defects, 1, MPI_DOUBLE, MPI_SUM, 0, active);
    std::vector<double> samples = local.samples;
    if (settings_.samples_mean_over_ranks && !samples.empty()) {
      const int n = static_cast<int>(samples.size());  // the same count on every active rank
      MPI_Reduce(local.samples.data(), samples.data(), n, MPI_DOUBLE, MPI_SUM, 0, active);
      for (auto& s : samples) s /= static_cast<double>(nactive);
    }
    if (world_rank_ != 0) return;
    m.measured = true;
    m.repetitions = local.repetitions;
    m.rank_times_us = times;
    const auto q = static_cast<std::size_t>(ps.layout.active_size) * per_rank;
    // Throughput as IMB defines it: nmsg·X bytes per t_max (in the suite's megabytes per second);
    // on a team each thread moved its own.
    // Pairs of which some sit out (IMB-MT's -stride): only the ranks that ran count, as IMB's
    // successful results do.
    const int counted = b.pairs && b.timed_rank
                            ? static_cast<int>(std::count_if(times.begin(), times.end(),
                                                             [](double t) { return t >= 0; }) /
                                               per_rank)
                            : ps.layout.active_size;
    const double messages =
        messages_per_repetition(b, counted, window_of(b)) * static_cast<double>(per_rank);
    const double moved = moved_bytes(b, m);
    auto throughput = [&](double t_max_us) -> std::optional<double> {
      if (b.turnover <= 0) return std::nullopt;
      return megabytes_per_second(messages * moved, t_max_us);
    };
    // Over the ranks that time (a passive target's kUntimed is left out, as Intel's IMB does).
    auto times_of = [&](std::vector<double>::const_iterator first,
                        std::vector<double>::const_iterator last) {
      std::vector<double> timed;
      std::copy_if(first, last, std::back_inserter(timed), [](double t) { return t >= 0; });
      if (timed.empty()) timed.push_back(0);
      const double t_max = *std::max_element(timed.begin(), timed.end());
      return GroupTimes{
          *std::min_element(timed.begin(), timed.end()), t_max,
          std::accumulate(timed.begin(), timed.end(), 0.0) / static_cast<double>(timed.size()),
          throughput(t_max)};
    };
    for (std::size_t g = 0; g < ps.layout.groups.size(); ++g) {
      const auto first = times.cbegin() + static_cast<std::ptrdiff_t>(g * q);
      m.groups.push_back(times_of(first, first + static_cast<std::ptrdiff_t>(q)));
    }
    const GroupTimes all = times_of(times.cbegin(), times.cend());
    m.t_min_us = all.t_min_us;
    m.t_max_us = all.t_max_us;
    m.t_avg_us = all.t_avg_us;
    m.mbytes_per_sec = b.throughput_from_mean ? throughput(all.t_avg_us) : all.mbytes_per_sec;
    if (b.message_rate)
      add_message_rate(messages, b.message_rate_from_mean ? m.t_avg_us : m.t_max_us, m);
    if (settings_.check) m.defects = defects;
    if (!samples.empty()) {
      m.raw_samples_us.reserve(samples.size());
      for (double s : samples) m.raw_samples_us.push_back(s * 1e6);
      m.samples_us = summarize(m.raw_samples_us);
    }
  }

  static std::string format_gb(std::size_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(bytes) / 1073741824.0 + 0.0005);
    return buf;
  }

  const SuitePlan& plan_;
  const EngineSettings& settings_;
  ProgressDisplay progress_;
  ClearingReporter reporter_;
  Watchdog watchdog_;
  int world_rank_ = 0, world_size_ = 1;
  std::vector<int> order_;
  bool ok_ = true;   // false: a point failed (allocation, set-up, accurate mode's statistics)
  int skipped_ = 0;  // points that did not run (limits or failures); counted on every active rank
  bool timed_out_ = false;           // the benchmark being run met its time-out (current IMB)
  int points_ = 0;                   // points attempted
  std::set<std::string> defective_;  // benchmarks in which -check found wrong data
  AccurateState accurate_;           // clock model and window-scheme health across points
};

}  // namespace

SuiteOutcome run_suite(const SuitePlan& plan, const EngineSettings& settings, Reporter& reporter) {
  return SuiteRunner(plan, settings, reporter).run();
}

}  // namespace mpiscope::core
