// b_eff's arithmetic (paper, sec. 4) on hand-worked numbers: lengths, L_max, the loop-length
// rule, the bandwidth formula and the averaging into b_eff and the Table 1 columns.
#include <gtest/gtest.h>

#include <cmath>

#include "suites/beff/analysis.hpp"

using namespace mpiscope::beff;

TEST(BeffLengths, TwentyOneLengthsUpToLmax) {
  const auto l = message_lengths(8192);
  ASSERT_EQ(l.size(), 21u);
  for (int i = 0; i < 13; ++i) EXPECT_EQ(l[static_cast<std::size_t>(i)], std::size_t{1} << i);
  EXPECT_EQ(l[13], 4467u);  // 4096 * 2^(1/8) = 4466.8
  EXPECT_EQ(l[20], 8192u);
  for (std::size_t i = 1; i < l.size(); ++i) EXPECT_GT(l[i], l[i - 1]);
  // L_max = 4096 * 256: the geometric steps are exact doublings.
  const auto m = message_lengths(std::size_t{1} << 20);
  for (int k = 1; k <= 8; ++k)
    EXPECT_EQ(m[static_cast<std::size_t>(12 + k)], std::size_t{4096} << k);
  EXPECT_THROW(message_lengths(4000), std::invalid_argument);
}

TEST(BeffLengths, LmaxIsAHundredTwentyEighthOfTheMemoryAtMost128MiB) {
  EXPECT_EQ(max_message_length(1048576.0), 8192u);
  EXPECT_EQ(max_message_length(1e9), 7812500u);
  EXPECT_EQ(max_message_length(64.0 * 1073741824.0), std::size_t{128} << 20);
}

TEST(BeffLoops, LooplengthAimsAtTheMiddleOfTheWindow) {
  const LoopWindow w;                              // 2.5–5 ms: target 3.75 ms
  EXPECT_EQ(looplength_for(300, 1.5e-3, w), 300);  // would be 750: at most 300
  EXPECT_EQ(looplength_for(300, 7.5e-3, w), 150);
  EXPECT_EQ(looplength_for(100, 3.75e-3, w), 100);
  EXPECT_EQ(looplength_for(1, 10.0, w), 1);  // at least 1
  EXPECT_EQ(looplength_for(10, 0.0, w), 300);
}

TEST(BeffFigures, BandwidthFormula) {
  // L * messages * looplength / time: 1000 B * 4 * 10 / 1 ms = 40e6 B/s = 40 MB/s.
  EXPECT_DOUBLE_EQ(bandwidth_mb_s(1000, 4, 10, 1e-3), 40.0);
  EXPECT_DOUBLE_EQ(logavg({2.0, 8.0}), 4.0);
  EXPECT_DOUBLE_EQ(logavg({5.0}), 5.0);
  EXPECT_THROW(logavg({1.0, 0.0}), std::invalid_argument);
}

TEST(BeffFigures, BeffIsTheLogAverageOfRingAndRandomAverages) {
  auto constant = [](const std::string& name, PatternKind kind, double value, double at_lmax) {
    PatternBest b{name, kind, std::vector<double>(21, value)};
    b.best_mb_s.back() = at_lmax;
    return b;
  };
  std::vector<PatternBest> patterns;
  // Rings: averages (20*100 + 310)/21 = 110 and (20*200 + 620)/21 = 220, four more at 110.
  patterns.push_back(constant("ring-1", PatternKind::Ring, 100, 310));
  patterns.push_back(constant("ring-2", PatternKind::Ring, 200, 620));
  for (int i = 3; i <= 6; ++i)
    patterns.push_back(constant("ring-" + std::to_string(i), PatternKind::Ring, 100, 310));
  // Random: averages 440 and 440.
  patterns.push_back(constant("random-1", PatternKind::Random, 400, 1240));
  patterns.push_back(constant("random-2", PatternKind::Random, 400, 1240));
  // Analysis patterns never enter b_eff.
  patterns.push_back(constant("ping-pong", PatternKind::Analysis, 1e6, 1e6));
  const Figures f = compute_figures(patterns, 8);
  const double ring = std::pow(110.0 * 110 * 110 * 110 * 110 * 220, 1.0 / 6);
  EXPECT_NEAR(patterns[0].average(), 110.0, 1e-9);
  EXPECT_NEAR(f.ring_logavg, ring, 1e-9);
  EXPECT_NEAR(f.random_logavg, 440.0, 1e-9);
  EXPECT_NEAR(f.b_eff, std::sqrt(ring * 440.0), 1e-9);
  EXPECT_NEAR(f.per_process(f.b_eff), std::sqrt(ring * 440.0) / 8, 1e-9);
  const double ring_lmax = std::pow(310.0 * 310 * 310 * 310 * 310 * 620, 1.0 / 6);
  EXPECT_NEAR(f.ring_at_lmax, ring_lmax, 1e-9);
  EXPECT_NEAR(f.b_eff_at_lmax, std::sqrt(ring_lmax * 1240.0), 1e-9);
}

TEST(BeffFigures, AveragesAtEveryLengthLatenciesAndBalanceFactor) {
  // Two lengths (1 byte, L_max); 4 messages and 2 steps per process in one iteration.
  const PatternBest ring1{"ring-1", PatternKind::Ring, {2.0, 10.0}, 4, 2};
  const PatternBest ring2{"ring-2", PatternKind::Ring, {8.0, 10.0}, 4, 2};
  const PatternBest random1{"random-1", PatternKind::Random, {4.0, 40.0}, 4, 2};
  const Figures f = compute_figures({ring1, ring2, random1}, 4);
  ASSERT_EQ(f.b_eff_by_length.size(), 2u);
  EXPECT_NEAR(f.ring_by_length[0], 4.0, 1e-12);  // logavg(2, 8)
  EXPECT_NEAR(f.random_by_length[1], 40.0, 1e-12);
  EXPECT_NEAR(f.b_eff_by_length[0], 4.0, 1e-12);
  EXPECT_NEAR(f.b_eff_by_length[1], 20.0, 1e-12);  // logavg(10, 40)
  EXPECT_NEAR(f.b_eff_at_lmax, 20.0, 1e-12);
  // 1 byte at 4 MB/s over 4 processes: 1 MB/s per process, 1 microsecond.
  EXPECT_NEAR(f.latency_us(), 1.0, 1e-12);
  EXPECT_NEAR(f.ring_latency_us(), 1.0, 1e-12);
  // ring-1 at 1 byte: 4 messages at 2 MB/s, 2 us per iteration, 2 steps: 1 us per step.
  EXPECT_NEAR(ring1.latency_us(), 1.0, 1e-12);
  // 1000 MB/s against 1000 Gflop/s: 1e9 bytes/s / 1e12 flop/s.
  EXPECT_NEAR(balance_factor(1000, 1000), 1e-3, 1e-15);
}
