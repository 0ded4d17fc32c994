// How many times a kernel is repeated for one message length (IMB guide 5.2.1 and 5.2.8).
#pragma once

#include <cstddef>

namespace mpiscope::core {

// What runs, untimed, before a message length is timed (-warm_up).
enum class WarmUp {
  EveryLength,  // current IMB (2019 and later): the point itself, warm_up_repetitions(n) times
  Imb31,  // IMB 3.1 (guide 5.2.6): N_WARMUP runs of a 4-byte message at a table's first length
  Off,    // nothing
};

// Current IMB's -iter_policy: how the repetition count of a point is chosen.
enum class IterPolicy {
  Imb31,       // IMB 3.1: the volume rule below; cut to -time's limit only when -time is given
  Dynamic,     // the volume rule cut to the time limit (current IMB's default, -time 10 s)
  MultipleNp,  // MSGSPERSAMPLE scaled down along a hyperbola in X, a multiple of the processes
  Auto,        // MultipleNp for rooted collectives, Dynamic for the others
  Off,         // MSGSPERSAMPLE at every length
};

struct RepetitionSettings {
  int msgs_per_sample = 1000;                 // MSGSPERSAMPLE
  std::size_t overall_vol = 40ull * 1048576;  // OVERALL_VOL, bytes
  int msgs_nonaggr = 100;                     // MSGS_NONAGGR
  int n_warmup = 2;                           // N_WARMUP
  int n_barr = 2;                             // N_BARR
  double time_limit_s = 0;                    // -time: seconds per message length; 0 = none
  WarmUp warm_up = WarmUp::EveryLength;
  IterPolicy policy = IterPolicy::Imb31;
  std::size_t max_length = std::size_t{1} << 22;  // 2^max_msg_log: MultipleNp's scale
  // Current IMB: a non-aggregate point gets at most MSGSPERSAMPLE repetitions (its dynamic
  // policy starts every table's count there), so -iter 5 gives 5, not MSGS_NONAGGR's 100.
  bool nonaggregate_within_msgs_per_sample = false;
};

// Current IMB's warm-up count for a point timed with n repetitions: n / 10, at least min(10, n).
int warm_up_repetitions(int repetitions);

// n_sample = MSGSPERSAMPLE for X = 0, else max(1, min(MSGSPERSAMPLE, OVERALL_VOL / X)).
int imb_repetitions(const RepetitionSettings& s, std::size_t bytes, bool aggregate = true);

// The count -iter_policy gives a point of `bytes` on `nprocs` processes, from the count of the
// volume rule (`by_volume`); rooted: a rooted collective (Auto's choice).
int policy_repetitions(const RepetitionSettings& s, int by_volume, std::size_t bytes, int nprocs,
                       bool rooted);
// Whether the count of such a point is then cut to the time limit (-time).
bool policy_limits_time(const RepetitionSettings& s, bool rooted);

// -time: the largest count ≤ limit that fits `time_limit_s` at `seconds_per_repetition`.
int time_limited_repetitions(int limit, double time_limit_s, double seconds_per_repetition);

}  // namespace mpiscope::core
