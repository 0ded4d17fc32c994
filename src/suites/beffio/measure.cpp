// The methodology of b_eff_io in one place. Per access method and pattern type: a barrier, then
// the clock runs from MPI_File_open to MPI_File_close (the paper's b_eff_io of a pattern type);
// inside, every pattern is placed and repeated:
//  - types 0–2, U > 0: time-driven, T_pattern = T/3 · U/ΣU. Calls run in batches of a geometric
//    series (section 5.4's proposal); after each batch one MPI_Allreduce(MAX) of the elapsed time
//    lets every process take the same decision, so the checks cost O(log calls) collectives, not
//    one per call. Rewrite and read are time-driven too: a pattern that reaches the end of the
//    data the initial write put in its region starts at the region's start again, a further
//    pass over the same data, so the files never grow and a read never passes the written data.
//  - U = 0 patterns: one call.
//  - types 3 and 4: size-driven; the repetitions and the segment come from the initial write of
//    types 0–2 (definition.cpp), the last pattern fills the segment.
//  - writes end every pattern with MPI_File_sync.
// Nothing is reported inside the clock: per-pattern times are gathered after the close.
//
// Accurate mode (--method accurate) keeps the files, the layout and the calls, but times each
// pattern's calls one by one through the core (core/accurate.hpp): a repetition is one call of
// every process (collective or not), started together; the core repeats it until the median's
// 95 % interval is within the target or the pattern's budget (the smaller of --budget and its
// T_pattern, one time unit for U = 0) is spent. A pattern's region holds a fixed number of call
// positions ("slots": its share of the disk limit in the initial write of types 0–2, the planned
// repetitions in the segment of types 3 and 4, the write's slots in rewrite and read); a
// repetition past them places the pattern at its region's start again (wrap-around), inside that
// repetition. The closing MPI_File_sync of a write is timed on its own, after the repetitions.
// Bandwidth = bytes of one repetition / median; a type's bandwidth is the classic schedule at the
// medians (schedule_at_medians in definition.hpp).
#include "suites/beffio/measure.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>

#include <fmt/format.h>

#include "core/buffers.hpp"
#include "core/mpi.hpp"
#include "core/progress.hpp"
#include "core/scratch_files.hpp"
#include "suites/beffio/access.hpp"

namespace mpiscope::beffio {

namespace {

// A count of calls no pattern reaches in a week: "no cap".
constexpr long kUnlimitedCalls = 1L << 40;

// One pattern during one access method, as this process saw it.
struct PatternRun {
  Pattern pattern;
  long calls = 0;         // agreed by all processes
  double seconds = 0;     // local: placing, calls, termination checks, final sync
  double scheduled = -1;  // T_pattern when time-driven
  bool capped = false;    // stopped before T_pattern: disk limit (write), no written data
  // Time-driven rewrite and read: the calls of the initial write (one pass over its data) and
  // the passes made, the last one possibly partial.
  long written_calls = -1;
  long passes = 0;
  // Accurate mode:
  core::AccurateResult accurate;  // complete on rank 0 of the partition
  long slots = 0;                 // call positions of the region the calls cycled through
  double budget = 0;              // seconds of repetitions at most
  double sync_seconds = 0;        // local: the closing MPI_File_sync of a write
};

std::string format_bytes(double bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.0f bytes (%.1f MiB)", bytes, bytes / kMiBd);
  return text;
}

class PartitionRun {
 public:
  PartitionRun(const PartitionPlan& plan, core::Reporter& out, core::Watchdog& watchdog)
      : plan_(plan), out_(out), watchdog_(watchdog) {
    MPI_Comm_rank(plan.comm, &rank_);
    MPI_Comm_size(plan.comm, &nprocs_);
    for (int t = 0; t < kPatternTypes; ++t) {
      patterns_[t] = patterns_of_type(t, plan.m_part);
      calls_[t].assign(patterns_[t].size(), 0);
      written_slots_[t].assign(patterns_[t].size(), 0);
      pattern_count_ += patterns_[t].size();
    }
    auto bytes = core::AlignedBytes::try_allocate(plan.m_part);
    if (!bytes)
      throw std::runtime_error("cannot allocate the " + std::to_string(plan.m_part) +
                               "-byte buffer of M_PART");
    buffer_ = std::move(*bytes);
    core::fill_pattern(buffer_.data(), buffer_.size(), rank_);
  }

