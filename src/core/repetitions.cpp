#include "core/repetitions.hpp"

#include <algorithm>
#include <cmath>

namespace mpiscope::core {

int imb_repetitions(const RepetitionSettings& s, std::size_t bytes, bool aggregate) {
  const int cap = aggregate ? s.msgs_per_sample : s.msgs_nonaggr;
  if (bytes == 0) return cap;
  const std::size_t by_volume = s.overall_vol / bytes;
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(cap, by_volume)));
}

int warm_up_repetitions(int repetitions) {
  constexpr int kFewest = 10;  // IMB 2019+: MIN_WARMUP_ITERS, with WARMUP_PERCENT 10
  return std::max(repetitions / 10, std::min(kFewest, repetitions));
}

int time_limited_repetitions(int limit, double time_limit_s, double seconds_per_repetition) {
  if (time_limit_s <= 0 || seconds_per_repetition <= 0) return limit;
  const double fit = std::floor(time_limit_s / seconds_per_repetition);
  return static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(limit)));
}

}  // namespace mpiscope::core
