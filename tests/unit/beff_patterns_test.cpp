// b_eff's patterns against the paper (sec. 4): the six ring partitions for every size from 2 to
// 64, the uniformity and reproducibility of the random permutations, the Cartesian grids, and
// that every pattern's sends and receives pair up.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "suites/beff/patterns.hpp"

using namespace mpiscope::beff;

namespace {

int sum(const std::vector<int>& v) {
  int s = 0;
  for (int x : v) s += x;
  return s;
}

// All rings of `standard` except a tail of rings all of one size from `tail_sizes` whose count is
// at most `max_tail` (the paper's "except the last rings, that may have the sizes …").
bool standard_with_tail(const std::vector<int>& rings, int standard,
                        const std::map<int, int>& max_tail) {
  std::size_t i = 0;
  while (i < rings.size() && rings[i] == standard) ++i;
  if (i == rings.size()) return true;
  const int tail = rings[i];
  const auto it = max_tail.find(tail);
  if (it == max_tail.end()) return false;
  const auto count = static_cast<int>(rings.size() - i);
  return count <= it->second && std::all_of(rings.begin() + static_cast<long>(i), rings.end(),
                                            [&](int r) { return r == tail; });
}

}  // namespace

TEST(BeffRings, StandardSizesFollowThePaper) {
  EXPECT_EQ(standard_ring_sizes(64), (std::vector<int>{2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(standard_ring_sizes(100), (std::vector<int>{2, 4, 8, 25, 50, 100}));
  EXPECT_EQ(standard_ring_sizes(200), (std::vector<int>{2, 4, 8, 50, 100, 200}));
  EXPECT_EQ(standard_ring_sizes(5), (std::vector<int>{2, 4, 5, 5, 5, 5}));
  EXPECT_EQ(standard_ring_sizes(2), (std::vector<int>{2, 2, 2, 2, 2, 2}));
}

TEST(BeffRings, PaperExamples) {
  // "if MPI_COMM_WORLD has 7 processes, then the processes with the ranks 0 & 1 form the first
  // ring, 2 & 3 form the second ring, and 4 & 5 & 6 form the third ring."
  EXPECT_EQ(ring_pattern_sizes(7, 0), (std::vector<int>{2, 2, 3}));
  EXPECT_EQ(ring_pattern_sizes(7, 1), (std::vector<int>{7}));  // "<= 7: one ring"
  EXPECT_EQ(ring_pattern_sizes(9, 1), (std::vector<int>{4, 5}));
  EXPECT_EQ(ring_pattern_sizes(10, 1), (std::vector<int>{5, 5}));
  EXPECT_EQ(ring_pattern_sizes(11, 1), (std::vector<int>{4, 4, 3}));
  EXPECT_EQ(ring_pattern_sizes(29, 2), (std::vector<int>{8, 7, 7, 7}));
  EXPECT_EQ(ring_pattern_sizes(36, 2), (std::vector<int>{9, 9, 9, 9}));
  EXPECT_EQ(ring_pattern_sizes(64, 3), (std::vector<int>{16, 16, 16, 16}));
  EXPECT_EQ(ring_pattern_sizes(64, 4), (std::vector<int>{32, 32}));
  EXPECT_EQ(ring_pattern_sizes(40, 3), (std::vector<int>{20, 20}));  // 40/16 + 0.4 -> 2 rings
  EXPECT_EQ(ring_pattern_sizes(40, 4), (std::vector<int>{40}));
  EXPECT_EQ(describe_rings({4, 4, 3}), "2*4+1*3");
}

TEST(BeffRings, EverySizeFrom2To64FollowsThePaper) {
  for (int n = 2; n <= 64; ++n) {
    SCOPED_TRACE("size " + std::to_string(n));
    const auto standards = standard_ring_sizes(n);
    for (int idx = 0; idx < 6; ++idx) {
      SCOPED_TRACE("ring pattern " + std::to_string(idx + 1));
      const auto rings = ring_pattern_sizes(n, idx);
      // A partition of all processes into rings of at least 2.
      EXPECT_EQ(sum(rings), n);
      for (int r : rings) EXPECT_GE(r, 2);
      // Balanced: at most two sizes, one apart; the odd-sized rings last.
      const auto [lo, hi] = std::minmax_element(rings.begin(), rings.end());
      EXPECT_LE(*hi - *lo, 1);
      bool seen_odd = false;
      for (int r : rings) {
        if (r % 2 == 1) seen_odd = true;
        if (seen_odd && *lo != *hi) {
          EXPECT_EQ(r % 2, 1) << "an even ring after an odd one";
        }
      }
      // The number of rings: the standard size's share, rounded up from .6 (b_eff.c).
      const int s = standards[static_cast<std::size_t>(idx)];
      const int count = static_cast<int>(rings.size());
      if (!(idx == 1 && n <= 7) && count > 1 && count < n / 2) {
        EXPECT_LE(count, static_cast<double>(n) / s + 0.4);
        EXPECT_GT(count, static_cast<double>(n) / s - 0.6);
      }
    }
    // 1: rings of 2, the last of 2 or 3.
    EXPECT_TRUE(standard_with_tail(ring_pattern_sizes(n, 0), 2, {{3, 1}}));
    EXPECT_EQ(ring_pattern_sizes(n, 0).back(), n % 2 == 0 ? 2 : 3);
    // 2: rings of 4, the last ones 1*3, 1*5 or 2*5; one ring up to 7 processes.
    if (n <= 7) {
      EXPECT_EQ(ring_pattern_sizes(n, 1), std::vector<int>{n});
    } else {
      EXPECT_TRUE(standard_with_tail(ring_pattern_sizes(n, 1), 4, {{3, 1}, {5, 2}}));
    }
    // 3: rings of 8, the last ones 3*7 … 1*7 or 1*9 … 4*9, from 29 processes on.
    if (n >= 29) {
      EXPECT_TRUE(standard_with_tail(ring_pattern_sizes(n, 2), 8, {{7, 3}, {9, 4}}));
    }
    if (n <= 12) {
      EXPECT_EQ(ring_pattern_sizes(n, 2), std::vector<int>{n});
    }
    // 4 and 5: one ring while the standard size is the whole machine.
    if (n <= 16) {
      EXPECT_EQ(ring_pattern_sizes(n, 3), std::vector<int>{n});
    }
    if (n <= 32) {
      EXPECT_EQ(ring_pattern_sizes(n, 4), std::vector<int>{n});
    }
    // 6: one ring of all processes.
    EXPECT_EQ(ring_pattern_sizes(n, 5), std::vector<int>{n});
  }
}

TEST(BeffRandom, PermutationsAreValidAndReproducible) {
  const auto a = random_permutations(16, 12345, 10);
  const auto b = random_permutations(16, 12345, 10);
  const auto c = random_permutations(16, 12346, 10);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (const auto& p : a) {
    std::vector<int> sorted = p;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < 16; ++i) EXPECT_EQ(sorted[static_cast<std::size_t>(i)], i);
  }
  // Fixed numbers: the generator must not depend on the standard library.
  SeededRandom r(0);
  EXPECT_EQ(r.next(), 0xE220A8397B1DCDAFULL);  // SplitMix64's first output for seed 0
}

// Pearson's chi-square of counts against equal expectation.
double chi_square(const std::map<std::vector<int>, int>& counts, int categories, int draws) {
  const double expected = static_cast<double>(draws) / categories;
  double x2 = 0;
  for (const auto& [perm, c] : counts) x2 += (c - expected) * (c - expected) / expected;
  x2 += (categories - static_cast<int>(counts.size())) * expected;  // never drawn
  return x2;
}

TEST(BeffRandom, PermutationsAreUniform) {
  // All n! orders equally likely: chi-square below the 0.1 % critical value (fixed seeds, so the
  // test is deterministic; a biased shuffle such as b_eff.c's linear probing fails it).
  struct Case {
    int n, categories;
    double critical;  // chi-square, df = n! - 1, p = 0.001
  };
  for (const Case k : {Case{3, 6, 20.52}, Case{4, 24, 49.73}}) {
    for (std::uint64_t seed : {1ULL, 2ULL, 99ULL}) {
      const int draws = 600 * k.categories;
      std::map<std::vector<int>, int> counts;
      for (const auto& p : random_permutations(k.n, seed, draws)) ++counts[p];
      EXPECT_EQ(static_cast<int>(counts.size()), k.categories);
      EXPECT_LT(chi_square(counts, k.categories, draws), k.critical)
          << "n=" << k.n << " seed=" << seed;
    }
  }
  // Every value equally likely at every position for n = 8 (df = 7 per position: 24.32).
  const int draws = 8000;
  std::vector<std::vector<int>> at(8, std::vector<int>(8, 0));
  for (const auto& p : random_permutations(8, 7, draws))
    for (std::size_t pos = 0; pos < 8; ++pos) ++at[pos][static_cast<std::size_t>(p[pos])];
  for (const auto& row : at) {
    double x2 = 0;
    for (int c : row) x2 += (c - draws / 8.0) * (c - draws / 8.0) / (draws / 8.0);
    EXPECT_LT(x2, 24.32);
  }
}

TEST(BeffRandom, BoundedDrawsStayInRange) {
  SeededRandom r(5);
  std::vector<int> hits(3, 0);
  for (int i = 0; i < 3000; ++i) {
    const auto x = r.below(3);
    ASSERT_LT(x, 3u);
    ++hits[x];
  }
  for (int h : hits) EXPECT_NEAR(h, 1000, 150);
}

TEST(BeffCartesian, GridsFollowBeffRules) {
  EXPECT_EQ(balanced_dims(4, 2), (std::vector<int>{2, 2}));
  EXPECT_EQ(balanced_dims(6, 2), (std::vector<int>{3, 2}));
  EXPECT_EQ(balanced_dims(12, 3), (std::vector<int>{3, 2, 2}));
  EXPECT_EQ(balanced_dims(16, 3), (std::vector<int>{4, 2, 2}));
  EXPECT_EQ(balanced_dims(7, 2), (std::vector<int>{7, 1}));
  EXPECT_EQ(balanced_dims(64, 3), (std::vector<int>{4, 4, 4}));
  auto grid = [](int n, int d) {
    const auto g = cartesian_grid(n, d);
    return std::make_pair(g.processes, g.dims);
  };
  EXPECT_EQ(grid(2, 2), std::make_pair(2, std::vector<int>{2, 1}));
  EXPECT_EQ(grid(3, 2), std::make_pair(3, std::vector<int>{3, 1}));
  EXPECT_EQ(grid(5, 2), std::make_pair(4, std::vector<int>{2, 2}));
  EXPECT_EQ(grid(7, 2), std::make_pair(6, std::vector<int>{3, 2}));
  EXPECT_EQ(grid(4, 3), std::make_pair(4, std::vector<int>{2, 2, 1}));
  EXPECT_EQ(grid(9, 3), std::make_pair(8, std::vector<int>{2, 2, 2}));
}

TEST(BeffPatterns, SendsAndReceivesPairUpAtEverySize) {
  for (int n = 2; n <= 64; ++n) {
    for (const auto& p : all_patterns(n, 2024, 3)) {
      SCOPED_TRACE(p.name + " at size " + std::to_string(n));
      ASSERT_EQ(static_cast<int>(p.steps.size()), n);
      // (step, sender, receiver) seen from the senders and from the receivers.
      std::multiset<std::tuple<std::size_t, int, int>> sent, received;
      for (int r = 0; r < n; ++r) {
        const auto& steps = p.steps[static_cast<std::size_t>(r)];
        std::set<int> dests;
        for (std::size_t s = 0; s < steps.size(); ++s) {
          if (steps[s].dest != Step::kNone) {
            EXPECT_NE(steps[s].dest, r);
            EXPECT_TRUE(dests.insert(steps[s].dest).second) << "two messages to one rank";
            sent.insert({s, r, steps[s].dest});
          }
          if (steps[s].source != Step::kNone) received.insert({s, steps[s].source, r});
        }
      }
      EXPECT_EQ(sent, received);
      EXPECT_EQ(static_cast<int>(sent.size()), p.messages());
      EXPECT_LE(p.max_steps(), 6);
    }
  }
}

TEST(BeffPatterns, MessageCountsOfHandWorkedCases) {
  const auto patterns = all_patterns(5, 1, 2);
  auto find = [&](const std::string& name) {
    return *std::find_if(patterns.begin(), patterns.end(),
                         [&](const Pattern& p) { return p.name == name; });
  };
  // 5 processes: rings 2+3. The pair exchanges once, the ring of 3 both ways: 2 + 6 messages.
  EXPECT_EQ(find("ring-1").messages(), 8);
  EXPECT_EQ(find("ring-6").messages(), 10);
  EXPECT_EQ(find("random-2").messages(), 10);
  // Bisections: ranks 0-3 in pairs, rank 4 idle.
  EXPECT_EQ(find("best-bisection").messages(), 4);
  EXPECT_FALSE(find("best-bisection").participates(4));
  EXPECT_EQ(find("worst-bisection").steps[0][0].dest, 3);
  EXPECT_EQ(find("ping-pong").messages(), 2);
  EXPECT_TRUE(find("ping-pong").sendrecv_only);
  EXPECT_FALSE(find("ping-pong").participates(2));
  // 2x2 grid over ranks 0-3: each direction of extent 2 keeps one exchange per neighbour.
  EXPECT_EQ(find("cart-2d-x").messages(), 4);
  EXPECT_EQ(find("cart-2d-all").messages(), 8);
  EXPECT_EQ(find("worst-cycle").description, "ring over order 0 4 1 3 2");
  // The pattern list: 6 rings, 2 random, then the analysis patterns.
  std::vector<std::string> names;
  for (const auto& p : patterns) names.push_back(p.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"ring-1", "ring-2", "ring-3", "ring-4", "ring-5", "ring-6",
                                      "random-1", "random-2", "worst-cycle", "best-bisection",
                                      "worst-bisection", "cart-2d-x", "cart-2d-y", "cart-2d-all",
                                      "cart-3d-x", "cart-3d-y", "cart-3d-all", "ping-pong"}));
}
