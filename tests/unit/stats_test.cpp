#include <gtest/gtest.h>

#include "core/stats.hpp"

using namespace mpiscope::core;

TEST(Stats, QuantilesInterpolateBetweenRanks) {
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({5, 1, 3}, 0.5), 3);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.25), 2);
  EXPECT_DOUBLE_EQ(quantile({7}, 0.99), 7);
  EXPECT_THROW(quantile({}, 0.5), std::invalid_argument);
}

TEST(Stats, SummaryOfKnownSample) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const auto s = summarize(v);
  EXPECT_EQ(s.n, 100u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.median, 50.5);
  EXPECT_NEAR(s.p95, 95.05, 1e-9);
}