  double run() {
    const double start = MPI_Wtime();
    const long steps = static_cast<long>(std::size(kMethods)) * kPatternTypes;
    long done = 0;
    for (Method m : kMethods) {
      for (int t = 0; t < kPatternTypes; ++t) {
        if (m == Method::Write && t == 3) plan_segments();
        if (rank_ == 0 && mpi::world_rank() == 0)  // on a terminal only (core/progress.hpp)
          core::progress_message(fmt::format(
              "b_eff_io: {} processes, {} pattern type {} ({}/{}), {}", nprocs_, method_title(m), t,
              done + 1, steps, core::elapsed_and_left(MPI_Wtime() - start, done, steps)));
        run_type(m, t);
        ++done;
      }
      finish_method(m);
    }
    remove_files();
    note_passes();
    const double b = partition_bandwidth(method_bw_[0], method_bw_[1], method_bw_[2]);
    if (rank_ == 0) {
      out_.summary({figure_name(nprocs_, "segment"), static_cast<double>(segment_), "bytes"});
      out_.summary({figure_name(nprocs_, "b_eff_io"), b, "MiB/s"});
    }
    return b;
  }

 private:
  static int index(Method m) { return static_cast<int>(m); }

  void run_type(Method m, int type) {
    TypeFile f;
    f.type = type;
    f.method = m;
    f.comm = plan_.comm;
    f.rank = rank_;
    f.nprocs = nprocs_;
    f.segment = segment_;
    f.buffer = buffer_.data();
    const std::string path = type_file_path(plan_.file_prefix, type, rank_);
    const auto& patterns = patterns_[type];
    std::vector<PatternRun> runs;
    runs.reserve(patterns.size());
    watchdog_.arm(std::string(method_title(m)) + " of pattern type " + std::to_string(type) +
                  " on " + std::to_string(nprocs_) + " processes");

    for (auto& [budget, meter] : meters_) meter->new_table();
    MPI_Barrier(plan_.comm);
    const double opened = MPI_Wtime();
    open_type_file(f, path);
    std::uint64_t region = 0;
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      const Pattern& p = patterns[i];
      if (plan_.accurate) {
        PatternRun r = repeated(f, p, region, slots_for(m, type, i));
        if (m == Method::Write) {
          if (type < 3) calls_[type][i] = r.slots;  // the region is what the write covered
          written_slots_[type][i] = r.slots;
          written_ += static_cast<std::uint64_t>(r.slots) * p.call_bytes * nprocs_;
        }
        region += region_bytes(p, calls_[type][i], nprocs_);
        runs.push_back(std::move(r));
        continue;
      }
      PatternRun r = type >= 3 || p.time_units == 0 ? fixed(f, p, region, calls_for_size(type, i))
                                                    : timed(f, p, region, m, calls_[type][i], i);
      if (m == Method::Write) {
        calls_[type][i] = r.calls;
        written_ += static_cast<std::uint64_t>(r.calls) * p.call_bytes * nprocs_;
      }
      // Rewrite and read place each pattern where the initial write put it.
      region += region_bytes(p, calls_[type][i], nprocs_);
      runs.push_back(std::move(r));
    }
    close_type_file(f);
    const double open_to_close = MPI_Wtime() - opened;
    watchdog_.end_phase();
    report_type(m, type, runs, open_to_close);
  }

  // Accurate mode: the call positions of a pattern's region. The initial write of types 0–2 gives
  // each pattern one call plus an equal share of what the disk limit leaves beyond one call of
  // every pattern; types 3 and 4 have the segment's planned repetitions; rewrite and read cycle
  // through what the write covered.
  long slots_for(Method m, int type, std::size_t i) const {
    if (m != Method::Write) return std::max(1L, written_slots_[type][i]);
    if (type >= 3) return std::max(1L, calls_[type][i]);
    const std::uint64_t per_call =
        std::max<std::uint64_t>(1, static_cast<std::uint64_t>(patterns_[type][i].call_bytes) *
                                       static_cast<std::uint64_t>(nprocs_));
    // One call of every pattern is made whatever the limit (checked up front to fit); what the
    // limit leaves beyond those is shared equally, so the whole write stays within it.
    const std::uint64_t least = mandatory_write_bytes(plan_.m_part, nprocs_, true);
    const std::uint64_t extra =
        plan_.disk_limit > least
            ? (plan_.disk_limit - least) / std::max<std::size_t>(1, pattern_count_)
            : 0;
    return static_cast<long>(std::min<std::uint64_t>(1 + extra / per_call, std::uint64_t{1} << 40));
  }

