#include "core/repetitions.hpp"

#include <algorithm>
#include <cmath>

namespace mpiscope::core {

int imb_repetitions(const RepetitionSettings& s, std::size_t bytes, bool aggregate) {
  const int cap = aggregate ? s.msgs_per_sample
                  : s.nonaggregate_within_msgs_per_sample
                      ? std::min(s.msgs_nonaggr, s.msgs_per_sample)
                      : s.msgs_nonaggr;
  if (bytes == 0) return cap;
  const std::size_t by_volume = s.overall_vol / bytes;
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(cap, by_volume)));
}

int policy_repetitions(const RepetitionSettings& s, int by_volume, std::size_t bytes, int nprocs,
                       bool rooted) {
  switch (s.policy) {
    case IterPolicy::Off:
      return s.msgs_per_sample;
    case IterPolicy::Auto:
      if (!rooted) return by_volume;
      [[fallthrough]];
    case IterPolicy::MultipleNp: {
      // Current IMB: n = MSGSPERSAMPLE · M / (P·max(X, 4) + M) rounded, M = 2^max_msg_log, then
      // down to a multiple of P and at least P, so that every process is root equally often.
      const double largest = static_cast<double>(s.max_length);
      const double size = static_cast<double>(std::max<std::size_t>(bytes, sizeof(float)));
      const int n = static_cast<int>(s.msgs_per_sample * largest / (nprocs * size + largest) + 0.5);
      return std::max(n - n % nprocs, nprocs);
    }
    default:
      return by_volume;
  }
}

bool policy_limits_time(const RepetitionSettings& s, bool rooted) {
  switch (s.policy) {
    case IterPolicy::Off:
    case IterPolicy::MultipleNp:
      return false;
    case IterPolicy::Auto:
      return !rooted;
    default:
      return true;
  }
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
