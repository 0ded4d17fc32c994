// b_eff's arithmetic as pure functions (paper, sec. 4): the 21 message lengths, the loop-length
// rule, and the averaging that turns the protocol into b_eff and the columns of Table 1.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "suites/beff/patterns.hpp"

namespace mpiscope::beff {

constexpr int kLengthCount = 21;
constexpr int kDoublingLengths = 13;  // 1 B … 4 kB
constexpr std::size_t kLastDoubling = 4096;
constexpr std::size_t kLmaxCap = std::size_t{128} << 20;  // 32-bit int counts: 128 MB at most
constexpr int kRepetitions = 3;      // the paper's; --repetitions may lower it for short runs
constexpr int kMaxLoopLength = 300;  // the looplength of the shortest message
constexpr double kMegabyte = 1e6;    // b_eff's MB/s

// L_max = min(128 MB, memory per process / 128), in bytes.
std::size_t max_message_length(double memory_per_process_bytes);
// 1, 2, 4, …, 4096, then 8 geometric steps 4096·a^k up to L_max (rounded to whole bytes).
// L_max must be at least 4096.
std::vector<std::size_t> message_lengths(std::size_t lmax);

// Loops of one measurement should take between `low` and `high` seconds (paper: 2.5–5 ms).
struct LoopWindow {
  double low_s = 2.5e-3, high_s = 5e-3;
  double target_s() const { return 0.5 * (low_s + high_s); }
};
// The looplength that makes a loop last the window's target, given that `looplength` iterations
// took `seconds`: between 1 and 300.
int looplength_for(int looplength, double seconds, const LoopWindow& w);

// bandwidth = L · messages · looplength / time, in MB/s (1e6 bytes per second).
double bandwidth_mb_s(std::size_t bytes, int messages, int looplength, double seconds);

// exp(mean(log x)); x must be positive.
double logavg(const std::vector<double>& values);

// What the averaging needs of one pattern: its best bandwidth (max over methods and repetitions)
// at each of the 21 lengths.
struct PatternBest {
  std::string name;
  PatternKind kind = PatternKind::Analysis;
  std::vector<double> best_mb_s;  // one per length, the first at 1 byte
  int messages = 0;               // sent by all processes in one iteration
  int steps = 0;                  // transfer steps of a process in one iteration (the most)
  double average() const;         // sum over the lengths / 21
  double at_lmax() const { return best_mb_s.back(); }
  // b_eff.c's pattern latency: the time of one step (one MPI_Sendrecv or its equivalent) at
  // 1 byte, messages / bandwidth / steps, in microseconds; 0 when 1 byte was not measured.
  double latency_us() const;
};

// Table 1 of the paper, and the two averages b_eff combines.
struct Figures {
  double b_eff = 0;           // logavg(ring logavg, random logavg) of the length averages
  double ring_logavg = 0;     // logavg over the ring patterns of their length averages
  double random_logavg = 0;   // the same over the random patterns
  double b_eff_at_lmax = 0;   // the same averaging with the bandwidth at L_max alone
  double ring_at_lmax = 0;    // logavg over the ring patterns at L_max
  double random_at_lmax = 0;  // logavg over the random patterns at L_max
  // The same averagings at every length (b_eff.c's "log_avg" rows): ring patterns, random
  // patterns, and the logavg of both; the last element is at L_max.
  std::vector<double> ring_by_length, random_by_length, b_eff_by_length;
  int processes = 0;
  double per_process(double v) const { return v / processes; }
  // b_eff.c's latencies: 1 byte over the per-process bandwidth at 1 byte, in microseconds.
  // 0 when that bandwidth is unknown.
  double latency_us() const { return inverse_per_process(b_eff_by_length.front()); }
  double ring_latency_us() const { return inverse_per_process(ring_by_length.front()); }
  double inverse_per_process(double v) const { return v > 0 ? processes / v : 0; }
};
Figures compute_figures(const std::vector<PatternBest>& patterns, int processes);

// The paper's balance factor (sec. 2): b_eff over the floating-point performance R_max
// (Linpack), in bytes per flop. b_eff in MB/s (1e6 bytes/s), R_max in Gflop/s.
double balance_factor(double b_eff_mb_s, double rmax_gflop_s);

}  // namespace mpiscope::beff
