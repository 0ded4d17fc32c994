// The measurement of `mpiscope map`: every pair of ranks, in rounds of disjoint pairs
// (schedule.hpp), a ping-pong at a small length (latency) and at a large one (bandwidth), each
// round trip timed on its own so that the pair's figure is a low quantile (the 10th percentile),
// what the path does without interference: a fault slows every message, a busy CPU only some. The
// whole schedule runs `sweeps` times, so every pair is measured at different times.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace mpiscope::map {

struct MapSettings {
  std::size_t small_bytes = 8;        // latency
  std::size_t large_bytes = 1 << 20;  // bandwidth
  int latency_iterations = 100;       // timed round trips per pair (after a tenth, >= 2, untimed)
  double bandwidth_time_s = 0.02;     // the timed bandwidth round trips fill about this long
  int max_bandwidth_iterations = 50;  // and are between 2 and this many
  int sweeps = 2;
};

// One measurement of one pair (a < b) in one sweep.
struct PairSample {
  int a = 0, b = 0;
  int sweep = 0;
  int slot = 0;              // position of the pair's round within its sweep (when it ran)
  double latency_us = 0;     // 10th percentile round trip / 2 at small_bytes
  double bandwidth_mbs = 0;  // large_bytes / (10th percentile round trip / 2), 10^6 bytes/s
  int latency_iterations = 0, bandwidth_iterations = 0;
};

// What the measurement tells its caller as it goes.
struct MapProgress {
  // Every rank, before each round (index from 0) and once more with index == total at the end:
  // the watchdog and the progress line.
  std::function<void(int index, int total)> round_starts;
  // Rank 0, after each round, with that round's samples: recorded at once, so that an
  // interrupted map keeps every round it measured.
  std::function<void(const std::vector<PairSample>&)> round_measured;
};

// Collective over MPI_COMM_WORLD. Every rank returns; rank 0's vector holds every sample, the
// others' are empty.
std::vector<PairSample> measure_map(const MapSettings& s, const MapProgress& progress);

}  // namespace mpiscope::map
