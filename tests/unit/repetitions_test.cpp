#include <gtest/gtest.h>

#include "core/repetitions.hpp"

using namespace mpiscope::core;

TEST(ImbRepetitions, MatchesTheGuidesSampleTable) {
  RepetitionSettings s;  // MSGSPERSAMPLE 1000, OVERALL_VOL 40 MB
  EXPECT_EQ(imb_repetitions(s, 0), 1000);
  EXPECT_EQ(imb_repetitions(s, 32768), 1000);
  EXPECT_EQ(imb_repetitions(s, 65536), 640);  // guide sample 1
  EXPECT_EQ(imb_repetitions(s, 1048576), 40);
  EXPECT_EQ(imb_repetitions(s, 4194304), 10);
  EXPECT_EQ(imb_repetitions(s, 100000), 419);  // guide sample 2
  EXPECT_EQ(imb_repetitions(s, 1000000), 41);
  EXPECT_EQ(imb_repetitions(s, std::size_t{1} << 30), 1);  // never below one
}

TEST(ImbRepetitions, NonAggregateUsesMsgsNonaggr) {
  RepetitionSettings s;
  EXPECT_EQ(imb_repetitions(s, 0, false), 100);
  EXPECT_EQ(imb_repetitions(s, 524288, false), 80);
}

TEST(TimeLimitedRepetitions, KeepsWithinLimitAndBounds) {
  EXPECT_EQ(time_limited_repetitions(1000, 0.01, 1e-6), 1000);
  EXPECT_EQ(time_limited_repetitions(1000, 0.01, 1e-4), 100);
  EXPECT_EQ(time_limited_repetitions(1000, 0.01, 1.0), 1);
  EXPECT_EQ(time_limited_repetitions(1000, 0, 1.0), 1000);  // no limit
}

// Current IMB (IMB_warm_up.c of 2019 and later): n / 10, at least 10, never more than n.
TEST(WarmUpRepetitions, ATenthAtLeastTenAtMostAll) {
  EXPECT_EQ(warm_up_repetitions(1000), 100);
  EXPECT_EQ(warm_up_repetitions(640), 64);
  EXPECT_EQ(warm_up_repetitions(100), 10);
  EXPECT_EQ(warm_up_repetitions(40), 10);
  EXPECT_EQ(warm_up_repetitions(10), 10);
  EXPECT_EQ(warm_up_repetitions(6), 6);
  EXPECT_EQ(warm_up_repetitions(1), 1);
}

// Current IMB's -iter_policy (IMB_mem_manager.c / helper_IMB_functions.h of IMB 2021): off is
// MSGSPERSAMPLE everywhere; multiple_np n = round(MSGSPERSAMPLE·M / (P·max(X, 4) + M)) down to a
// multiple of P, at least P; auto is that for rooted collectives and the volume rule otherwise.
TEST(IterPolicy, OffMultipleNpAndAutoAsCurrentImb) {
  RepetitionSettings s;  // MSGSPERSAMPLE 1000, OVERALL_VOL 40 MB, M = 2^22
  const int by_volume = imb_repetitions(s, 1048576);
  EXPECT_EQ(policy_repetitions(s, by_volume, 1048576, 4, true), 40);  // IMB 3.1: the rule
  s.policy = IterPolicy::Dynamic;
  EXPECT_EQ(policy_repetitions(s, by_volume, 1048576, 4, true), 40);
  s.policy = IterPolicy::Off;
  EXPECT_EQ(policy_repetitions(s, by_volume, 1048576, 4, false), 1000);
  s.policy = IterPolicy::MultipleNp;
  // 1000·4194304 / (3·1048576 + 4194304) = 571.4 -> 571 -> 570 (multiple of 3)
  EXPECT_EQ(policy_repetitions(s, by_volume, 1048576, 3, false), 570);
  // X = 0 counts as 4 bytes: 1000·M / (3·4 + M) = 999.997 -> 1000 -> 999
  EXPECT_EQ(policy_repetitions(s, 1000, 0, 3, false), 999);
  s.msgs_per_sample = 2;
  EXPECT_EQ(policy_repetitions(s, 2, 1048576, 4, false), 4);  // at least P
  s.msgs_per_sample = 100;
  s.policy = IterPolicy::Auto;
  EXPECT_EQ(policy_repetitions(s, 8, 131072, 3, true), 90);  // 91.43 -> 91 -> 90
  EXPECT_EQ(policy_repetitions(s, 8, 131072, 3, false), 8);
  // Only the volume-rule policies are then cut to the time limit.
  EXPECT_TRUE(policy_limits_time(s, false));
  EXPECT_FALSE(policy_limits_time(s, true));
  for (auto p : {IterPolicy::Off, IterPolicy::MultipleNp}) {
    s.policy = p;
    EXPECT_FALSE(policy_limits_time(s, false));
  }
  for (auto p : {IterPolicy::Imb31, IterPolicy::Dynamic}) {
    s.policy = p;
    EXPECT_TRUE(policy_limits_time(s, true));
  }
}
