// Order statistics over repetition samples.
#pragma once

#include <vector>

namespace mpiscope::core {

struct SampleSummary {
  std::size_t n = 0;
  double min = 0, max = 0, mean = 0, median = 0, p05 = 0, p25 = 0, p75 = 0, p95 = 0, p99 = 0;
};

// Linear interpolation between closest ranks (the usual "type 7" definition); q in [0, 1].
double quantile(std::vector<double> sorted_values, double q);
SampleSummary summarize(std::vector<double> values);

}  // namespace mpiscope::core
