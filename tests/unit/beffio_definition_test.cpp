// b_eff_io's definition (paper section 5, Table 2) checked against hand-worked numbers.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "suites/beffio/definition.hpp"

using namespace mpiscope::beffio;

namespace {
constexpr std::size_t KiB = 1024, MiB = 1024 * 1024;
}

TEST(BeffioTable2, PatternsAreNumberedZeroToFortyTwoAndTheTimeUnitsSumToSixtyFour) {
  const auto all = all_patterns(2 * MiB);
  ASSERT_EQ(all.size(), 43u);
  std::map<int, int> units_per_type;
  int total = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].number, static_cast<int>(i));
    units_per_type[all[i].type] += all[i].time_units;
    total += all[i].time_units;
  }
  EXPECT_EQ(total, 64);
  EXPECT_EQ(units_per_type, (std::map<int, int>{{0, 22}, {1, 12}, {2, 10}, {3, 10}, {4, 10}}));
}

TEST(BeffioTable2, ScatterTypeMovesWholeDiskChunksPerCall) {
  const std::size_t m_part = 7 * MiB;
  const auto t0 = patterns_of_type(0, m_part);
  ASSERT_EQ(t0.size(), 9u);
  const std::vector<std::pair<std::size_t, std::size_t>> expected = {{MiB, MiB},
                                                                     {m_part, m_part},
                                                                     {MiB, 2 * MiB},
                                                                     {MiB, MiB},
                                                                     {32 * KiB, MiB},
                                                                     {KiB, MiB},
                                                                     {32 * KiB + 8, MiB + 256},
                                                                     {KiB + 8, MiB + 8 * KiB},
                                                                     {MiB + 8, MiB + 8}};
  for (std::size_t i = 0; i < t0.size(); ++i) {
    EXPECT_EQ(t0[i].disk_chunk, expected[i].first) << i;
    EXPECT_EQ(t0[i].call_bytes, expected[i].second) << i;
    EXPECT_EQ(t0[i].call_bytes % t0[i].disk_chunk, 0u) << i;
  }
  // The +8 patterns scatter the same number of chunks as their well-formed twins.
  EXPECT_EQ(t0[6].call_bytes / t0[6].disk_chunk, t0[4].call_bytes / t0[4].disk_chunk);
  EXPECT_EQ(t0[7].call_bytes / t0[7].disk_chunk, t0[5].call_bytes / t0[5].disk_chunk);
}

TEST(BeffioTable2, SegmentedTypesRepeatTypeTwoAndFillTheSegment) {
  const auto t2 = patterns_of_type(2, 3 * MiB);
  for (int type : {1, 3, 4}) {
    const auto t = patterns_of_type(type, 3 * MiB);
    ASSERT_EQ(t.size(), type == 1 ? 8u : 9u);
    for (std::size_t i = 0; i < 8; ++i) {
      EXPECT_EQ(t[i].disk_chunk, t2[i].disk_chunk);
      EXPECT_EQ(t[i].call_bytes, t[i].disk_chunk);  // L := l
      if (type != 1) {
        EXPECT_EQ(t[i].time_units, t2[i].time_units);
      }
    }
    if (type >= 3) {
      EXPECT_TRUE(t.back().fills_segment);
    }
  }
  EXPECT_EQ(patterns_of_type(3, MiB).back().number, 33);
  EXPECT_EQ(patterns_of_type(4, MiB).front().number, 34);
  EXPECT_EQ(patterns_of_type(4, MiB).back().number, 42);
}

TEST(BeffioDefinition, PartChunkIsAHundredTwentyEighthOfTheNodeAtLeastTwoMiB) {
  EXPECT_EQ(part_chunk(24ULL << 30), 192 * MiB);
  EXPECT_EQ(part_chunk(128 * MiB), 2 * MiB);
  EXPECT_EQ(part_chunk(1ULL << 40), kMaxPartChunk);
}

