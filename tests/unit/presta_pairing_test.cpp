// PRESTA's pairing rules against the README's hand-worked examples and small cases worked by hand.
#include <gtest/gtest.h>

#include "suites/presta/pairing.hpp"

using namespace mpiscope::presta;

namespace {
Pairing block(int n, int t = 0, bool nearest = false) {
  return {n, t, Allocation::kBlock, nearest};
}
Pairing cyclic(int n, int t, bool nearest = false) {
  return {n, t, Allocation::kCyclic, nearest};
}
using Pairs = std::vector<RankPair>;
}  // namespace

TEST(PrestaPairing, DefaultPartnerIsRankPlusHalfTheWorld) {
  const auto p = block(8);
  for (int r = 0; r < 8; ++r) EXPECT_EQ(partner(r, p), (r + 4) % 8) << r;
}

TEST(PrestaPairing, OddWorldLeavesItsLastRankIdle) {
  const auto p = block(5);
  EXPECT_EQ(paired_size(p), 4);
  EXPECT_EQ(active_pairs(4, p), (Pairs{{0, 2}, {1, 3}}));
  EXPECT_EQ(default_process_counts(p), (std::vector<int>{2, 4}));
}

// README: "an iteration for 4 processes of a 16 process job with 8 processes per SMP would
// include the rank pairs (0,8) and (1,9)".
TEST(PrestaPairing, ReadmeBlockExample) {
  EXPECT_EQ(active_pairs(4, block(16, 8)), (Pairs{{0, 8}, {1, 9}}));
  EXPECT_EQ(active_pairs(4, block(16)), (Pairs{{0, 8}, {1, 9}}));
}

// README: "an iteration for 8 processes of a 32 process job with 8 processes per SMP would
// include rank pairs (0,16), (8,24), (1,17), and (9,25)".
TEST(PrestaPairing, ReadmeCyclicExample) {
  const auto p = cyclic(32, 8);
  EXPECT_TRUE(cyclic_in_effect(p));
  EXPECT_EQ(active_pairs(8, p), (Pairs{{0, 16}, {8, 24}, {1, 17}, {9, 25}}));
  EXPECT_EQ(active_ranks(8, p), (std::vector<int>{0, 1, 8, 9, 16, 17, 24, 25}));
}

TEST(PrestaPairing, CyclicVisitsEverySmpOfTheLowerHalfInTurn) {
  // 48 processes, 8 per SMP: lower half = SMPs 0, 1, 2 (ranks 0-23).
  const auto pairs = active_pairs(12, cyclic(48, 8));
  EXPECT_EQ(pairs, (Pairs{{0, 24}, {8, 32}, {16, 40}, {1, 25}, {9, 33}, {17, 41}}));
}

TEST(PrestaPairing, CyclicCoversEveryRankOnceAtFullSize) {
  const auto ranks = active_ranks(32, cyclic(32, 8));
  std::vector<int> all(32);
  for (int i = 0; i < 32; ++i) all[static_cast<std::size_t>(i)] = i;
  EXPECT_EQ(ranks, all);
}

// -r: partner = the rank ppn away within an SMP pair; pairs fill the lower SMP of each SMP pair.
TEST(PrestaPairing, NearbyRankPartnering) {
  const auto p = block(32, 8, true);
  EXPECT_EQ(partner(0, p), 8);
  EXPECT_EQ(partner(8, p), 0);
  EXPECT_EQ(partner(15, p), 7);
  EXPECT_EQ(partner(16, p), 24);
  EXPECT_EQ(partner(31, p), 23);
  const auto pairs = active_pairs(20, p);
  ASSERT_EQ(pairs.size(), 10u);
  EXPECT_EQ(pairs[0], (RankPair{0, 8}));
  EXPECT_EQ(pairs[7], (RankPair{7, 15}));
  EXPECT_EQ(pairs[8], (RankPair{16, 24}));
  EXPECT_EQ(pairs[9], (RankPair{17, 25}));
}

