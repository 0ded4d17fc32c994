#include <gtest/gtest.h>

#include "core/process_sets.hpp"

using namespace mpiscope::core;

TEST(ActiveProcessSeries, DoublesFromNpminAndEndsWithAll) {
  EXPECT_EQ(active_process_series(11, 2), (std::vector<int>{2, 4, 8, 11}));  // guide 5.1.1
  EXPECT_EQ(active_process_series(8, 2), (std::vector<int>{2, 4, 8}));
  EXPECT_EQ(active_process_series(6, 2), (std::vector<int>{2, 4, 6}));
  EXPECT_EQ(active_process_series(14, 7), (std::vector<int>{7, 14}));
  EXPECT_EQ(active_process_series(4, 1), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(active_process_series(1, 1), (std::vector<int>{1}));
}

TEST(ActiveProcessSeries, NpminAbovePIsP) {
  EXPECT_EQ(active_process_series(5, 9), (std::vector<int>{5}));
}

TEST(ActiveProcessSeries, RejectsNonPositive) {
  EXPECT_THROW(active_process_series(4, 0), std::invalid_argument);
}

TEST(MapOrder, NumbersRowByRow) {
  // 2x3: column-major matrix [[0 2 4] [1 3 5]], read row by row.
  EXPECT_EQ(map_order(6, 2, 3), (std::vector<int>{0, 2, 4, 1, 3, 5}));
  // 4x2: each rank of the first "node" (0..3) is followed by its counterpart (4..7).
  EXPECT_EQ(map_order(8, 4, 2), (std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_EQ(map_order(3, 3, 1), (std::vector<int>{0, 1, 2}));
}

TEST(MapOrder, RejectsMismatchedSize) {
  EXPECT_THROW(map_order(6, 2, 2), std::invalid_argument);
  EXPECT_THROW(map_order(4, 0, 4), std::invalid_argument);
}

TEST(Layout, PrimaryUsesFirstRanksAndLeavesTheRestWaiting) {
  const auto l = make_layout({0, 1, 2, 3, 4}, 2, false);
  ASSERT_EQ(l.groups.size(), 1u);
  EXPECT_EQ(l.groups[0], (std::vector<int>{0, 1}));
  EXPECT_EQ(l.inactive, 3);
}

TEST(Layout, MultiFormsDisjointGroups) {
  const auto l = make_layout(map_order(6, 2, 3), 2, true);
  ASSERT_EQ(l.groups.size(), 3u);
  EXPECT_EQ(l.groups[0], (std::vector<int>{0, 2}));
  EXPECT_EQ(l.groups[1], (std::vector<int>{4, 1}));
  EXPECT_EQ(l.groups[2], (std::vector<int>{3, 5}));
  EXPECT_EQ(l.inactive, 0);
  const auto odd = make_layout({0, 1, 2, 3, 4}, 2, true);
  EXPECT_EQ(odd.groups.size(), 2u);
  EXPECT_EQ(odd.inactive, 1);
}
