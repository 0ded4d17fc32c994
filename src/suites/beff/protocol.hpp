// The b_eff measurement (paper, sec. 4): every pattern at every length with every method, three
// times, each loop timed by kernels.hpp's timed_loop; then the protocol and the summary handed
// to the reporters. In accurate mode (--method accurate) each pattern, length and method is one
// point of core::AccurateMeter, a repetition being one iteration of the pattern; the bandwidth
// comes from the median iteration and the averaging stays b_eff's.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "suites/beff/analysis.hpp"
#include "suites/beff/kernels.hpp"
#include "suites/beff/patterns.hpp"

namespace mpiscope::beff {

struct Settings {
  double memory_per_process = 0;  // bytes
  std::string memory_source;      // how it was chosen, for the header
  std::uint64_t seed = 0;
  int random_patterns = 0;
  int repetitions = kRepetitions;
  LoopWindow window;
  double timeout_s = 0;
  std::optional<core::AccurateSettings> accurate;  // --method accurate; empty: classic
};

// One pattern, one method, one length: the three repetitions.
struct Cell {
  std::array<int, kRepetitions> looplength{};
  std::array<double, kRepetitions> seconds{};  // loop time, maximum over the pattern's ranks
  std::array<std::vector<double>, kRepetitions> rank_seconds;  // rank 0 only: per participant
  std::optional<core::AccurateResult> accurate;  // accurate mode (complete on rank 0) instead
};

struct Protocol {
  int processes = 0;
  int repetitions = kRepetitions;
  bool accurate = false;  // cells hold accurate results, not repetitions of loops
  std::size_t lmax = 0;
  std::vector<std::size_t> lengths;
  std::vector<Pattern> patterns;
  std::vector<std::vector<Method>> methods;           // per pattern
  std::vector<std::vector<std::vector<Cell>>> cells;  // [pattern][method][length]
  double seconds = 0;                                 // the whole measurement, wall clock
};

// The methods a pattern is measured with: all three, or MPI_Sendrecv alone for ping-pong.
std::vector<Method> methods_of(const Pattern& p);

// Collective over MPI_COMM_WORLD. Throws when the buffers cannot be allocated on some rank.
Protocol measure(const Settings& s);

// Rank 0: the protocol tables (one BenchmarkRun per pattern and method) and the summary; with
// R_max (Gflop/s, > 0) also the balance factor. Returns false when a point has no bandwidth
// (accurate mode: no valid repetition).
bool report(const Protocol& p, double rmax_gflop_s, core::Reporter& out);

}  // namespace mpiscope::beff
