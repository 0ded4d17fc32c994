// compare: ratios B/A, the measured-spread verdict and the regression limit on known inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "report/compare.hpp"

using namespace mpiscope;

namespace {

core::Measurement row(std::size_t bytes, double tmin, double tmax, double tavg) {
  core::Measurement m;
  m.bytes = bytes;
  m.measured = true;
  m.repetitions = 100;
  m.t_min_us = tmin;
  m.t_max_us = tmax;
  m.t_avg_us = tavg;
  return m;
}

db::StoredRun run_with(int id, std::vector<core::Measurement> rows, int nprocs = 4) {
  db::StoredRun r;
  r.id = id;
  r.info.suite = "imb-mpi1";
  core::BenchmarkRun b;
  b.name = "Allreduce";
  b.nprocs = nprocs;
  b.rows = std::move(rows);
  r.benchmarks.push_back(b);
  return r;
}

}  // namespace

TEST(ReportCompare, RatiosAndSpreadVerdictsOnKnownRows) {
  // 8 bytes: B's range [3, 4] lies above A's [1, 2]: slower beyond the spread, ratio 4/2.
  // 16 bytes: ranges [1, 3] and [2, 3.3] overlap: 10 % slower but within the spread.
  // 32 bytes: B faster, ranges apart.
  const auto a = run_with(1, {row(8, 1, 2, 1.5), row(16, 1, 3, 2), row(32, 10, 12, 11)});
  const auto b = run_with(2, {row(8, 3, 4, 3.5), row(16, 2, 3.3, 2.5), row(32, 4, 6, 5)});
  const auto c = report::compare_runs(a, b, 50);
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_DOUBLE_EQ(c.rows[0].ratio, 2.0);
  EXPECT_TRUE(c.rows[0].beyond.value());
  EXPECT_TRUE(c.rows[0].slowdown_over_limit);
  EXPECT_NEAR(c.rows[1].ratio, 1.1, 1e-12);
  EXPECT_FALSE(c.rows[1].beyond.value());
  EXPECT_FALSE(c.rows[1].slowdown_over_limit);
  EXPECT_DOUBLE_EQ(c.rows[2].ratio, 0.5);
  EXPECT_TRUE(c.rows[2].beyond.value());
  EXPECT_FALSE(c.rows[2].slowdown_over_limit);
  // A higher limit lets the doubling pass; no limit flags nothing.
  EXPECT_FALSE(report::compare_runs(a, b, 150).rows[0].slowdown_over_limit);
  EXPECT_FALSE(report::compare_runs(a, b, -1).rows[0].slowdown_over_limit);
}

TEST(ReportCompare, WithoutARecordedSpreadTheLimitAloneDecides) {
  auto osu = [](int id, double t) {
    auto m = row(4, NAN, NAN, t);  // OSU: the average only
    return run_with(id, {m}, 2);
  };
  const auto c = report::compare_runs(osu(1, 2.0), osu(2, 3.0), 40);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(c.rows[0].a_us, 2.0);  // t_avg stands in for the missing t_max
  EXPECT_DOUBLE_EQ(c.rows[0].ratio, 1.5);
  EXPECT_FALSE(c.rows[0].beyond.has_value());
  EXPECT_TRUE(c.rows[0].slowdown_over_limit);
  EXPECT_FALSE(report::compare_runs(osu(1, 2.0), osu(2, 3.0), 60).rows[0].slowdown_over_limit);
}

TEST(ReportCompare, SamplesAndStandardErrorsGiveTheSpread) {
  auto m = row(0, 5, 5, 5);  // one figure over the ranks
  EXPECT_FALSE(report::measured_spread(m).has_value());
  core::SampleSummary s;
  s.n = 10;
  s.p25 = 4.5;
  s.p75 = 5.5;
  m.samples_us = s;
  const auto q = report::measured_spread(m);
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(q->low, 4.5);
  EXPECT_DOUBLE_EQ(q->high, 5.5);
  auto sk = row(4, NAN, NAN, 6.0);
  sk.values.push_back({"std_error", 0.25, "microseconds"});
  const auto e = report::measured_spread(sk);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->low, 5.5);
  EXPECT_DOUBLE_EQ(e->high, 6.5);
}

TEST(ReportCompare, TablesOfOneRunOnlyAreListedNotCompared) {
  auto a = run_with(1, {row(8, 1, 2, 1.5)}, 4);
  auto b = run_with(2, {row(8, 1, 2, 1.5)}, 8);
  const auto c = report::compare_runs(a, b, 10);
  EXPECT_TRUE(c.rows.empty());
  ASSERT_EQ(c.only_in_a.size(), 1u);
  EXPECT_EQ(c.only_in_a[0], "Allreduce, 4 processes");
  ASSERT_EQ(c.only_in_b.size(), 1u);
  const auto text = report::render_comparison(a, b, c, 10);
  EXPECT_NE(text.find("only in B: Allreduce, 8 processes"), std::string::npos) << text;
}
