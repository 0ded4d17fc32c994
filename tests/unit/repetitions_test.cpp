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