  // One meter per distinct budget (the core's settings are fixed per meter); created collectively
  // in the same order on every process.
  core::AccurateMeter& meter(double budget) {
    auto it = meters_.find(budget);
    if (it == meters_.end()) {
      core::AccurateSettings s = *plan_.accurate;
      s.stopping.budget_s = budget;
      it = meters_.emplace(budget, std::make_unique<core::AccurateMeter>(plan_.comm, s)).first;
    }
    return *it->second;
  }

  // Accurate mode: the pattern's calls as repetitions of the core, cycling through `slots` call
  // positions of its region.
  PatternRun repeated(TypeFile& f, const Pattern& p, std::uint64_t region, long slots) {
    PatternRun r;
    r.pattern = p;
    if (p.time_units > 0) r.scheduled = scheduled_seconds(plan_.seconds, p.time_units);
    r.budget = std::min(plan_.accurate->stopping.budget_s,
                        scheduled_seconds(plan_.seconds, std::max(1, p.time_units)));
    core::AccurateMeter& timer = meter(r.budget);
    place_pattern(f, p, region);
    long calls = 0;
    auto repetition = [&](int) {
      if (calls > 0 && calls % slots == 0) place_pattern(f, p, region);  // wrap around
      access_once(f, p);
      ++calls;
    };
    r.accurate = timer.measure(repetition);
    r.calls = calls;
    r.slots = std::min(calls, slots);
    r.capped = calls > slots;
    if (f.method != Method::Read) {
      const double start = MPI_Wtime();
      sync_writes(f);
      r.sync_seconds = MPI_Wtime() - start;
    }
    return r;
  }

  long calls_for_size(int type, std::size_t i) const {
    if (type < 3) return 1;  // a U = 0 pattern
    return calls_[type][i];
  }

  // U = 0 patterns and the size-driven types: a known number of calls.
  PatternRun fixed(TypeFile& f, const Pattern& p, std::uint64_t region, long calls) {
    PatternRun r;
    r.pattern = p;
    const double start = MPI_Wtime();
    place_pattern(f, p, region);
    for (long i = 0; i < calls; ++i) access_once(f, p);
    if (f.method != Method::Read) sync_writes(f);
    r.seconds = MPI_Wtime() - start;
    r.calls = calls;
    return r;
  }

  PatternRun timed(TypeFile& f, const Pattern& p, std::uint64_t region, Method m,
                   long written_calls, std::size_t index) {
    PatternRun r;
    r.pattern = p;
    r.scheduled = scheduled_seconds(plan_.seconds, p.time_units);
    // Rewrite and read run for T_pattern as the initial write did (section 5.1), in passes over
    // the data the write put here; nothing to access when the disk limit stopped the write
    // before its first call.
    const bool in_passes = m != Method::Write;
    long cap = written_calls > 0 ? kUnlimitedCalls : 0;
    if (m == Method::Write) {
      // What the patterns after this one write whatever the limit stays free for them, so
      // that the whole initial write stays within the limit (checked to be possible up front).
      const std::uint64_t reserved =
          written_ + mandatory_write_bytes(plan_.m_part, nprocs_, false, p.type, index + 1);
      const std::uint64_t per_call = static_cast<std::uint64_t>(p.call_bytes) * nprocs_;
      cap = static_cast<long>(std::min<std::uint64_t>(
          plan_.disk_limit > reserved ? (plan_.disk_limit - reserved) / per_call : 0,
          static_cast<std::uint64_t>(kUnlimitedCalls)));
    }
    double elapsed = 0;
    const double start = MPI_Wtime();
    place_pattern(f, p, region);
    for (long batch = next_batch(0, 0, r.scheduled, cap); batch > 0;
         batch = next_batch(r.calls, elapsed, r.scheduled, cap)) {
      for (long i = 0; i < batch; ++i, ++r.calls) {
        // The calls are agreed, so every process starts the next pass at the same call (placing
        // types 0 and 1 is collective).
        if (in_passes && r.calls > 0 && r.calls % written_calls == 0) place_pattern(f, p, region);
        access_once(f, p);
      }
      elapsed = MPI_Wtime() - start;
      MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, plan_.comm);
    }
    if (f.method != Method::Read) sync_writes(f);
    r.seconds = MPI_Wtime() - start;
    r.capped = r.calls >= cap && elapsed < r.scheduled;
    if (in_passes) {
      r.written_calls = written_calls;
      r.passes = written_calls > 0 ? (r.calls + written_calls - 1) / written_calls : 0;
    }
    return r;
  }

