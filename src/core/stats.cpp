#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace mpiscope::core {

namespace {
double quantile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) throw std::invalid_argument("quantile of no values");
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

// P(X <= x) for X ~ binomial(n, 1/2), summed in log space so that n up to 1000 stays exact.
double binomial_half_cdf(std::size_t n, std::size_t x) {
  double sum = 0;
  const double log_half_n = static_cast<double>(n) * std::log(0.5);
  const double lgn = std::lgamma(static_cast<double>(n) + 1);
  for (std::size_t i = 0; i <= x && i <= n; ++i)
    sum += std::exp(lgn - std::lgamma(static_cast<double>(i) + 1) -
                    std::lgamma(static_cast<double>(n - i) + 1) + log_half_n);
  return std::min(sum, 1.0);
}

// The standard normal quantile, by bisection on erfc (only needed for a handful of levels).
double normal_quantile(double p) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}
}  // namespace

MedianInterval median_interval(const std::vector<double>& v, double confidence) {
  MedianInterval ci;
  const std::size_t n = v.size();
  if (n == 0) return ci;
  ci.lower = v.front();
  ci.upper = v.back();
  ci.lower_rank = 1;
  ci.upper_rank = n;
  const double alpha = 1 - confidence;
  std::size_t j = 0;  // the largest j with P(X <= j - 1) <= alpha/2; interval [x_(j), x_(n+1-j)]
  if (n <= 1000) {
    while (j + 1 <= n / 2 && binomial_half_cdf(n, j) <= alpha / 2) ++j;
  } else {
    const double z = normal_quantile(1 - alpha / 2);
    const double half = z * std::sqrt(static_cast<double>(n)) / 2;
    j = static_cast<std::size_t>(std::max(0.0, std::floor(static_cast<double>(n) / 2 - half)));
  }
  if (j == 0) return ci;  // too few samples for this confidence
  ci.available = true;
  ci.lower_rank = j;
  ci.upper_rank = n + 1 - j;
  ci.lower = v[j - 1];
  ci.upper = v[n - j];
  ci.confidence = n <= 1000 ? 1 - 2 * binomial_half_cdf(n, j - 1) : confidence;
  return ci;
}

std::size_t count_outliers(const std::vector<double>& v, double k) {
  if (v.size() < 4) return 0;
  const double q1 = quantile_sorted(v, 0.25), q3 = quantile_sorted(v, 0.75);
  const double low = q1 - k * (q3 - q1), high = q3 + k * (q3 - q1);
  return static_cast<std::size_t>(
      std::count_if(v.begin(), v.end(), [&](double x) { return x < low || x > high; }));
}

double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return quantile_sorted(values, q);
}

SampleSummary summarize(std::vector<double> v, double confidence) {
  SampleSummary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.n = v.size();
  s.min = v.front();
  s.max = v.back();
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  s.median = quantile_sorted(v, 0.5);
  s.p05 = quantile_sorted(v, 0.05);
  s.p25 = quantile_sorted(v, 0.25);
  s.p75 = quantile_sorted(v, 0.75);
  s.p95 = quantile_sorted(v, 0.95);
  s.p99 = quantile_sorted(v, 0.99);
  s.median_ci = median_interval(v, confidence);
  s.outliers = count_outliers(v);
  return s;
}

LevelShift detect_level_shift(const std::vector<double>& in_time_order,
                              double min_relative_change) {
  LevelShift shift;
  const std::size_t half = in_time_order.size() / 2;
  if (half < 6) return shift;
  const auto middle = in_time_order.begin() + static_cast<std::ptrdiff_t>(half);
  std::vector<double> first(in_time_order.begin(), middle), second(middle, in_time_order.end());
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  shift.first_median = quantile_sorted(first, 0.5);
  shift.second_median = quantile_sorted(second, 0.5);
  const MedianInterval a = median_interval(first), b = median_interval(second);
  const bool disjoint = a.upper < b.lower || b.upper < a.lower;
  const double smaller = std::min(shift.first_median, shift.second_median);
  shift.detected =
      disjoint && smaller > 0 &&
      std::fabs(shift.first_median - shift.second_median) > min_relative_change * smaller;
  return shift;
}

}  // namespace mpiscope::core
