// The statistics, stopping rule and clock model of accurate mode, on synthetic samples with
// known distributions.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/accurate.hpp"
#include "core/clock_model.hpp"
#include "core/stats.hpp"
#include "core/stopping.hpp"

using namespace mpiscope::core;

namespace {
std::vector<double> sorted_sequence(int n) {
  std::vector<double> v;
  for (int i = 1; i <= n; ++i) v.push_back(i);
  return v;
}
}  // namespace

// Order statistics of the binomial(n, 1/2) interval, from published tables (e.g. Conover,
// Practical Nonparametric Statistics): n = 6 -> (1, 6), 10 -> (2, 9), 20 -> (6, 15), 100 -> (40,
// 61).
TEST(MedianInterval, MatchesTheBinomialTables) {
  struct Case {
    int n;
    std::size_t j, k;
  };
  for (const Case c : {Case{6, 1, 6}, Case{10, 2, 9}, Case{20, 6, 15}, Case{100, 40, 61}}) {
    const auto ci = median_interval(sorted_sequence(c.n));
    ASSERT_TRUE(ci.available) << c.n;
    EXPECT_EQ(ci.lower_rank, c.j) << c.n;
    EXPECT_EQ(ci.upper_rank, c.k) << c.n;
    EXPECT_DOUBLE_EQ(ci.lower, static_cast<double>(c.j));
    EXPECT_GE(ci.confidence, 0.95);
  }
  EXPECT_FALSE(median_interval(sorted_sequence(5)).available);
}

// Coverage, measured: the interval of many samples of a skewed distribution contains the true
// median in about 95 % of the cases (at least 95 % by construction, less than 99 % in practice).
TEST(MedianInterval, CoversTheTrueMedianAsOftenAsItClaims) {
  std::mt19937_64 rng(12345);
  std::lognormal_distribution<double> latency(0.0, 0.5);  // true median exp(0) = 1
  for (int n : {30, 200, 2000}) {
    int covered = 0;
    const int trials = 1000;
    for (int t = 0; t < trials; ++t) {
      std::vector<double> v(static_cast<std::size_t>(n));
      for (auto& x : v) x = latency(rng);
      std::sort(v.begin(), v.end());
      const auto ci = median_interval(v);
      covered += ci.lower <= 1.0 && 1.0 <= ci.upper;
    }
    EXPECT_GE(covered, 935) << n;  // 95 % minus three standard errors of 1000 trials
    EXPECT_LE(covered, 990) << n;
  }
}

TEST(Outliers, CountsOnlyFarOutValues) {
  std::vector<double> v = sorted_sequence(100);
  v.push_back(1000);  // far beyond Q3 + 3 IQR
  v.push_back(160);   // beyond 1.5 IQR but within 3 IQR
  std::sort(v.begin(), v.end());
  EXPECT_EQ(count_outliers(v), 1u);
  EXPECT_EQ(count_outliers(v, 0.5), 2u);
}

TEST(StoppingRule, QuietSamplesConvergeNoisyOnesRunToTheBudget) {
  StoppingRule rule;
  rule.min_repetitions = 20;
  rule.max_repetitions = 1000;
  rule.budget_s = 1.0;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> quiet(100.0, 1.0), noisy(100.0, 60.0);
  auto draw = [&](auto& dist, int n) {
    std::vector<double> v;
    for (int i = 0; i < n; ++i) v.push_back(std::max(1.0, dist(rng)));
    std::sort(v.begin(), v.end());
    return v;
  };
  // Too few valid samples: never converged, whatever their spread.
  EXPECT_EQ(stop_reason(rule, draw(quiet, 19), 19, 0.1), StopReason::Continue);
  EXPECT_EQ(stop_reason(rule, draw(quiet, 20), 20, 0.1), StopReason::Converged);
  EXPECT_EQ(stop_reason(rule, draw(noisy, 50), 50, 0.1), StopReason::Continue);
  EXPECT_EQ(stop_reason(rule, draw(noisy, 50), 50, 1.0), StopReason::Budget);
  EXPECT_EQ(stop_reason(rule, draw(noisy, 50), 1000, 0.1), StopReason::MaxRepetitions);
  // Noisy samples do converge once there are enough of them (relative half-width ~ 1/sqrt(n)).
  EXPECT_EQ(stop_reason(rule, draw(noisy, 20000), 20000, 0.1), StopReason::Converged);
}

// Samples that tie on the timer's ticks give a median interval of width 0; the median is still
// known only to half a tick, and a target finer than that is never met (a 0-byte PingPong was
// "converged" at +-0.0001 % on a 0.03 us timer).
TEST(StoppingRule, TiedTicksDoNotMeetATargetFinerThanTheTimer) {
  StoppingRule rule;
  rule.target_relative_half_width = 1e-6;
  const std::vector<double> tied(200, 0.125e-6);
  EXPECT_EQ(stop_reason(rule, tied, 200, 0.01), StopReason::Converged);  // no resolution given
  EXPECT_EQ(stop_reason(rule, tied, 200, 0.01, 0.03e-6 / 6), StopReason::Continue);
  rule.target_relative_half_width = 0.02;  // 2 %: wider than half a tick (0.0025 / 0.125 us)
  EXPECT_EQ(stop_reason(rule, tied, 200, 0.01, 0.03e-6 / 6), StopReason::Converged);
}

