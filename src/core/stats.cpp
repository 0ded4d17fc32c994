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
}  // namespace

double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return quantile_sorted(values, q);
}

SampleSummary summarize(std::vector<double> v) {
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
  return s;
}

}  // namespace mpiscope::core
