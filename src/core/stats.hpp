// Order statistics over repetition samples: summaries, the distribution-free confidence interval
// of the median, and outlier counts. Timing samples are skewed and heavy-tailed (interrupts,
// scheduling), so the median with an order-statistic interval is the robust centre; nothing here
// assumes a normal distribution.
#pragma once

#include <cstddef>
#include <vector>

namespace mpiscope::core {

// The interval [lower, upper] = [x_(j), x_(k)] (1-based order statistics) that contains the
// population median with at least the stated confidence, from the binomial(n, 1/2) distribution
// (exact up to n = 1000, normal approximation beyond). Needs n >= 6 at 95 %; otherwise
// `available` is false and the interval is the sample range.
struct MedianInterval {
  bool available = false;
  double lower = 0, upper = 0;
  std::size_t lower_rank = 0, upper_rank = 0;  // j and k, 1-based
  double confidence = 0;                       // the interval's actual coverage (>= requested)
  double relative_half_width(double median) const {
    return median > 0 ? (upper - lower) / 2 / median : 0;
  }
};
MedianInterval median_interval(const std::vector<double>& sorted_values, double confidence = 0.95);

// Tukey's fences on the quartiles: values above Q3 + k·IQR or below Q1 − k·IQR. mpiscope reports
// the count at k = 3 ("far out"); samples are never dropped for it.
std::size_t count_outliers(const std::vector<double>& sorted_values, double k = 3.0);

struct SampleSummary {
  std::size_t n = 0;
  double min = 0, max = 0, mean = 0, median = 0, p05 = 0, p25 = 0, p75 = 0, p95 = 0, p99 = 0;
  MedianInterval median_ci;  // 95 %
  std::size_t outliers = 0;  // far out (Tukey, k = 3)
};

// Whether samples, in the order they were taken, changed level during the measurement: the
// medians of the first and the second half, and `detected` when their 95 % intervals are
// disjoint and they differ by more than `min_relative_change` of the smaller one. A machine that
// switches between speeds (a VM whose vCPUs move, frequency changes, a neighbour's job) shows
// here; the median of the whole point then describes neither state.
struct LevelShift {
  bool detected = false;
  double first_median = 0, second_median = 0;  // 0 when a half has fewer than 6 samples
};
LevelShift detect_level_shift(const std::vector<double>& in_time_order, double min_relative_change);

// Linear interpolation between closest ranks (the usual "type 7" definition); q in [0, 1].
double quantile(std::vector<double> values, double q);
// The median's interval at `confidence` (the accurate meter's stopping rule's).
SampleSummary summarize(std::vector<double> values, double confidence = 0.95);

}  // namespace mpiscope::core
