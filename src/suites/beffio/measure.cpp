// The methodology of b_eff_io in one place. Per access method and pattern type: a barrier, then
// the clock runs from MPI_File_open to MPI_File_close (the paper's b_eff_io of a pattern type);
// inside, every pattern is placed and repeated:
//  - types 0–2, U > 0: time-driven, T_pattern = T/3 · U/ΣU. Calls run in batches of a geometric
//    series (section 5.4's proposal); after each batch one MPI_Allreduce(MAX) of the elapsed time
//    lets every process take the same decision, so the checks cost O(log calls) collectives, not
//    one per call. Rewrite and read stop at the initial write's calls (the data that exists).
//  - U = 0 patterns: one call.
//  - types 3 and 4: size-driven; the repetitions and the segment come from the initial write of
//    types 0–2 (definition.cpp), the last pattern fills the segment.
//  - writes end every pattern with MPI_File_sync.
// Nothing is reported inside the clock: per-pattern times are gathered after the close.
#include "suites/beffio/measure.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <numeric>

#include "core/buffers.hpp"
#include "core/mpi.hpp"
#include "core/scratch_files.hpp"
#include "suites/beffio/access.hpp"

namespace mpiscope::beffio {

namespace {

// One pattern during one access method, as this process saw it.
struct PatternRun {
  Pattern pattern;
  long calls = 0;         // agreed by all processes
  double seconds = 0;     // local: placing, calls, termination checks, final sync
  double scheduled = -1;  // T_pattern when time-driven
  bool capped = false;    // stopped before T_pattern: disk limit (write) or the written data
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
    }
    auto bytes = core::AlignedBytes::try_allocate(plan.m_part);
    if (!bytes)
      throw std::runtime_error("cannot allocate the " + std::to_string(plan.m_part) +
                               "-byte buffer of M_PART");
    buffer_ = std::move(*bytes);
    core::fill_pattern(buffer_.data(), buffer_.size(), rank_);
  }