TEST(BeffioDefinition, PatternTimeIsAThirdOfTTimesUOverSixtyFour) {
  EXPECT_DOUBLE_EQ(scheduled_seconds(900, 4), 18.75);
  EXPECT_DOUBLE_EQ(scheduled_seconds(60, 1), 0.3125);
  EXPECT_DOUBLE_EQ(scheduled_seconds(60, 0), 0);
}

// Worked by hand, M_PART = 2 MiB. Per type, the calls made with chunk l per time unit U,
// averaged over types 0–2, times the pattern's U, rounded up:
//   1 KiB (U 1):  type 0 pattern 5: 30 calls / U 2; type 1 pattern 13: 10 / 1; type 2 pattern 21:
//                 50 / 1  ->  (15 + 10 + 50) / 3 = 25
//   1 MiB (U 2):  type 0 patterns 2, 3: (5 + 7) / (4 + 4); pattern 11: 4 / 2; pattern 19: 3 / 2
//                 ->  (1.5 + 2 + 1.5) / 3 · 2 = 3.33  ->  4
//   one call everywhere else: 32 KiB (0.5 + 1 + 1) / 3 = 0.83 -> 1, M_PART (0.25 + 0.25 + 0.5)
//   / 3 · 2 = 0.67 -> 1, 1 MiB + 8 (0.5 · 2) -> 1; the U = 0 pattern: 1
TEST(BeffioDefinition, SegmentRepetitionsFollowTheEarlierTypes) {
  const std::size_t m_part = 2 * MiB;
  const std::array<std::vector<Pattern>, 3> earlier = {
      patterns_of_type(0, m_part), patterns_of_type(1, m_part), patterns_of_type(2, m_part)};
  std::array<std::vector<long>, 3> calls;
  for (int t = 0; t < 3; ++t) calls[t].assign(earlier[t].size(), 1);
  const auto segmented = patterns_of_type(3, m_part);
  EXPECT_EQ(segment_repetitions(segmented, earlier, calls),
            (std::vector<long>{1, 1, 1, 1, 1, 1, 1, 1, 0}));
  calls[0][5] = 30;  // pattern 5, 1 KiB
  calls[1][4] = 10;  // pattern 13
  calls[2][4] = 50;  // pattern 21
  calls[0][2] = 5;   // pattern 2, 1 MiB
  calls[0][3] = 7;   // pattern 3
  calls[1][2] = 4;   // pattern 11
  calls[2][2] = 3;   // pattern 19
  const auto reps = segment_repetitions(segmented, earlier, calls);
  EXPECT_EQ(reps, (std::vector<long>{1, 1, 4, 1, 25, 1, 1, 1, 0}));
  // 1 MiB + 2 MiB + 4 · 1 MiB + 32 KiB + 25 KiB + 32776 + 1032 + (1 MiB + 8) = 8 MiB + 92184,
  // rounded up to 9 MiB.
  EXPECT_EQ(segment_bytes(segmented, reps), 9 * MiB);
}

TEST(BeffioDefinition, FitSegmentShrinksRepetitionsOnlyWhenNeeded) {
  const auto segmented = patterns_of_type(3, 2 * MiB);
  std::vector<long> reps = {1, 1, 1, 6, 172, 6, 172, 1, 0};
  auto copy = reps;
  EXPECT_FALSE(fit_segment(segmented, copy, 6 * MiB));
  EXPECT_EQ(copy, reps);
  std::vector<long> big = {1, 10, 10, 600, 17200, 600, 17200, 10, 0};
  EXPECT_TRUE(fit_segment(segmented, big, 16 * MiB));
  EXPECT_LE(segment_bytes(segmented, big), 16 * MiB);
  for (std::size_t i = 0; i + 1 < big.size(); ++i) EXPECT_GE(big[i], 1);
}

