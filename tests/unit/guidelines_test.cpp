// The rule of a guideline's verdict (suites/guidelines/verdict.cpp), on made-up medians and
// intervals: violated only when the intervals are apart by more than the tolerance, holds only
// when the collective's interval reaches no further than the tolerance above the mock-up's.
#include <gtest/gtest.h>

#include <set>

#include "suites/guidelines/guidelines.hpp"

using namespace mpiscope;
using guidelines::Verdict;

namespace {

core::Measurement point(double median, double lower, double upper, bool interval = true) {
  core::Measurement m;
  m.measured = true;
  m.bytes = 64;
  core::AccurateStats a;
  a.summary_us.median = median;
  a.summary_us.median_ci.available = interval;
  a.summary_us.median_ci.lower = lower;
  a.summary_us.median_ci.upper = upper;
  m.accurate = a;
  return m;
}

}  // namespace

TEST(GuidelineVerdict, IntervalsApartBeyondTheToleranceViolate) {
  const auto mock_up = point(1.05, 1.0, 1.1);
  auto v = guidelines::verdict(point(2.1, 2.0, 2.2), mock_up, 0.10);
  EXPECT_EQ(v.verdict, Verdict::kViolated);
  EXPECT_NEAR(v.factor, 2.0, 1e-12);
  EXPECT_EQ(v.bytes, 64u);
  // Apart, but by less than the tolerance: 1.2 is not above 1.1 x 1.1 = 1.21.
  EXPECT_EQ(guidelines::verdict(point(1.25, 1.2, 1.3), mock_up, 0.10).verdict,
            Verdict::kCannotTell);
  // The same at no tolerance: violated.
  EXPECT_EQ(guidelines::verdict(point(1.25, 1.2, 1.3), mock_up, 0.0).verdict, Verdict::kViolated);
}

TEST(GuidelineVerdict, HoldsOnlyWhenTheIntervalsShowIt) {
  const auto mock_up = point(1.05, 1.0, 1.1);
  EXPECT_EQ(guidelines::verdict(point(0.5, 0.45, 0.55), mock_up, 0.10).verdict, Verdict::kHolds);
  // Up to the tolerance above the mock-up's lower bound: holds.
  EXPECT_EQ(guidelines::verdict(point(1.05, 1.0, 1.1), mock_up, 0.10).verdict, Verdict::kHolds);
  // A wide interval that reaches past it: cannot tell, and says why.
  const auto wide = guidelines::verdict(point(1.05, 0.5, 3.0), mock_up, 0.10);
  EXPECT_EQ(wide.verdict, Verdict::kCannotTell);
  EXPECT_NE(wide.why.find("overlap"), std::string::npos) << wide.why;
}

TEST(GuidelineVerdict, WithoutIntervalsNothingIsClaimed) {
  const auto mock_up = point(1.05, 1.0, 1.1);
  EXPECT_EQ(guidelines::verdict(point(9, 0, 0, false), mock_up, 0.10).verdict,
            Verdict::kCannotTell);
  core::Measurement classic;  // measured, but not with the accurate meter
  classic.measured = true;
  classic.t_max_us = 9;
  EXPECT_EQ(guidelines::verdict(classic, mock_up, 0.10).verdict, Verdict::kCannotTell);
  core::Measurement skipped;
  EXPECT_EQ(guidelines::verdict(mock_up, skipped, 0.10).verdict, Verdict::kCannotTell);
}

// Every guideline names two benchmarks that exist, each once.
TEST(GuidelineVerdict, EveryGuidelineNamesItsBenchmarks) {
  std::set<std::string> names;
  for (const auto& b : guidelines::benchmarks()) EXPECT_TRUE(names.insert(b.name).second) << b.name;
  for (const auto& g : guidelines::all_guidelines()) {
    EXPECT_TRUE(names.count(g.collective)) << g.name();
    EXPECT_TRUE(names.count(g.mock_up)) << g.name();
  }
  EXPECT_EQ(guidelines::all_guidelines().size(), 8u);
}