TEST(StoppingRule, BatchesReachTheMinimumThenGrowWithinTheBudget) {
  StoppingRule rule;
  rule.min_repetitions = 20;
  rule.max_repetitions = 100;
  rule.budget_s = 1.0;
  EXPECT_EQ(next_batch_size(rule, 0, 0, 0, 1e-6), 20);
  EXPECT_EQ(next_batch_size(rule, 15, 30, 0, 1e-6), 5);
  EXPECT_EQ(next_batch_size(rule, 40, 40, 0, 1e-6), 20);
  EXPECT_EQ(next_batch_size(rule, 90, 95, 0, 1e-6), 5);      // the maximum
  EXPECT_EQ(next_batch_size(rule, 40, 40, 0.5, 0.0625), 8);  // what 0.5 s left affords
  EXPECT_EQ(next_batch_size(rule, 40, 40, 0.999, 0.01), 1);
  // A large minimum is reached by doubling, not in one batch sized from a fast pilot.
  rule.min_repetitions = 1000;
  rule.max_repetitions = 100000;
  EXPECT_EQ(next_batch_size(rule, 0, 0, 0, 1e-6), 32);
  EXPECT_EQ(next_batch_size(rule, 32, 32, 0, 1e-6), 32);
  EXPECT_EQ(next_batch_size(rule, 60, 64, 0, 1e-6), 64);
  EXPECT_EQ(next_batch_size(rule, 900, 900, 0, 1e-6), 100);
}

// A rank whose clock runs 20 ppm fast and 3 ms ahead, observed through symmetric ping-pongs with
// 1 us jitter: the model recovers offset and drift and maps times to within a microsecond.
TEST(ClockModel, RecoversOffsetAndDriftFromNoisyExchanges) {
  const double offset = -3e-3, drift = -20e-6;  // reference = local + offset + drift·local
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> jitter(-1e-6, 1e-6);
  ClockModel model;
  for (double local = 10.0; local < 15.0; local += 0.25) {
    const double rtt = 4e-6;
    const double reference = local + rtt / 2 + offset + drift * (local + rtt / 2) + jitter(rng);
    model.add(local, reference, local + rtt);
  }
  EXPECT_NEAR(model.drift(), drift, 1e-6);
  for (double local : {12.0, 20.0}) {
    const double truth = local + offset + drift * local;
    EXPECT_NEAR(model.to_global(local), truth, 2e-6) << local;
    EXPECT_NEAR(model.to_local(truth), local, 2e-6) << local;
  }
}

TEST(ClockModel, ShortBaselinesModelAConstantOffset) {
  ClockModel model;
  model.add({1.000, 5e-6});
  model.add({1.001, 7e-6});  // 2 us over 1 ms would read as a 2e-3 drift
  EXPECT_EQ(model.drift(), 0.0);
  EXPECT_NEAR(model.offset(), 6e-6, 1e-12);
}

TEST(ClockModel, ForgetsObservationsOlderThanItsHistory) {
  ClockModel model(10.0);
  model.add({0.0, 1.0});
  model.add({20.0, 2.0});
  EXPECT_EQ(model.size(), 1u);
  EXPECT_DOUBLE_EQ(model.offset(), 2.0);
}

// A VM whose vCPUs move between host cores switches between speeds for seconds at a time (here
// 4x for Allreduce of 1 MiB); a point that straddles a switch must say so. Stationary lognormal
// samples, whatever their spread, must not trip it.
TEST(LevelShift, DetectsAStepAndStaysQuietOnStationarySamples) {
  std::mt19937 rng(7);
  std::lognormal_distribution<double> noise(0.0, 0.3);
  int false_alarms = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> v;
    for (int i = 0; i < 400; ++i) v.push_back(250 * noise(rng));
    false_alarms += detect_level_shift(v, 0.04).detected;
  }
  EXPECT_LE(false_alarms, 4);  // disjoint 95 % intervals: about 1 % of stationary trials

  std::vector<double> step;
  for (int i = 0; i < 200; ++i) step.push_back(250 * noise(rng));
  for (int i = 0; i < 200; ++i) step.push_back(900 * noise(rng));
  const LevelShift s = detect_level_shift(step, 0.04);
  EXPECT_TRUE(s.detected);
  EXPECT_NEAR(s.first_median, 250, 25);
  EXPECT_NEAR(s.second_median, 900, 90);

  // A real but tiny difference below the threshold is not reported.
  std::vector<double> tiny;
  for (int i = 0; i < 2000; ++i)
    tiny.push_back(i < 1000 ? 100.0 + (i % 7) * 0.01 : 101.0 + (i % 7) * 0.01);
  EXPECT_FALSE(detect_level_shift(tiny, 0.04).detected);
  EXPECT_TRUE(detect_level_shift(tiny, 0.005).detected);
  // Too few samples for two intervals.
  EXPECT_FALSE(detect_level_shift({1, 1, 1, 1, 1, 9, 9, 9, 9, 9}, 0.04).detected);
}

// Hoefler & Belli: a timed interval should be long against the timer's resolution. A 0.2 us
// repetition under a 30 ns timer is mostly timer, so 15 of them make a sample; long operations
// are timed one by one; the user's count wins; at most 1000.
TEST(RepetitionsPerSample, MakeASampleLastAHundredTimerResolutions) {
  EXPECT_EQ(repetitions_per_sample(0.2e-6, 30e-9, 0), 15);
  EXPECT_EQ(repetitions_per_sample(3e-6, 30e-9, 0), 1);
  EXPECT_EQ(repetitions_per_sample(280e-6, 30e-9, 0), 1);
  EXPECT_EQ(repetitions_per_sample(1e-9, 30e-9, 0), 1000);
  EXPECT_EQ(repetitions_per_sample(0, 30e-9, 0), 1000);
  EXPECT_EQ(repetitions_per_sample(0.2e-6, 30e-9, 1), 1);
  EXPECT_EQ(repetitions_per_sample(280e-6, 30e-9, 7), 7);
}