  // Types 3 and 4 (section 5.4): repetitions from the initial write of types 0–2, the segment
  // rounded up to 1 MB and filled by the last pattern; the same for rewrite and read.
  void plan_segments() {
    const auto& segmented = patterns_[3];
    std::vector<long> reps = segment_repetitions(
        segmented, {patterns_[0], patterns_[1], patterns_[2]}, {calls_[0], calls_[1], calls_[2]});
    const std::uint64_t left = plan_.disk_limit > written_ ? plan_.disk_limit - written_ : 0;
    const bool cut = fit_segment(segmented, reps, left / (2 * static_cast<std::uint64_t>(nprocs_)));
    segment_ = segment_bytes(segmented, reps);
    std::uint64_t used = 0;
    for (std::size_t i = 0; i < segmented.size(); ++i)
      if (!segmented[i].fills_segment)
        used += segmented[i].disk_chunk * static_cast<std::uint64_t>(reps[i]);
    for (int t : {3, 4}) {
      calls_[t] = reps;
      Pattern& fill = patterns_[t].back();
      fill.disk_chunk = fill.call_bytes = static_cast<std::size_t>(segment_ - used);
      calls_[t].back() = 1;
    }
    if (cut && rank_ == 0)
      out_.note("warning: the segment of pattern types 3 and 4 was reduced to " +
                format_bytes(static_cast<double>(segment_)) +
                " to stay within the disk-space limit");
  }

  // After the close: every process's pattern times to rank 0, which reports the rows and the
  // type's figures.
  void report_type(Method m, int type, const std::vector<PatternRun>& runs, double open_to_close) {
    if (plan_.accurate) return report_accurate_type(m, type, runs, open_to_close);
    std::vector<double> local = {open_to_close};
    for (const auto& r : runs) local.push_back(r.seconds);
    std::vector<double> all(rank_ == 0 ? local.size() * nprocs_ : 0);
    MPI_Gather(local.data(), static_cast<int>(local.size()), MPI_DOUBLE, all.data(),
               static_cast<int>(local.size()), MPI_DOUBLE, 0, plan_.comm);
    TypeTotals totals;
    double distinct = 0;
    for (const auto& r : runs) {
      const double per_call = static_cast<double>(r.pattern.call_bytes) * nprocs_;
      totals.bytes += static_cast<double>(r.calls) * per_call;
      distinct +=
          static_cast<double>(r.written_calls >= 0 ? std::min(r.calls, r.written_calls) : r.calls) *
          per_call;
      if (r.passes > 1) ++patterns_in_passes_[index(m)];
    }
    for (int q = 0; q < nprocs_ && rank_ == 0; ++q)
      totals.seconds = std::max(totals.seconds, all[q * local.size()]);
    totals_[index(m)][type] = totals;
    accessed_[index(m)][type] = totals.bytes;
    distinct_[index(m)][type] = distinct;
    open_to_close_[index(m)][type] = totals.seconds;
    if (rank_ != 0) return;
    for (std::size_t i = 0; i < runs.size(); ++i)
      report_pattern(m, runs[i], all, local.size(), i + 1);
    out_.summary({figure_name(nprocs_, m, type, "bytes"), totals.bytes, "bytes"});
    out_.summary({figure_name(nprocs_, m, type, "seconds"), totals.seconds, "s"});
    out_.summary({figure_name(nprocs_, m, type, "b_eff_io"), type_bandwidth(totals), "MiB/s"});
  }