  double run() {
    for (Method m : kMethods) {
      for (int t = 0; t < kPatternTypes; ++t) {
        if (m == Method::Write && t == 3) plan_segments();
        run_type(m, t);
      }
      finish_method(m);
    }
    remove_files();
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
    if (m == Method::Write) core::scratch_files::add(path);  // before the file exists
    const auto& patterns = patterns_[type];
    std::vector<PatternRun> runs;
    runs.reserve(patterns.size());
    watchdog_.arm(std::string(method_title(m)) + " of pattern type " + std::to_string(type) +
                  " on " + std::to_string(nprocs_) + " processes");

    MPI_Barrier(plan_.comm);
    const double opened = MPI_Wtime();
    open_type_file(f, path);
    std::uint64_t region = 0;
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      const Pattern& p = patterns[i];
      PatternRun r = type >= 3 || p.time_units == 0 ? fixed(f, p, region, calls_for_size(type, i))
                                                    : timed(f, p, region, m, calls_[type][i]);
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
    watchdog_.disarm();
    report_type(m, type, runs, open_to_close);
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
                   long written_calls) {
    PatternRun r;
    r.pattern = p;
    r.scheduled = scheduled_seconds(plan_.seconds, p.time_units);
    long cap = written_calls;
    if (m == Method::Write) {
      const std::uint64_t per_call = static_cast<std::uint64_t>(p.call_bytes) * nprocs_;
      cap = static_cast<long>(std::min<std::uint64_t>(
          plan_.disk_limit > written_ ? (plan_.disk_limit - written_) / per_call : 0,
          std::uint64_t{1} << 40));
    }
    double elapsed = 0;
    const double start = MPI_Wtime();
    place_pattern(f, p, region);
    for (long batch = next_batch(0, 0, r.scheduled, cap); batch > 0;
         batch = next_batch(r.calls, elapsed, r.scheduled, cap)) {
      for (long i = 0; i < batch; ++i) access_once(f, p);
      r.calls += batch;
      elapsed = MPI_Wtime() - start;
      MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, plan_.comm);
    }
    if (f.method != Method::Read) sync_writes(f);
    r.seconds = MPI_Wtime() - start;
    r.capped = r.calls >= cap && elapsed < r.scheduled;
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
    std::vector<double> local = {open_to_close};
    for (const auto& r : runs) local.push_back(r.seconds);
    std::vector<double> all(rank_ == 0 ? local.size() * nprocs_ : 0);
    MPI_Gather(local.data(), static_cast<int>(local.size()), MPI_DOUBLE, all.data(),
               static_cast<int>(local.size()), MPI_DOUBLE, 0, plan_.comm);
    TypeTotals totals;
    for (const auto& r : runs)
      totals.bytes +=
          static_cast<double>(r.calls) * static_cast<double>(r.pattern.call_bytes) * nprocs_;
    for (int q = 0; q < nprocs_ && rank_ == 0; ++q)
      totals.seconds = std::max(totals.seconds, all[q * local.size()]);
    totals_[index(m)][type] = totals;
    if (rank_ != 0) return;
    for (std::size_t i = 0; i < runs.size(); ++i)
      report_pattern(m, runs[i], all, local.size(), i + 1);
    out_.summary({figure_name(nprocs_, m, type, "bytes"), totals.bytes, "bytes"});
    out_.summary({figure_name(nprocs_, m, type, "seconds"), totals.seconds, "s"});
    out_.summary({figure_name(nprocs_, m, type, "b_eff_io"), type_bandwidth(totals), "MiB/s"});
  }

  void report_pattern(Method m, const PatternRun& r, const std::vector<double>& all,
                      std::size_t stride, std::size_t column) {
    const Pattern& p = r.pattern;
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
    core::Measurement row;
    row.bytes = p.disk_chunk;
    row.repetitions = static_cast<int>(std::min<long>(r.calls, 2147483647L));
    row.measured = true;
    if (r.capped)
      row.note = m == Method::Write ? "stopped by the disk-space limit"
                                    : "capped at the initial write's calls";
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
    out_.benchmark_started(b);
    out_.row(b, row);
    b.rows.push_back(row);
    out_.benchmark_finished(b);
  }

  void finish_method(Method m) {
    std::array<double, kPatternTypes> bw{};
    double bytes = 0;
    for (int t = 0; t < kPatternTypes; ++t) {
      bw[t] = type_bandwidth(totals_[index(m)][t]);
      bytes += totals_[index(m)][t].bytes;
    }
    method_bw_[index(m)] = method_bandwidth(bw);
    if (rank_ != 0) return;
    out_.summary({figure_name(nprocs_, m, "bytes"), bytes, "bytes"});
    out_.summary({figure_name(nprocs_, m, "b_eff_io"), method_bw_[index(m)], "MiB/s"});
    // Section 5.4: only a data set 20 times the cache makes sure 95 % of it went to disk.
    if (plan_.fs_cache > 0 && bytes < 20.0 * static_cast<double>(plan_.fs_cache))
      out_.note("warning: the " + std::string(method_title(m)) + " accessed " +
                format_bytes(bytes) + ", less than 20 times the file system cache of " +
                format_bytes(static_cast<double>(plan_.fs_cache)) +
                " (--fs-cache-size): its figures may show the cache rather than the disks");
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
  std::uint64_t written_ = 0;  // bytes the initial write put into the files (all processes)
  std::uint64_t segment_ = 0;
  core::AlignedBytes buffer_;
  std::array<std::array<TypeTotals, kPatternTypes>, 3> totals_{};
  std::array<double, 3> method_bw_{};
};

}  // namespace

double measure_partition(const PartitionPlan& plan, core::Reporter& out, core::Watchdog& watchdog) {
  return PartitionRun(plan, out, watchdog).run();
}

}  // namespace mpiscope::beffio
