// What `mpiscope map` concludes from its samples: each pair's figures over the sweeps, the
// distributions within hosts and between hosts, and the hosts, ranks and links that are slow
// outliers. Pure functions over the samples (unit-tested without MPI).
//
// The statistics (docs/map.md): within each class of pairs (intra-host, inter-host) and for each
// figure, the pairs' medians are sorted on a log scale and split at the widest gap between
// neighbours that leaves at least a third of the pairs (and three) above it, when that gap is at
// least `slow_factor` and wider than the noise: the spread of the group above it (the healthy
// pairs) or how far one pair moved between sweeps (90th percentile), whichever is wider. A pair is
// slow when its figure is below the gap in every sweep (a pair slow only once met a transient, not
// a fault). A host is flagged when most rank pairs between it and every other host are slow while
// some host pair is not (otherwise the slowness cannot be placed); a rank when every pair it is in
// is slow, its host not flagged; a link (rank pair) when it is slow and neither explains it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "suites/map/measure.hpp"

namespace mpiscope::map {

struct PairResult {
  int a = 0, b = 0;
  std::string host_a, host_b;
  bool inter_host = false;
  std::vector<double> latency_us, bandwidth_mbs;  // one per sweep, in sweep order
  double latency_median_us = 0, bandwidth_median_mbs = 0;
  int latency_round_trips = 0, bandwidth_round_trips = 0;  // timed, over all sweeps
  bool slow_latency = false, slow_bandwidth = false;
  std::string flag;  // "", "slow link", "slow host NAME", "slow rank N"
  bool slow() const { return slow_latency || slow_bandwidth; }
};

struct Distribution {
  double min = 0, median = 0, max = 0;
  double reference = 0;  // the healthy pairs' median (all pairs' when none is slow)
};

struct ClassSummary {
  std::size_t pairs = 0;
  Distribution latency_us, bandwidth_mbs;
};

struct Flagged {
  std::string what;    // a host name, "rank N" or "A-B" (ranks)
  std::string reason;  // the figures that made it an outlier
};

struct MapAnalysis {
  double slow_factor = 2;
  std::vector<PairResult> pairs;  // ordered by (a, b)
  std::optional<ClassSummary> intra_host, inter_host;
  std::vector<Flagged> hosts, ranks, links;
  std::string unplaced;               // why slow pairs could not be placed on a host, or ""
  std::vector<std::string> unjudged;  // classes with too few pairs to judge, and why
};

// `host_of_rank[r]` is rank r's host. Samples of pairs measured in several sweeps are combined.
MapAnalysis analyse(const std::vector<PairSample>& samples,
                    const std::vector<std::string>& host_of_rank, double slow_factor);

}  // namespace mpiscope::map
