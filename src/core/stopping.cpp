#include "core/stopping.hpp"

#include <algorithm>
#include <cmath>

#include "core/stats.hpp"

namespace mpiscope::core {

const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::Converged:
      return "converged";
    case StopReason::MaxRepetitions:
      return "max-repetitions";
    case StopReason::Budget:
      return "time-budget";
    default:
      return "running";
  }
}

StopReason stop_reason(const StoppingRule& rule, const std::vector<double>& valid_sorted,
                       int attempted, double elapsed_s, double sample_resolution_s) {
  const int valid = static_cast<int>(valid_sorted.size());
  if (valid >= rule.min_repetitions) {
    const MedianInterval ci = median_interval(valid_sorted, rule.confidence);
    const double median = quantile(valid_sorted, 0.5);
    const double half_width =
        std::max(ci.relative_half_width(median), median > 0 ? sample_resolution_s / 2 / median : 0);
    if (ci.available && half_width <= rule.target_relative_half_width) return StopReason::Converged;
  }
  if (attempted >= rule.max_repetitions) return StopReason::MaxRepetitions;
  if (elapsed_s >= rule.budget_s) return StopReason::Budget;
  return StopReason::Continue;
}

int next_batch_size(const StoppingRule& rule, int valid, int attempted, double elapsed_s,
                    double seconds_per_repetition) {
  int batch = valid < rule.min_repetitions ? rule.min_repetitions - valid : std::max(1, valid / 2);
  batch = std::max(batch, 1);
  batch = std::min(batch, rule.max_repetitions - attempted);
  // At most doubling what was attempted so far: a batch sized from fast early repetitions must
  // not run for minutes past the budget when the machine gets loaded mid-point.
  batch = std::min(batch, std::max(32, attempted));
  if (seconds_per_repetition > 0) {
    const double remaining = rule.budget_s - elapsed_s;
    const double affordable = std::floor(remaining / seconds_per_repetition);
    batch = static_cast<int>(std::min<double>(batch, std::max(1.0, affordable)));
  }
  return std::max(batch, 1);
}

}  // namespace mpiscope::core