TEST(BeffioDefinition, TerminationBatchesGrowGeometricallyAndAimAtTheSchedule) {
  EXPECT_EQ(next_batch(0, 0, 1.0, 100), 1);
  EXPECT_EQ(next_batch(1, 0.001, 1.0, 100), 1);  // at most doubles
  EXPECT_EQ(next_batch(4, 0.004, 1.0, 100), 4);  // still doubling
  EXPECT_EQ(next_batch(8, 0.8, 1.0, 100), 2);    // 0.2 s left at 0.1 s per call
  EXPECT_EQ(next_batch(8, 0.79, 1.0, 100), 3);   // rounds up: never stops short
  EXPECT_EQ(next_batch(10, 1.0, 1.0, 100), 0);   // the schedule is over
  EXPECT_EQ(next_batch(5, 0.1, 1.0, 5), 0);      // the cap
  EXPECT_EQ(next_batch(4, 0.004, 1.0, 6), 2);    // up to the cap
  EXPECT_EQ(next_batch(0, 0, 0.0, 100), 0);      // U = 0 would not be time-driven
  // Checks per pattern: about log2 of the calls, not one per call.
  long done = 0, checks = 0;
  for (long b = next_batch(0, 0, 1.0, 1 << 30); b > 0; ++checks) {
    done += b;
    b = next_batch(done, static_cast<double>(done) * 1e-6, 1.0, 1 << 30);
  }
  EXPECT_GE(done, 1000000);
  EXPECT_LE(checks, 25);
}

TEST(BeffioDefinition, WeightsDoubleTheScatterTypeAndHalfTheRead) {
  EXPECT_DOUBLE_EQ(method_bandwidth({1, 2, 3, 4, 5}), 16.0 / 6.0);
  EXPECT_DOUBLE_EQ(partition_bandwidth(100, 200, 400), 275);
  EXPECT_DOUBLE_EQ(type_bandwidth({3.0 * 1048576, 1.5}), 2.0);
  EXPECT_DOUBLE_EQ(type_bandwidth({100, 0}), 0);
}

TEST(BeffioDefinition, SizesTakeBinarySuffixes) {
  EXPECT_EQ(parse_size("4G"), 4ULL << 30);
  EXPECT_EQ(parse_size("512M"), 512ULL << 20);
  EXPECT_EQ(parse_size("64k"), 65536u);
  EXPECT_EQ(parse_size("1.5MiB"), 1572864u);
  EXPECT_EQ(parse_size("1048576"), 1048576u);
  EXPECT_EQ(parse_size("0"), 0u);
  for (const char* bad : {"abc", "-1", "4X", "", "1e30G"})
    EXPECT_THROW(parse_size(bad), std::invalid_argument) << bad;
}

TEST(BeffioDefinition, SizesPrintAsTable2WritesThem) {
  EXPECT_EQ(format_size(MiB + 8), "1 MiB + 8 B");
  EXPECT_EQ(format_size(MiB + 8 * KiB), "1 MiB + 8 KiB");
  EXPECT_EQ(format_size(MiB + 256), "1 MiB + 256 B");
  EXPECT_EQ(format_size(32 * KiB + 8), "32 KiB + 8 B");
  EXPECT_EQ(format_size(KiB + 8), "1 KiB + 8 B");
  EXPECT_EQ(format_size(32 * KiB), "32 KiB");
  EXPECT_EQ(format_size(192 * MiB), "192 MiB");
  EXPECT_EQ(format_size(1000), "1000 B");
}

TEST(BeffioDefinition, FigureNamesReadBack) {
  const auto k = parse_figure_name(figure_name(4, Method::Rewrite, 3, "b_eff_io"));
  EXPECT_EQ(figure_name(4, Method::Rewrite, 3, "b_eff_io"), "np4.rewrite.type3.b_eff_io");
  EXPECT_EQ(k.nprocs, 4);
  EXPECT_EQ(k.method, 1);
  EXPECT_EQ(k.type, 3);
  EXPECT_EQ(k.what, "b_eff_io");
  const auto m = parse_figure_name(figure_name(12, Method::Read, "bytes"));
  EXPECT_EQ(m.nprocs, 12);
  EXPECT_EQ(m.method, 2);
  EXPECT_EQ(m.type, -1);
  EXPECT_EQ(m.what, "bytes");
  const auto run = parse_figure_name("b_eff_io");
  EXPECT_EQ(run.nprocs, 0);
  EXPECT_EQ(run.what, "b_eff_io");
}