  void report_accurate_type(Method m, int type, const std::vector<PatternRun>& runs,
                            double open_to_close) {
    // The syncs' and the open-to-close times of every process to rank 0, after the close.
    std::vector<double> local = {open_to_close};
    for (const auto& r : runs) local.push_back(r.sync_seconds);
    std::vector<double> slowest(local.size());
    MPI_Reduce(local.data(), slowest.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_MAX, 0,
               plan_.comm);
    double accessed = 0, distinct = 0;
    for (const auto& r : runs) {
      const double per_call = static_cast<double>(r.pattern.call_bytes) * nprocs_;
      accessed += static_cast<double>(r.calls) * per_call;
      distinct += static_cast<double>(r.slots) * per_call;
    }
    // The type's bandwidth: its classic schedule at the medians (definition.hpp).
    std::vector<Pattern> patterns;
    std::vector<double> medians;
    for (const auto& r : runs) {
      patterns.push_back(r.pattern);
      medians.push_back(r.accurate.seconds);
    }
    const TypeTotals totals = schedule_at_medians(patterns, medians, plan_.seconds, nprocs_);
    totals_[index(m)][type] = totals;
    accessed_[index(m)][type] = accessed;
    distinct_[index(m)][type] = distinct;
    open_to_close_[index(m)][type] = slowest[0];
    if (rank_ != 0) return;
    std::string left_out;
    int left_out_count = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      report_accurate_pattern(m, runs[i], m == Method::Read ? -1 : slowest[i + 1]);
      if (runs[i].accurate.seconds <= 0) {
        left_out += (left_out.empty() ? "" : ", ") + std::to_string(runs[i].pattern.number);
        ++left_out_count;
      }
    }
    if (left_out_count > 0)
      out_.note("warning: the " + std::string(method_title(m)) + " of pattern type " +
                std::to_string(type) + " on " + std::to_string(nprocs_) +
                " processes leaves out pattern(s) " + left_out +
                " (no valid repetition within the budget); " +
                (left_out_count == static_cast<int>(runs.size())
                     ? std::string("no pattern is left, so the type's bandwidth is 0")
                     : std::string("the type's bandwidth is over its other patterns")));
    out_.summary({figure_name(nprocs_, m, type, "patterns_left_out"),
                  static_cast<double>(left_out_count), "patterns"});
    out_.summary({figure_name(nprocs_, m, type, "bytes"), accessed, "bytes"});
    out_.summary({figure_name(nprocs_, m, type, "seconds"), slowest[0], "s"});
    out_.summary({figure_name(nprocs_, m, type, "scheduled_bytes"), totals.bytes, "bytes"});
    out_.summary({figure_name(nprocs_, m, type, "scheduled_seconds"), totals.seconds, "s"});
    out_.summary({figure_name(nprocs_, m, type, "b_eff_io"), type_bandwidth(totals), "MiB/s"});
  }

  core::BenchmarkRun pattern_table(Method m, const Pattern& p) const {
    core::BenchmarkRun b;
    b.name = "b_eff_io";
    b.family = p.type == 2 || p.type == 3 ? "parallel_transfer" : "collective";
    b.has_throughput = true;
    b.nprocs = nprocs_;
    b.groups = {std::vector<int>(static_cast<std::size_t>(nprocs_))};
    std::iota(b.groups[0].begin(), b.groups[0].end(), 0);
    b.parameters = {{"partition", std::to_string(nprocs_)},
                    {"access_method", method_name(m)},
                    {"pattern_type", std::to_string(p.type)},
                    {"pattern", std::to_string(p.number)}};
    return b;
  }

  // Rank 0: one pattern's row from the core's result; sync < 0: not a write.
  void report_accurate_pattern(Method m, const PatternRun& r, double sync) {
    const Pattern& p = r.pattern;
    core::BenchmarkRun b = pattern_table(m, p);
    b.accurate = true;
    b.parameters["measurement"] = "accurate";  // in the CSV too (the database adds the same)
    core::Measurement row;
    row.bytes = p.disk_chunk;
    core::fill_accurate_row(r.accurate, false, row);
    const double per_repetition = static_cast<double>(p.call_bytes) * nprocs_;
    const double median_s = row.measured ? row.headline_us() * 1e-6 : 0;
    const double bandwidth = median_s > 0 ? per_repetition / median_s / kMiBd : 0;
    row.mbytes_per_sec = bandwidth;
    row.values = {{"bandwidth", bandwidth, "MiB/s"},
                  {"bytes_per_repetition", per_repetition, "bytes"},
                  {"bytes_accessed", static_cast<double>(r.calls) * per_repetition, "bytes"},
                  {"memory_chunk", static_cast<double>(p.call_bytes), "bytes"},
                  {"time_units", static_cast<double>(p.time_units), "U"},
                  {"calls", static_cast<double>(r.calls), "calls per process"},
                  {"slots", static_cast<double>(r.slots), "call positions"},
                  {"budget", r.budget, "s"}};
    if (r.scheduled >= 0) row.values.push_back({"scheduled_time", r.scheduled, "s"});
    if (sync >= 0) row.values.push_back({"sync_time", sync, "s"});
    if (row.measured) {
      const auto& s = row.accurate->summary_us;
      row.values.push_back({"t_med", s.median, "us"});
      row.values.push_back({"ci95_low", s.median_ci.lower, "us"});
      row.values.push_back({"ci95_high", s.median_ci.upper, "us"});
    }
    if (r.capped) {
      const std::string wrapped =
          m != Method::Write
              ? "cycled through the initial write's " + std::to_string(r.slots) + " call positions"
          : p.type >= 3
              ? "cycled through its " + std::to_string(r.slots) + " call positions in the segment"
              : "cycled through " + std::to_string(r.slots) +
                    " call positions (its share of the disk-space limit)";
      row.note += (row.note.empty() ? "" : "; ") + wrapped;
    }
    out_.benchmark_started(b);
    out_.row(b, row);
    b.rows.push_back(row);
    out_.benchmark_finished(b);
  }

  void report_pattern(Method m, const PatternRun& r, const std::vector<double>& all,
                      std::size_t stride, std::size_t column) {
    const Pattern& p = r.pattern;
    core::BenchmarkRun b = pattern_table(m, p);
    core::Measurement row;
    row.bytes = p.disk_chunk;
    row.repetitions = static_cast<int>(std::min<long>(r.calls, 2147483647L));
    row.measured = true;
    if (r.capped)
      row.note = m == Method::Write ? "stopped by the disk-space limit"
                                    : "nothing to " + std::string(method_name(m)) +
                                          ": the initial write made no call";
    else if (r.passes > 1)
      row.note = std::to_string(r.passes) + " passes over the initial write's " +
                 std::to_string(r.written_calls) + " calls";
    for (int q = 0; q < nprocs_; ++q) row.rank_times_us.push_back(all[q * stride + column] * 1e6);
    row.t_min_us = *std::min_element(row.rank_times_us.begin(), row.rank_times_us.end());
    row.t_max_us = *std::max_element(row.rank_times_us.begin(), row.rank_times_us.end());
    row.t_avg_us =
        std::accumulate(row.rank_times_us.begin(), row.rank_times_us.end(), 0.0) / nprocs_;
    const double bytes = static_cast<double>(r.calls) * static_cast<double>(p.call_bytes) * nprocs_;
    const double bandwidth = row.t_max_us > 0 ? bytes / (row.t_max_us * 1e-6) / kMiBd : 0;
    row.mbytes_per_sec = bandwidth;
    row.values = {{"bandwidth", bandwidth, "MiB/s"},
                  {"bytes_accessed", bytes, "bytes"},
                  {"memory_chunk", static_cast<double>(p.call_bytes), "bytes"},
                  {"time_units", static_cast<double>(p.time_units), "U"},
                  {"time", row.t_max_us * 1e-6, "s"}};
    if (r.scheduled >= 0) row.values.push_back({"scheduled_time", r.scheduled, "s"});
    if (r.written_calls >= 0) {
      row.values.push_back(
          {"written_calls", static_cast<double>(r.written_calls), "calls per process"});
      row.values.push_back({"passes", static_cast<double>(r.passes), "passes"});
    }
    out_.benchmark_started(b);
    out_.row(b, row);
    b.rows.push_back(row);
    out_.benchmark_finished(b);
  }

  void finish_method(Method m) {
    std::array<double, kPatternTypes> bw{};
    double bytes = 0, distinct = 0, seconds = 0;
    for (int t = 0; t < kPatternTypes; ++t) {
      bw[t] = type_bandwidth(totals_[index(m)][t]);
      bytes += accessed_[index(m)][t];
      distinct += distinct_[index(m)][t];
      seconds += open_to_close_[index(m)][t];
    }
    method_bw_[index(m)] = method_bandwidth(bw);
    if (rank_ != 0) return;
    out_.summary({figure_name(nprocs_, m, "bytes"), bytes, "bytes"});
    out_.summary({figure_name(nprocs_, m, "distinct_bytes"), distinct, "bytes"});
    // The method's time (the types' opens to closes) and its share of T (section 5.1).
    out_.summary({figure_name(nprocs_, m, "seconds"), seconds, "s"});
    out_.summary({figure_name(nprocs_, m, "scheduled_seconds"), plan_.seconds / 3, "s"});
    out_.summary({figure_name(nprocs_, m, "b_eff_io"), method_bw_[index(m)], "MiB/s"});
    // Section 5.4: only a data set 20 times the cache makes sure 95 % of it went to disk; a
    // further pass over the same data does not add to the data set.
    if (plan_.fs_cache > 0 && distinct < 20.0 * static_cast<double>(plan_.fs_cache))
      out_.note("warning: the " + std::string(method_title(m)) + " accessed " +
                format_bytes(distinct) +
                (distinct < bytes ? " of distinct data (further passes over it do not count)"
                                  : std::string()) +
                ", less than 20 times the file system cache of " +
                format_bytes(static_cast<double>(plan_.fs_cache)) +
                " (--fs-cache-size): its figures may show the cache rather than the disks");
  }

  // Rewrite and read patterns that went over the initial write's data more than once, said once
  // per partition (each row's note gives its passes).
  void note_passes() {
    const long rewritten = patterns_in_passes_[index(Method::Rewrite)];
    const long reread = patterns_in_passes_[index(Method::Read)];
    if (rank_ != 0 || rewritten + reread == 0) return;
    out_.note("note: on " + std::to_string(nprocs_) + " processes " + std::to_string(rewritten) +
              " rewrite and " + std::to_string(reread) +
              " read pattern(s) reached the end of the data the initial write put in their "
              "region before their T_pattern and went over it again from its start (further "
              "passes, on their rows); every pass counts in their bytes and times, and data "
              "read again may come from the file system cache");
  }

  // Shared files by one process once all have closed them; own files by their owner.
  void remove_files() {
    MPI_Barrier(plan_.comm);
    for (int t = 0; t < kPatternTypes; ++t) {
      const std::string path = type_file_path(plan_.file_prefix, t, rank_);
      if (!shared_file(t) || rank_ == 0)
        core::scratch_files::remove(path);
      else
        core::scratch_files::forget(path);
    }
    MPI_Barrier(plan_.comm);
  }

  const PartitionPlan& plan_;
  core::Reporter& out_;
  core::Watchdog& watchdog_;
  int rank_ = 0, nprocs_ = 1;
  std::array<std::vector<Pattern>, kPatternTypes> patterns_;
  std::array<std::vector<long>, kPatternTypes> calls_;  // agreed calls of the initial write
  // Accurate mode: the call positions the initial write covered (rewrite and read cycle through
  // them), the number of patterns, and a meter per budget.
  std::array<std::vector<long>, kPatternTypes> written_slots_;
  std::size_t pattern_count_ = 0;
  std::map<double, std::unique_ptr<core::AccurateMeter>> meters_;
  std::uint64_t written_ = 0;  // bytes the initial write put into the files (all processes)
  std::uint64_t segment_ = 0;
  core::AlignedBytes buffer_;
  std::array<std::array<TypeTotals, kPatternTypes>, 3> totals_{};     // what the bandwidths use
  std::array<std::array<double, kPatternTypes>, 3> accessed_{};       // bytes really accessed
  std::array<std::array<double, kPatternTypes>, 3> distinct_{};       // … counting each byte once
  std::array<std::array<double, kPatternTypes>, 3> open_to_close_{};  // slowest process (rank 0)
  std::array<long, 3> patterns_in_passes_{};  // rewrite and read patterns with passes > 1
  std::array<double, 3> method_bw_{};
};

}  // namespace

double measure_partition(const PartitionPlan& plan, core::Reporter& out, core::Watchdog& watchdog) {
  return PartitionRun(plan, out, watchdog).run();
}

}  // namespace mpiscope::beffio
