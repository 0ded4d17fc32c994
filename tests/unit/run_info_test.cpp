#include "core/run_info.hpp"

#include <gtest/gtest.h>

namespace mpiscope::core {
namespace {

TEST(RankRangesByHost, RunsOfConsecutiveRanksBecomeRangesInHostOrder) {
  EXPECT_EQ(rank_ranges_by_host({{"h1", {0, 1}}, {"h2", {2, 3}}, {"h3", {4, 5}}}),
            "h1: 0-1; h2: 2-3; h3: 4-5");
  // Round-robin placement (mpirun --map-by node): no two neighbours share a host.
  EXPECT_EQ(rank_ranges_by_host({{"a", {0, 2, 4}}, {"b", {1, 3, 5}}}), "a: 0, 2, 4; b: 1, 3, 5");
  EXPECT_EQ(rank_ranges_by_host({{"n", {0, 1, 2, 5, 7, 8}}}), "n: 0-2, 5, 7-8");
  EXPECT_EQ(rank_ranges_by_host({{"solo", {0}}}), "solo: 0");
  EXPECT_EQ(rank_ranges_by_host({}), "");
}

}  // namespace
}  // namespace mpiscope::core
