#include "suites/beff/protocol.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "core/buffers.hpp"
#include "core/mpi.hpp"
#include "core/progress.hpp"
#include "core/watchdog.hpp"

namespace mpiscope::beff {

namespace {

constexpr int kWarmUpLengths = 18;  // b_eff.c: one untimed iteration for the 18 shortest lengths
constexpr std::size_t kSlotAlignment = 64;

// The looplength of the first loop of a cell: 300 for the shortest message; at a longer one the
// previous length's loop scaled as if time grew with L (too short a guess is corrected by one
// more loop); from the second repetition on, the first repetition's loop of this cell.
int predicted_looplength(const Protocol& p, std::size_t pat, std::size_t m, std::size_t li, int rep,
                         const LoopWindow& w) {
  const auto& cells = p.cells[pat][m];
  if (rep > 0) {
    const auto r = static_cast<std::size_t>(rep - 1);
    return looplength_for(cells[li].looplength[r], cells[li].seconds[r], w);
  }
  if (li == 0) return kMaxLoopLength;
  const Cell& prev = cells[li - 1];
  const double growth = static_cast<double>(p.lengths[li]) / static_cast<double>(p.lengths[li - 1]);
  return std::min(prev.looplength[0],
                  looplength_for(prev.looplength[0], prev.seconds[0] * growth, w));
}

// Accurate mode: pattern by pattern (a pattern is one table for the window scheme's health),
// each method at each length one point of the meter.
void measure_accurately(Protocol& p, core::AccurateMeter& meter, core::Watchdog& watchdog,
                        std::byte* send, std::byte* recv, std::size_t stride, double start) {
  const int rank = mpi::world_rank();
  for (std::size_t pat = 0; pat < p.patterns.size(); ++pat) {
    const Pattern& pattern = p.patterns[pat];
    if (rank == 0) {
      const auto patterns = static_cast<long>(p.patterns.size());
      core::progress_message(fmt::format(
          "b_eff: pattern {}/{} ({}), {}", pat + 1, patterns, pattern.name,
          core::elapsed_and_left(MPI_Wtime() - start, static_cast<long>(pat), patterns)));
    }
    meter.new_table();
    for (std::size_t m = 0; m < p.methods[pat].size(); ++m) {
      const Method method = p.methods[pat][m];
      for (std::size_t li = 0; li < p.lengths.size(); ++li) {
        Transfer t;
        t.steps = &pattern.steps[static_cast<std::size_t>(rank)];
        t.bytes = static_cast<int>(p.lengths[li]);
        t.send = send;
        t.recv = recv;
        t.slot_stride = stride;
        prepare_transfer(t, p.processes);
        watchdog.arm(pattern.name + " with " + method_name(method) + " at " +
                     std::to_string(t.bytes) + " bytes (accurate mode)");
        if (li < kWarmUpLengths) run_iteration(method, t);  // b_eff.c's pre-loop, untimed
        p.cells[pat][m][li].accurate = measure_iterations(meter, method, t);
        watchdog.end_phase();
      }
    }
  }
}

}  // namespace

std::vector<Method> methods_of(const Pattern& p) {
  if (p.sendrecv_only) return {Method::Sendrecv};
  return {Method::Sendrecv, Method::Alltoallv, Method::Nonblocking};
}

Protocol measure(const Settings& s) {
  Protocol p;
  const int rank = mpi::world_rank();
  p.processes = mpi::world_size();
  p.repetitions = s.repetitions;
  p.accurate = s.accurate.has_value();
  p.lmax = max_message_length(s.memory_per_process);
  p.lengths = message_lengths(p.lmax);
  p.patterns = all_patterns(p.processes, s.seed, s.random_patterns);
  int slots = 1;
  for (const auto& pat : p.patterns) {
    p.methods.push_back(methods_of(pat));
    p.cells.emplace_back(p.methods.back().size(), std::vector<Cell>(p.lengths.size()));
    slots = std::max(slots, pat.max_steps());
  }

  const std::size_t stride = (p.lmax + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment;
  const std::size_t buffer_bytes = stride * static_cast<std::size_t>(slots);
  auto send = core::AlignedBytes::try_allocate(buffer_bytes);
  auto recv = core::AlignedBytes::try_allocate(buffer_bytes);
  int allocated = send && recv ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &allocated, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!allocated)
    throw std::runtime_error("cannot allocate 2 x " + std::to_string(buffer_bytes) +
                             " bytes of message buffers (L_max = " + std::to_string(p.lmax) +
                             "); give a smaller --memory-per-process");
  // Touch every page now, so that no page fault is timed.
  core::fill_pattern(send->data(), buffer_bytes, rank);
  std::memset(recv->data(), 0, buffer_bytes);

  core::Watchdog watchdog(s.timeout_s, rank);
  std::optional<core::AccurateMeter> meter;
  if (s.accurate) meter.emplace(MPI_COMM_WORLD, *s.accurate);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  std::vector<double> gathered(static_cast<std::size_t>(p.processes));
  if (meter) measure_accurately(p, *meter, watchdog, send->data(), recv->data(), stride, start);
  for (int rep = 0; !meter && rep < p.repetitions; ++rep) {
    for (std::size_t li = 0; li < p.lengths.size(); ++li) {
      if (rank == 0) {
        const auto lengths = static_cast<long>(p.lengths.size());
        core::progress_message(fmt::format(
            "b_eff: repetition {}/{}, length {}/{} ({} bytes), {}", rep + 1, p.repetitions, li + 1,
            lengths, p.lengths[li],
            core::elapsed_and_left(MPI_Wtime() - start, rep * lengths + static_cast<long>(li),
                                   p.repetitions * lengths)));
      }
      for (std::size_t pat = 0; pat < p.patterns.size(); ++pat) {
        const Pattern& pattern = p.patterns[pat];
        for (std::size_t m = 0; m < p.methods[pat].size(); ++m) {
          const Method method = p.methods[pat][m];
          Transfer t;
          t.steps = &pattern.steps[static_cast<std::size_t>(rank)];
          t.bytes = static_cast<int>(p.lengths[li]);
          t.send = send->data();
          t.recv = recv->data();
          t.slot_stride = stride;
          prepare_transfer(t, p.processes);
          // One loop; every rank learns every rank's time (one collective), so all agree on
          // the slowest participant and on what comes next.
          auto loop = [&](int looplength) {
            watchdog.arm(pattern.name + " with " + method_name(method) + " at " +
                         std::to_string(t.bytes) + " bytes, repetition " + std::to_string(rep + 1));
            double mine = run_loop(method, t, looplength, li < kWarmUpLengths);
            MPI_Allgather(&mine, 1, MPI_DOUBLE, gathered.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
            watchdog.end_phase();
            double slowest = 0;
            for (int q = 0; q < p.processes; ++q)
              if (pattern.participates(q))
                slowest = std::max(slowest, gathered[static_cast<std::size_t>(q)]);
            return slowest;
          };
          int looplength = predicted_looplength(p, pat, m, li, rep, s.window);
          double seconds = loop(looplength);
          // Too short a loop that may still grow: that one was a calibration; measure again.
          if (seconds < s.window.low_s && looplength < kMaxLoopLength) {
            const int longer = looplength_for(looplength, seconds, s.window);
            if (longer > looplength) {
              looplength = longer;
              seconds = loop(looplength);
            }
          }
          Cell& cell = p.cells[pat][m][li];
          const auto r = static_cast<std::size_t>(rep);
          cell.looplength[r] = looplength;
          cell.seconds[r] = seconds;
          if (rank == 0)
            for (int q = 0; q < p.processes; ++q)
              if (pattern.participates(q))
                cell.rank_seconds[r].push_back(gathered[static_cast<std::size_t>(q)]);
        }
      }
    }
  }
  double elapsed = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  p.seconds = elapsed;
  return p;
}

namespace {

// Accurate mode: the row of one point: its statistics over repetitions (times per iteration)
// and the bandwidth of the median iteration. Returns that bandwidth (0: no valid repetition).
double accurate_row(const Cell& cell, std::size_t bytes, int messages, const char* unit,
                    core::Measurement& row) {
  if (!core::fill_accurate_row(*cell.accurate, false, row)) return 0;
  const double median_s = row.accurate->summary_us.median * 1e-6;
  const double bw = median_s > 0 ? bandwidth_mb_s(bytes, messages, 1, median_s) : 0;
  row.values.push_back({"bandwidth", bw, unit});
  return bw;
}

}  // namespace

bool report(const Protocol& p, double rmax_gflop_s, core::Reporter& out) {
  const char* unit = "MB/s (1e6 bytes/s)";
  bool all = true;
  std::vector<PatternBest> bests;
  for (std::size_t pat = 0; pat < p.patterns.size(); ++pat) {
    const Pattern& pattern = p.patterns[pat];
    PatternBest best{pattern.name, pattern.kind, std::vector<double>(p.lengths.size(), 0.0),
                     pattern.messages(), pattern.max_steps()};
    int participants = 0;
    for (int q = 0; q < p.processes; ++q) participants += pattern.participates(q) ? 1 : 0;
    for (std::size_t m = 0; m < p.methods[pat].size(); ++m) {
      core::BenchmarkRun run;
      run.name = pattern.name;
      run.family = pattern.sendrecv_only ? "single_transfer" : "parallel_transfer";
      run.accurate = p.accurate;
      run.nprocs = participants;
      run.parameters = {{"pattern", pattern.name},
                        {"kind", kind_name(pattern.kind)},
                        {"method", method_name(p.methods[pat][m])},
                        {"layout", pattern.description},
                        {"messages_per_iteration", std::to_string(pattern.messages())}};
      out.benchmark_started(run);
      for (std::size_t li = 0; li < p.lengths.size(); ++li) {
        const Cell& cell = p.cells[pat][m][li];
        core::Measurement row;
        row.bytes = p.lengths[li];
        if (p.accurate) {
          const double bw = accurate_row(cell, row.bytes, pattern.messages(), unit, row);
          all &= row.measured;
          best.best_mb_s[li] = std::max(best.best_mb_s[li], bw);
          out.row(run, row);
          continue;
        }
        row.measured = true;
        std::size_t top = 0;
        std::array<double, kRepetitions> bw{};
        const auto reps = static_cast<std::size_t>(p.repetitions);
        for (std::size_t r = 0; r < reps; ++r) {
          bw[r] = bandwidth_mb_s(p.lengths[li], pattern.messages(), cell.looplength[r],
                                 cell.seconds[r]);
          if (bw[r] > bw[top]) top = r;
        }
        best.best_mb_s[li] = std::max(best.best_mb_s[li], bw[top]);
        // The columns of the best repetition: time per iteration over the pattern's ranks.
        row.repetitions = cell.looplength[top];
        const auto& times = cell.rank_seconds[top];
        const double per_iteration = 1e6 / cell.looplength[top];
        row.t_max_us = cell.seconds[top] * per_iteration;
        row.t_min_us =
            times.empty() ? 0 : *std::min_element(times.begin(), times.end()) * per_iteration;
        double sum = 0;
        for (double t : times) {
          row.rank_times_us.push_back(t * per_iteration);
          sum += t;
        }
        row.t_avg_us = times.empty() ? 0 : sum / static_cast<double>(times.size()) * per_iteration;
        row.values.push_back({"bandwidth", bw[top], unit});
        for (std::size_t r = 0; r < reps; ++r) {
          const std::string n = "_rep" + std::to_string(r + 1);
          row.values.push_back({"bandwidth" + n, bw[r], unit});
          row.values.push_back(
              {"looplength" + n, static_cast<double>(cell.looplength[r]), "iterations"});
          row.values.push_back({"loop_time" + n, cell.seconds[r] * 1e3,
                                "milliseconds (slowest participating rank)"});
        }
        out.row(run, row);
      }
      out.benchmark_finished(run);
    }
    bests.push_back(std::move(best));
  }

  // The protocol's per-pattern summary (b_eff.c's "official analysis path"): each pattern's
  // average over the lengths, its best at L_max and its latency.
  const char* microseconds = "microseconds";
  for (const auto& b : bests) {
    out.summary({"average/" + b.name, b.average(), unit});
    out.summary({"at_lmax/" + b.name, b.at_lmax(), unit});
    out.summary({"latency/" + b.name, b.latency_us(), microseconds});
  }
  const Figures f = compute_figures(bests, p.processes);
  // b_eff.c's "log_avg" rows: the averagings at every length.
  for (std::size_t li = 0; li < p.lengths.size(); ++li) {
    const std::string at = "/" + std::to_string(p.lengths[li]);
    out.summary({"ring_logavg_at" + at, f.ring_by_length[li], unit});
    out.summary({"random_logavg_at" + at, f.random_by_length[li], unit});
    out.summary({"b_eff_at" + at, f.b_eff_by_length[li], unit});
  }
  const auto ping_pong = std::find_if(bests.begin(), bests.end(),
                                      [](const PatternBest& b) { return b.name == "ping-pong"; });
  out.summary({"ring_logavg", f.ring_logavg, unit});
  out.summary({"random_logavg", f.random_logavg, unit});
  out.summary({"ring_at_lmax", f.ring_at_lmax, unit});
  out.summary({"random_at_lmax", f.random_at_lmax, unit});
  // The columns of the paper's Table 1.
  out.summary({"processes", static_cast<double>(p.processes), "processes"});
  out.summary({"b_eff", f.b_eff, unit});
  out.summary({"b_eff_per_process", f.per_process(f.b_eff), unit});
  out.summary({"L_max", static_cast<double>(p.lmax), "bytes"});
  if (ping_pong != bests.end())
    out.summary({"ping_pong_bandwidth_at_lmax", ping_pong->at_lmax(), unit});
  out.summary({"b_eff_at_lmax", f.b_eff_at_lmax, unit});
  out.summary({"b_eff_per_process_at_lmax", f.per_process(f.b_eff_at_lmax), unit});
  out.summary({"ring_per_process_at_lmax", f.per_process(f.ring_at_lmax), unit});
  // b_eff.c's latencies (its summary section and result table).
  out.summary({"latency", f.latency_us(), microseconds});
  out.summary({"ring_latency", f.ring_latency_us(), microseconds});
  if (ping_pong != bests.end())
    out.summary({"ping_pong_latency", ping_pong->latency_us(), microseconds});
  // The paper's balance factor, when the floating-point performance is known.
  if (rmax_gflop_s > 0) {
    out.summary({"R_max", rmax_gflop_s, "Gflop/s (Linpack, --rmax)"});
    out.summary({"balance_factor", balance_factor(f.b_eff, rmax_gflop_s),
                 "bytes per flop (b_eff / R_max)"});
  }
  out.summary({"measurement_time", p.seconds, "seconds"});
  return all;
}

}  // namespace mpiscope::beff
