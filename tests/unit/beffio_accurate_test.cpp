// b_eff_io's accurate mode: a pattern type's bandwidth from the median call times, worked by hand.
#include <gtest/gtest.h>

#include "suites/beffio/definition.hpp"

using namespace mpiscope::beffio;

namespace {
constexpr std::size_t MiB = 1024 * 1024;

Pattern pattern(std::size_t call_bytes, int units) {
  Pattern p;
  p.call_bytes = p.disk_chunk = call_bytes;
  p.time_units = units;
  return p;
}
}  // namespace

TEST(BeffioAccurateDefinition, TypeBandwidthIsTheScheduleAtTheMedians) {
  // T = 192 s: T_pattern = T/3 · U/64 = U seconds. Two processes.
  const std::vector<Pattern> p = {pattern(MiB, 0), pattern(2 * MiB, 4), pattern(MiB, 2)};
  // 1 MiB per process in 0.01 s (U = 0: one call); 2 MiB per process in 0.02 s for 4 s; 1 MiB
  // per process in 0.004 s for 2 s.
  const TypeTotals t = schedule_at_medians(p, {0.01, 0.02, 0.004}, 192, 2);
  const double bytes = 2 * MiB + (4 * MiB / 0.02) * 4 + (2 * MiB / 0.004) * 2;
  EXPECT_DOUBLE_EQ(t.bytes, bytes);
  EXPECT_DOUBLE_EQ(t.seconds, 0.01 + 4 + 2);
  EXPECT_DOUBLE_EQ(type_bandwidth(t), bytes / 6.01 / kMiBd);
  // The U > 0 patterns weigh by their time: the bandwidth lies between theirs.
  const TypeTotals timed = schedule_at_medians({p[1], p[2]}, {0.02, 0.004}, 192, 2);
  EXPECT_DOUBLE_EQ(type_bandwidth(timed), (4 * 200.0 + 2 * 500.0) / 6);
}

TEST(BeffioAccurateDefinition, PatternsWithoutAValidRepetitionAreLeftOut) {
  const std::vector<Pattern> p = {pattern(MiB, 0), pattern(2 * MiB, 4), pattern(MiB, 2)};
  const TypeTotals some = schedule_at_medians(p, {0.01, 0, 0.004}, 192, 2);
  const TypeTotals without = schedule_at_medians({p[0], p[2]}, {0.01, 0.004}, 192, 2);
  EXPECT_DOUBLE_EQ(some.bytes, without.bytes);
  EXPECT_DOUBLE_EQ(some.seconds, without.seconds);
  // None left: nothing timed, bandwidth 0 (not a division by zero).
  const TypeTotals none = schedule_at_medians(p, {0, 0, 0}, 192, 2);
  EXPECT_EQ(none.seconds, 0);
  EXPECT_EQ(type_bandwidth(none), 0);
}