TEST(PrestaPairing, NearbyRankCyclic) {
  // 32 processes, 8 per SMP: SMP pairs (0,1) and (2,3); one process per SMP first.
  EXPECT_EQ(active_pairs(8, cyclic(32, 8, true)), (Pairs{{0, 8}, {16, 24}, {1, 9}, {17, 25}}));
  // Small enough to check by hand on 8 oversubscribed ranks: 2 per SMP.
  EXPECT_EQ(active_pairs(8, cyclic(8, 2, true)), (Pairs{{0, 2}, {4, 6}, {1, 3}, {5, 7}}));
}

TEST(PrestaPairing, DefaultProcessCounts) {
  // One pair more each step.
  EXPECT_EQ(default_process_counts(block(8)), (std::vector<int>{2, 4, 6, 8}));
  // Configuration 3 (-t, block): 2 x ppn first, then two SMPs more each step.
  EXPECT_EQ(default_process_counts(block(32, 8)), (std::vector<int>{16, 32}));
  EXPECT_EQ(default_process_counts(block(20, 4)), (std::vector<int>{8, 16, 20}));
  EXPECT_EQ(default_process_counts(block(4, 8)), (std::vector<int>{4}));
  // Configuration 4 (-t, cyclic): as many processes as SMPs, then that many more each step.
  EXPECT_EQ(default_process_counts(cyclic(32, 8)),
            (std::vector<int>{4, 8, 12, 16, 20, 24, 28, 32}));
  EXPECT_EQ(default_process_counts(cyclic(8, 2)), (std::vector<int>{4, 8}));
}

TEST(PrestaPairing, RejectsCombinationsThatCannotPair) {
  EXPECT_EQ(pairing_error(block(8)), "");
  EXPECT_EQ(pairing_error(cyclic(32, 8)), "");
  EXPECT_NE(pairing_error(block(1)).find("at least 2 processes"), std::string::npos);
  EXPECT_NE(pairing_error(cyclic(8, 0)).find("needs the processes per SMP (-t)"),
            std::string::npos);
  EXPECT_NE(pairing_error(cyclic(16, 8)).find("more than 2 x 8 processes"), std::string::npos);
  EXPECT_NE(pairing_error(block(8, 0, true)).find("-r) needs the processes per SMP"),
            std::string::npos);
  EXPECT_NE(pairing_error(block(12, 4, true)).find("not a whole number of SMP pairs"),
            std::string::npos);
  EXPECT_NE(pairing_error(cyclic(24, 8)).find("not a whole number of SMP pairs"),
            std::string::npos);
}

TEST(PrestaPairing, ProcessCountFile) {
  const auto p = block(8);
  EXPECT_EQ(parse_process_counts("# counts\n2\n\n  8 \n4\n", "f", p), (std::vector<int>{2, 8, 4}));
  auto message = [&](const std::string& text) {
    try {
      parse_process_counts(text, "counts.txt", p);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("2\nfour\n"), "counts.txt:2: 'four' is not a process count");
  EXPECT_EQ(message("3\n"), "counts.txt:1: process count 3 is not an even number of at least 2");
  EXPECT_EQ(message("0\n"), "counts.txt:1: process count 0 is not an even number of at least 2");
  EXPECT_EQ(message("10\n"),
            "counts.txt:1: process count 10 exceeds the 8 processes that can be paired");
  EXPECT_EQ(message("# nothing\n"), "counts.txt contains no process count");
}

TEST(PrestaPairing, MessageSizes) {
  EXPECT_EQ(message_sizes(32, 256, 2), (std::vector<long long>{32, 64, 128, 256}));
  EXPECT_EQ(message_sizes(32, 300, 4), (std::vector<long long>{32, 128}));
  EXPECT_EQ(message_sizes(0, 4, 2), (std::vector<long long>{0, 1, 2, 4}));
  EXPECT_EQ(message_sizes(32, 8388608, 2).size(), 19u);  // the defaults: 2^5 … 2^23
}
