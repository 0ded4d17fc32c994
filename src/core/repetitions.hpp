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

struct RepetitionSettings {
  int msgs_per_sample = 1000;                 // MSGSPERSAMPLE
  std::size_t overall_vol = 40ull * 1048576;  // OVERALL_VOL, bytes
  int msgs_nonaggr = 100;                     // MSGS_NONAGGR
  int n_warmup = 2;                           // N_WARMUP
  int n_barr = 2;                             // N_BARR
  double time_limit_s = 0;                    // -time: seconds per message length; 0 = none
  WarmUp warm_up = WarmUp::EveryLength;
};

// Current IMB's warm-up count for a point timed with n repetitions: n / 10, at least min(10, n).
int warm_up_repetitions(int repetitions);

// n_sample = MSGSPERSAMPLE for X = 0, else max(1, min(MSGSPERSAMPLE, OVERALL_VOL / X)).
int imb_repetitions(const RepetitionSettings& s, std::size_t bytes, bool aggregate = true);

// -time: the largest count ≤ limit that fits `time_limit_s` at `seconds_per_repetition`.
int time_limited_repetitions(int limit, double time_limit_s, double seconds_per_repetition);

}  // namespace mpiscope::core
