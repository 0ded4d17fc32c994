// compare: the rank test's exact p-values and bounds, ratios B/A, the noise verdicts (rank test,
// the single-run bound), "cannot tell" where the runs could not have shown the change asked
// about, the regression limit and the matching of tables on known inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/convergence.hpp"
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

core::Measurement accurate_row(std::size_t bytes, double median, double low, double high) {
  auto m = row(bytes, low / 2, high * 2, median);
  m.values = {{"median_us", median, "microseconds"},
              {"ci95_low_us", low, "microseconds"},
              {"ci95_high_us", high, "microseconds"}};
  return m;
}

db::StoredRun run_with(int id, std::vector<core::Measurement> rows, int nprocs = 4,
                       const std::string& name = "Allreduce", const std::string& mode = "") {
  db::StoredRun r;
  r.id = id;
  r.info.suite = "imb-mpi1";
  core::BenchmarkRun b;
  b.name = name;
  b.nprocs = nprocs;
  b.mode = mode;
  b.rows = std::move(rows);
  r.benchmarks.push_back(b);
  return r;
}

// One run per value: each run's Allreduce at 8 bytes takes that long (t_max).
std::vector<db::StoredRun> runs_of(int first_id, const std::vector<double>& times) {
  std::vector<db::StoredRun> runs;
  for (double t : times) runs.push_back(run_with(first_id++, {row(8, t / 2, t, t)}));
  return runs;
}

report::CompareSettings limit(double percent) {
  report::CompareSettings s;
  s.fail_above_percent = percent;
  return s;
}

}  // namespace

TEST(ReportCompare, RankTestGivesTheExactPermutationPValues) {
  // 3 against 3, B entirely above A: 1 arrangement of C(6,3) = 20 is as extreme.
  auto t = report::rank_test({1, 2, 3}, {4, 5, 6});
  EXPECT_DOUBLE_EQ(t.p_slower, 1.0 / 20);
  EXPECT_DOUBLE_EQ(t.p_faster, 1.0);
  t = report::rank_test({4, 5, 6}, {1, 2, 3});
  EXPECT_DOUBLE_EQ(t.p_faster, 1.0 / 20);
  // B's ranks {3, 5, 6} sum to 14; rank sums >= 14 of 3 of 6: {4,5,6}=15, {3,5,6}=14: 2 of 20.
  t = report::rank_test({1, 2, 4}, {3, 5, 6});
  EXPECT_DOUBLE_EQ(t.p_slower, 2.0 / 20);
  // Ties share mid-ranks: all equal, every arrangement has the same sum.
  t = report::rank_test({7, 7}, {7, 7});
  EXPECT_DOUBLE_EQ(t.p_slower, 1.0);
  EXPECT_DOUBLE_EQ(t.p_faster, 1.0);
  // 5 against 5 separated: 1 / 252, the smallest p it can give.
  t = report::rank_test({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(t.p_slower, 1.0 / 252);
  EXPECT_DOUBLE_EQ(report::smallest_rank_test_p(5, 5), 1.0 / 252);
  EXPECT_DOUBLE_EQ(report::smallest_rank_test_p(4, 4), 1.0 / 70);
  EXPECT_DOUBLE_EQ(report::smallest_rank_test_p(1, 1), 0.5);
  EXPECT_TRUE(std::isnan(report::median_of({})));
  EXPECT_DOUBLE_EQ(report::median_of({3, 1, 2, 10}), 2.5);
}

TEST(ReportCompare, SeveralRunsPerSideAreJudgedByTheRankTest) {
  // Noisy but alike: medians 10.2 and 10.3, interleaved values: within the noise.
  const auto a = runs_of(1, {10, 12, 9.5, 10.2, 11});
  const auto alike = runs_of(10, {10.3, 9.8, 11.5, 10.1, 12.5});
  auto c = report::compare_runs(a, alike, limit(10));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].basis, report::NoiseBasis::kRankTest);
  EXPECT_EQ(c.rows[0].a_runs, 5u);
  EXPECT_DOUBLE_EQ(c.rows[0].a_us, 10.2);
  EXPECT_DOUBLE_EQ(c.rows[0].b_us, 10.3);
  EXPECT_FALSE(c.rows[0].beyond);
  EXPECT_FALSE(c.rows[0].slowdown_over_limit);
  // So noisy (runs 9.5 to 12.5) that 5 runs cannot rule out a 10 % slowdown: cannot tell, with
  // the bounds of B/A that say why and the runs that would have sufficed.
  EXPECT_FALSE(c.rows[0].conclusive);
  EXPECT_GT(c.rows[0].ratio_high, 1.1);
  EXPECT_LT(c.rows[0].ratio_low, 1.0);
  EXPECT_GT(c.rows[0].runs_needed, 5u);
  EXPECT_EQ(report::verdict_text(c.rows[0]), "cannot tell");
  // One slow outlier run in B lifts no median and fails nothing.
  c = report::compare_runs(a, runs_of(10, {10.3, 9.8, 40, 10.1, 10.4}), limit(10));
  EXPECT_FALSE(c.rows[0].slowdown_over_limit);
  // Every run of B slower by 30 %: p = 1/252, a slowdown over 10 % but not over 50 %.
  const auto slow = runs_of(10, {13.5, 13.0, 14.2, 13.3, 15.0});
  c = report::compare_runs(a, slow, limit(10));
  EXPECT_NEAR(c.rows[0].p_value, 1.0 / 252, 1e-12);
  EXPECT_TRUE(c.rows[0].beyond);
  EXPECT_TRUE(c.rows[0].slowdown_over_limit);
  EXPECT_TRUE(c.rows[0].conclusive);
  EXPECT_EQ(report::verdict_text(c.rows[0]), "SLOWDOWN");
  // Against A x 1.1 = {11, 13.2, 10.45, 11.22, 12.1}, B's ranks are 5, 7, 8, 9, 10: p = 2/252.
  EXPECT_NEAR(c.rows[0].limit_p_value, 2.0 / 252, 1e-12);
  EXPECT_FALSE(report::compare_runs(a, slow, limit(50)).rows[0].slowdown_over_limit);
  // 11 % slower, clearly beyond the noise, but not clearly more than 10 % slower: no slowdown.
  const auto tight = runs_of(1, {10, 10.1, 10.2, 10.3, 10.4});
  c = report::compare_runs(tight, runs_of(10, {11.1, 11.2, 11.3, 11.4, 11.5}), limit(10));
  EXPECT_GT(c.rows[0].ratio, 1.1);
  EXPECT_TRUE(c.rows[0].beyond);
  EXPECT_GT(c.rows[0].limit_p_value, 0.025);
  EXPECT_FALSE(c.rows[0].slowdown_over_limit);
  // ... nor clearly less than 10 % slower: the gate cannot tell.
  EXPECT_FALSE(c.rows[0].conclusive);
  EXPECT_EQ(report::verdict_text(c.rows[0]), "slower, cannot tell");
  // Reversed, it is faster beyond the noise, never a slowdown, and B/A's upper bound lies below
  // the limit: the gate passes it.
  c = report::compare_runs(slow, a, limit(10));
  EXPECT_TRUE(c.rows[0].beyond);
  EXPECT_LT(c.rows[0].ratio, 1);
  EXPECT_FALSE(c.rows[0].slowdown_over_limit);
  EXPECT_TRUE(c.rows[0].conclusive);
  EXPECT_EQ(report::verdict_text(c.rows[0]), "faster");
  // 2 against 2 can never reach p <= 0.025: only a change beyond the single-run bound counts,
  // and the output says so.
  const auto two_a = runs_of(1, {10, 10.5}), two_b = runs_of(10, {13, 13.5});
  c = report::compare_runs(two_a, two_b, limit(10));
  EXPECT_EQ(c.rows[0].basis, report::NoiseBasis::kBound);
  EXPECT_TRUE(c.rank_test_too_weak);
  EXPECT_FALSE(c.rows[0].slowdown_over_limit);
  EXPECT_FALSE(c.rows[0].conclusive);
  EXPECT_EQ(c.inconclusive, 1u);
  const auto text = report::render_comparison(two_a, two_b, c, limit(10));
  EXPECT_NE(text.find("too few runs"), std::string::npos) << text;
  EXPECT_NE(text.find("# cannot tell: 1 of 1 rows could not have shown a 10.0 % slowdown"),
            std::string::npos)
      << text;
}

// Quiet runs (1 % apart) settle a 10 % limit both ways with 5 runs per side: identical ones
// pass, 30 % slower ones fail. A baseline slowed 4-400x by other jobs now and then cannot rule
// out anything: B 400x slower than A's median is "cannot tell", never "within the noise".
TEST(ReportCompare, TheGateSaysWhenItsRunsCouldNotHaveShownTheChange) {
  const auto quiet = runs_of(1, {10, 10.1, 10.05, 9.95, 10.02});
  const auto again = runs_of(10, {10.03, 9.98, 10.08, 10.0, 10.06});
  auto c = report::compare_runs(quiet, again, limit(10));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_TRUE(c.rows[0].conclusive);
  EXPECT_FALSE(c.rows[0].slowdown_over_limit);
  EXPECT_LT(c.rows[0].ratio_high, 1.1);
  EXPECT_EQ(c.inconclusive, 0u);
  EXPECT_EQ(report::verdict_text(c.rows[0]), "");
  // Without a limit, the noise floor is the change the runs must be able to show.
  EXPECT_TRUE(report::compare_runs(quiet, again, limit(-1)).rows[0].conclusive);
  const auto hogged = runs_of(1, {10, 4000, 40, 4290, 10.1});
  const auto candidate = runs_of(10, {4000, 4100, 3900, 4050, 4020});
  c = report::compare_runs(hogged, candidate, limit(10));
  EXPECT_GT(c.rows[0].ratio, 90);
  EXPECT_FALSE(c.rows[0].slowdown_over_limit);
  EXPECT_FALSE(c.rows[0].conclusive);
  EXPECT_EQ(c.inconclusive, 1u);
  const auto text = report::render_comparison(hogged, candidate, c, limit(10));
  EXPECT_NE(text.find("1 whose runs spread too widely for their number"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("0 cannot tell"), std::string::npos) << text;
}

// The bounds are the Hodges-Lehmann interval: with 5 against 5 at 0.025 one-sided, the 3rd
// smallest and the 3rd largest of the 25 differences (P(U <= 2) = 4/252 <= 0.025 < 7/252).
TEST(ReportCompare, ShiftBoundsAreTheOrderStatisticsOfThePairwiseDifferences) {
  const auto b = report::shift_bounds({0, 1, 2, 3, 4}, {10, 20, 30, 40, 50}, 0.025);
  ASSERT_TRUE(b.has_value());
  // Differences 6..50: sorted, the 3rd smallest is 8 (10-2), the 3rd largest 48 (50-2).
  EXPECT_DOUBLE_EQ(b->low, 8);
  EXPECT_DOUBLE_EQ(b->high, 48);
  // 3 against 3 cannot reach 0.025 (1/20 = 0.05): no bounds.
  EXPECT_FALSE(report::shift_bounds({1, 2, 3}, {4, 5, 6}, 0.025).has_value());
  // ... but reaches 0.05: the extreme differences.
  const auto wide = report::shift_bounds({1, 2, 3}, {4, 5, 6}, 0.05);
  ASSERT_TRUE(wide.has_value());
  EXPECT_DOUBLE_EQ(wide->low, 1);
  EXPECT_DOUBLE_EQ(wide->high, 5);
}

// B's runs {5, 100, 100, 100, 100} against A's {1, 2, 3, 4, 5} x 1.1: B's ranks 5, 7, 8, 9, 10,
// p = 2/252 = 0.0079. One such row fails the gate (0.0079 <= 0.05); eight such rows do not,
// since Holm's procedure asks 0.05/8 = 0.00625 of the smallest: one row as suspicious as that
// among eight is what identical launches give now and then. Full separation (1/252) in eight
// rows still fails.
TEST(ReportCompare, TheGateHoldsItsLevelOverAllRowsTogether) {
  auto runs = [](int first_id, const std::vector<double>& times, std::size_t rows) {
    std::vector<db::StoredRun> out;
    for (double t : times) {
      std::vector<core::Measurement> ms;
      for (std::size_t k = 0; k < rows; ++k) ms.push_back(row(k + 1, t, t, t));
      out.push_back(run_with(first_id++, ms));
    }
    return out;
  };
  const std::vector<double> a = {1, 2, 3, 4, 5}, b = {5, 100, 100, 100, 100};
  auto one = report::compare_runs(runs(1, a, 1), runs(10, b, 1), limit(10));
  EXPECT_NEAR(one.rows[0].limit_p_value, 2.0 / 252, 1e-12);
  EXPECT_TRUE(one.rows[0].slowdown_over_limit);
  const auto eight = report::compare_runs(runs(1, a, 8), runs(10, b, 8), limit(10));
  ASSERT_EQ(eight.rows.size(), 8u);
  EXPECT_EQ(eight.gate_rows, 8u);
  EXPECT_FALSE(eight.gate_too_weak);
  for (const auto& r : eight.rows) {
    EXPECT_TRUE(r.beyond);  // each row alone is slower beyond the noise
    EXPECT_FALSE(r.slowdown_over_limit);
  }
  const auto separated =
      report::compare_runs(runs(1, a, 8), runs(10, {100, 100, 100, 100, 100}, 8), limit(10));
  for (const auto& r : separated.rows) EXPECT_TRUE(r.slowdown_over_limit);
  // 13 rows need 6 runs per side: 5 cannot reach 0.05/13, and the output says so.
  const auto many = report::compare_runs(runs(1, a, 13), runs(10, b, 13), limit(10));
  EXPECT_TRUE(many.gate_too_weak);
  EXPECT_EQ(report::runs_for_gate(13, 0.05), 6u);
  EXPECT_EQ(report::runs_for_gate(12, 0.05), 5u);
  EXPECT_EQ(report::runs_for_gate(1, 0.05), 3u);
  EXPECT_NE(report::render_comparison(runs(1, a, 13), runs(10, b, 13), many, limit(10))
                .find("use 6 runs per side"),
            std::string::npos);
}

// Beyond the noise is decided over all rows together (Benjamini and Hochberg): two rows of 100
// whose 5 runs per side separate completely (p = 1/252 each) are what alike sets of runs show by
// chance, not a change; the same separation in every row is a change in every row.
TEST(ReportCompare, ChangesBeyondTheNoiseAreFoundOverAllRowsTogether) {
  // Run i's time of row k: 10 + i, or 20 + i in the rows listed as shifted on side B.
  auto runs = [](int first_id, std::size_t rows, const std::vector<std::size_t>& shifted) {
    std::vector<db::StoredRun> out;
    for (int i = 0; i < 5; ++i) {
      std::vector<core::Measurement> ms;
      for (std::size_t k = 0; k < rows; ++k) {
        const bool shift = std::find(shifted.begin(), shifted.end(), k) != shifted.end();
        // Interleaved on both sides where not shifted: no change.
        const double t = shift ? 20 + i : 10 + i + (first_id > 1 ? 0.5 : 0);
        ms.push_back(row(k + 1, t, t, t));
      }
      out.push_back(run_with(first_id + i, ms));
    }
    return out;
  };
  const auto a = runs(1, 100, {});
  const auto two = report::compare_runs(a, runs(10, 100, {3, 70}), {});
  ASSERT_EQ(two.rows.size(), 100u);
  EXPECT_NEAR(two.rows[3].p_value, 1.0 / 252, 1e-12);
  for (const auto& r : two.rows) EXPECT_FALSE(r.beyond) << r.bytes;
  EXPECT_NE(two.rows[3].why_not_conclusive.find("alone is not beyond the noise of the 100 rows"),
            std::string::npos)
      << two.rows[3].why_not_conclusive;
  std::vector<std::size_t> all(100);
  for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
  const auto every = report::compare_runs(a, runs(10, 100, all), {});
  for (const auto& r : every.rows) {
    EXPECT_TRUE(r.beyond) << r.bytes;
    EXPECT_TRUE(r.conclusive) << r.bytes;
    EXPECT_EQ(report::verdict_text(r), "slower");
  }
  // One row of one: its own level.
  const auto one = report::compare_runs(runs(1, 1, {}), runs(10, 1, {0}), {});
  EXPECT_TRUE(one.rows[0].beyond);
}

// One run per side shows no run-to-run spread: a change within the single-run bound (10x) cannot
// be told from noise, so the gate can neither pass nor fail it; a +20 us delay per send on a
// 0.3 us latency still fails. Accurate mode's within-run intervals, however narrow, change
// nothing: they say how the repetitions of one launch spread, not how launches do.
TEST(ReportCompare, OneRunPerSideDecidesOnlyBeyondTheSingleRunBound) {
  const auto a = run_with(1, {row(8, 1, 10, 5), row(16, 9, 10, 9.5), row(32, 0.2, 0.3, 0.25)});
  const auto b = run_with(2, {row(8, 1, 10.4, 5), row(16, 11.9, 12, 12), row(32, 20, 20.3, 20.1)});
  auto c = report::compare_runs({a}, {b}, limit(10));
  ASSERT_EQ(c.rows.size(), 3u);
  for (const auto& r : c.rows) EXPECT_EQ(r.basis, report::NoiseBasis::kBound);
  EXPECT_NEAR(c.rows[0].ratio, 1.04, 1e-12);
  EXPECT_FALSE(c.rows[0].beyond);
  EXPECT_FALSE(c.rows[0].conclusive);  // 4 %: cannot tell, not "within the noise"
  EXPECT_FALSE(c.rows[1].beyond);      // 20 %: cannot tell either
  EXPECT_FALSE(c.rows[1].slowdown_over_limit);
  EXPECT_FALSE(c.rows[1].conclusive);
  EXPECT_TRUE(c.rows[2].beyond);  // 0.3 -> 20.3 us: 68x, beyond 1.1 x 10
  EXPECT_TRUE(c.rows[2].slowdown_over_limit);
  EXPECT_TRUE(c.rows[2].conclusive);
  EXPECT_EQ(c.inconclusive, 2u);
  EXPECT_FALSE(c.rank_test_too_weak);
  const auto text = report::render_comparison({a}, {b}, c, limit(10));
  EXPECT_NE(text.find("one run per side shows no spread to go by"), std::string::npos) << text;
  // A launch one of whose ranks waited for a CPU half of the time (other work time-sliced it) moves
  // by any factor: even 68x cannot be told from that.
  auto sliced = b;
  sliced.info.settings["max_cpu_wait_percent"] = "50.10";
  c = report::compare_runs({a}, {sliced}, limit(10));
  EXPECT_FALSE(c.rows[2].slowdown_over_limit);
  EXPECT_FALSE(c.rows[2].conclusive);
  EXPECT_EQ(c.rows[2].why_not_conclusive,
            "run 2 was time-sliced by other work (a rank waited for a CPU 50.1 % of the time): it "
            "can move by any factor");
  EXPECT_NE(report::render_comparison({a}, {sliced}, c, limit(10))
                .find("3 with too few runs per "
                      "side, some of them "
                      "time-sliced"),
            std::string::npos);
  sliced.info.settings["max_cpu_wait_percent"] = "2.40";  // kept its core: the bound decides
  EXPECT_TRUE(report::compare_runs({a}, {sliced}, limit(10)).rows[2].slowdown_over_limit);

  // Accurate rows with narrow, separated intervals: still one launch per side.
  const auto acc_a = run_with(1, {accurate_row(8, 10, 9.8, 10.2)});
  const auto acc_b = run_with(2, {accurate_row(8, 12, 11.8, 12.2)});
  c = report::compare_runs({acc_a}, {acc_b}, limit(10));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].basis, report::NoiseBasis::kBound);
  EXPECT_DOUBLE_EQ(c.rows[0].a_us, 10);  // the median, not t_max
  EXPECT_FALSE(c.rows[0].slowdown_over_limit);
  EXPECT_FALSE(c.rows[0].conclusive);
}

// A figure that is no measurement of the operation (an accurate row that never met its stopping
// rule, SKaMPI's converged = 0, a time at or below zero) is judged by nothing: cannot tell, with
// the run and the reason, whatever the ratio.
TEST(ReportCompare, FiguresThatDidNotConvergeOrAreNotPhysicalCannotTell) {
  // Accurate rows as a live run gives them (core::not_converged_reason decides).
  auto accurate = [](double median, const std::string& stop) {
    auto m = accurate_row(256, median, median * 0.9, median * 1.1);
    m.accurate = core::AccurateStats{};
    m.accurate->stop_reason = stop;
    m.accurate->valid = m.accurate->attempted = 100;
    m.accurate->timer_floor_us = 0.03;
    m.accurate->summary_us = core::summarize({median * 0.99, median, median * 1.01});
    return m;
  };
  const auto budget = accurate(3073.55, "time-budget");
  const auto converged = accurate(0.6, "converged");
  std::vector<db::StoredRun> a, b;
  for (int i = 0; i < 5; ++i) {
    a.push_back(run_with(1 + i, {converged}));
    b.push_back(run_with(10 + i, {i == 2 ? budget : converged}));
  }
  auto c = report::compare_runs(a, b, limit(10));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].basis, report::NoiseBasis::kNotAFigure);
  EXPECT_FALSE(c.rows[0].conclusive);
  EXPECT_FALSE(c.rows[0].beyond);
  EXPECT_EQ(c.rows[0].why_not_conclusive.rfind("run 12: not converged (", 0), 0u)
      << c.rows[0].why_not_conclusive;
  // The same runs, all converged: judged by the rank test.
  b[2] = run_with(12, {converged});
  EXPECT_EQ(report::compare_runs(a, b, limit(10)).rows[0].basis, report::NoiseBasis::kRankTest);
  // A stored row recorded as not converged (SKaMPI's own flag, or a row read back), a negative
  // time, and a time of zero.
  auto recorded = row(16, 1, 1, 1);
  recorded.values = {{"converged", 0, ""}};
  c = report::compare_runs({run_with(1, {recorded})}, {run_with(2, {row(16, 1, 1, 1)})}, limit(10));
  EXPECT_EQ(c.rows[0].basis, report::NoiseBasis::kNotAFigure);
  EXPECT_EQ(c.rows[0].why_not_conclusive.rfind("run 1: not converged", 0), 0u);
  c = report::compare_runs({run_with(1, {row(16, 1, 1, 1)})},
                           {run_with(2, {row(16, -0.527, -0.527, -0.527)})}, limit(10));
  EXPECT_EQ(c.rows[0].basis, report::NoiseBasis::kNotAFigure);
  EXPECT_EQ(c.rows[0].why_not_conclusive.rfind("run 2: ", 0), 0u);
  c = report::compare_runs({run_with(1, {row(16, 1, 1, 1)})}, {run_with(2, {row(16, 0, 0, 0)})},
                           limit(10));
  EXPECT_EQ(c.rows[0].why_not_conclusive, "run 2: time 0.00 us is not physical");
}

// A figure that did not converge but recorded its range (the 95 % interval of its median, and a
// change of speed within the run) is judged at the end of that range that works against the
// verdict: a slowdown far beyond every range is found; one the ranges could explain is not.
TEST(ReportCompare, FiguresThatDidNotConvergeAreJudgedAtTheWorstEndOfTheirRange) {
  // As a row read back from the database: the verdict in `converged` and the note.
  auto unconverged = [](double median, double shift) {
    auto m = accurate_row(1024, median, median * 0.98, median * 1.02);
    m.values.push_back({"converged", 0, "bool"});
    m.values.push_back({"level_shift_ratio", shift, ""});
    m.note = "not converged: the machine changed speed during the point";
    return m;
  };
  const auto range = core::unconverged_range(unconverged(2.4, 1 / 1.15));
  ASSERT_TRUE(range.has_value());
  EXPECT_NEAR(range->low, 2.4 / 1.15, 1e-9);
  EXPECT_NEAR(range->high, 2.4 * 1.15, 1e-9);
  // At the timer's resolution, a figure bounds nothing.
  auto at_timer = unconverged(0.01, 1);
  at_timer.note =
      "not converged: a median sample of 0.01 usec, not above the timer's resolution of 0.03 usec";
  EXPECT_FALSE(core::unconverged_range(at_timer).has_value());

  // tune-check's case: B 40x slower, one run of A changed speed by 15 %.
  std::vector<db::StoredRun> a, b;
  for (int i = 0; i < 5; ++i) {
    const double t = 2.4 + 0.05 * i;
    a.push_back(run_with(1 + i, {i == 1 ? unconverged(t, 1.15) : accurate_row(1024, t, t, t)}));
    b.push_back(run_with(10 + i, {accurate_row(1024, 100 + i, 100 + i, 100 + i)}));
  }
  auto c = report::compare_runs(a, b, limit(10));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].basis, report::NoiseBasis::kRankTest);
  EXPECT_EQ(c.rows[0].unconverged_runs, 1u);
  EXPECT_TRUE(c.rows[0].slowdown_over_limit);
  EXPECT_NE(report::render_comparison(a, b, c, limit(10)).find("1 rows have runs whose figure"),
            std::string::npos);

  // B 5 % slower than A, but A's run that changed speed might have been as fast as B (its range
  // reaches 15 % either side): the rank test at the worst end cannot find the slowdown, and the
  // row says why.
  a.clear();
  b.clear();
  for (int i = 0; i < 5; ++i) {
    const double t = 10 + 0.01 * i;
    a.push_back(run_with(1 + i, {i == 4 ? unconverged(t, 1.15) : accurate_row(1024, t, t, t)}));
    b.push_back(run_with(10 + i, {accurate_row(1024, 10.5 + 0.01 * i, 10.5, 10.5)}));
  }
  c = report::compare_runs(a, b, report::CompareSettings{});
  EXPECT_FALSE(c.rows[0].beyond);
  EXPECT_FALSE(c.rows[0].conclusive);
  EXPECT_NE(c.rows[0].why_not_conclusive.find("1 of its runs did not converge"), std::string::npos)
      << c.rows[0].why_not_conclusive;
  // All converged, the same figures: 5 of 5 B runs above every A run, slower.
  a[4] = run_with(5, {accurate_row(1024, 10.04, 10.04, 10.04)});
  c = report::compare_runs(a, b, report::CompareSettings{});
  EXPECT_TRUE(c.rows[0].beyond);
  EXPECT_EQ(c.rows[0].unconverged_runs, 0u);

  // One run per side: the single-run bound applies to the worst ends.
  c = report::compare_runs({run_with(1, {unconverged(1, 2.0)})},
                           {run_with(2, {accurate_row(1024, 15, 15, 15)})}, limit(10));
  EXPECT_EQ(c.rows[0].basis, report::NoiseBasis::kBound);
  EXPECT_FALSE(c.rows[0].beyond);  // 15 / (1 x 2) is within the bound of 10x
  c = report::compare_runs({run_with(1, {unconverged(1, 1.2)})},
                           {run_with(2, {accurate_row(1024, 15, 15, 15)})}, limit(10));
  EXPECT_TRUE(c.rows[0].beyond);  // 15 / (1 x 1.2) is beyond it
}

// A suite varied over the process count or chunks at one length (SKaMPI's Variation = Nodes)
// has one row per argument: every one is compared, not the last of each length.
TEST(ReportCompare, RowsOfOneLengthThatDifferInTheirArgumentAllCompare) {
  auto nodes_row = [](double nodes, double t) {
    auto m = row(1024, t, t, t);
    m.values = {{"argument", nodes, "processes"}};
    return m;
  };
  const auto a = run_with(1, {nodes_row(2, 5), nodes_row(3, 6), nodes_row(4, 7)}, 4, "gather");
  const auto b = run_with(2, {nodes_row(2, 5), nodes_row(3, 6), nodes_row(4, 7)}, 4, "gather");
  const auto c = report::compare_runs({a}, {b}, limit(10));
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[2].argument, 4.0);
  const auto text = report::render_comparison({a}, {b}, c, limit(10));
  EXPECT_NE(text.find("argument"), std::string::npos) << text;
}

TEST(ReportCompare, ClassicAndAccurateRunsOfOneBenchmarkCompare) {
  auto classic = run_with(1, {row(8, 1, 10, 5)});
  auto accurate = run_with(2, {accurate_row(8, 10.2, 10, 10.4)});
  accurate.benchmarks[0].parameters["measurement"] = "accurate";
  const auto c = report::compare_runs({classic}, {accurate}, limit(10));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_TRUE(c.only_in_a.empty());
  EXPECT_DOUBLE_EQ(c.rows[0].a_us, 10);    // classic: t_max
  EXPECT_DOUBLE_EQ(c.rows[0].b_us, 10.2);  // accurate: the median
  EXPECT_EQ(c.rows[0].basis, report::NoiseBasis::kBound);
  EXPECT_EQ(c.rows[0].table, "Allreduce, 4 processes");
}

TEST(ReportCompare, IoNamesMatchWhateverTheCaseAndSingleModesMatchWhateverTheirName) {
  // Intel's S_Read_Indv in its one mode (AGGREGATE) against mpiscope's S_Read_indv (no mode).
  auto intel = run_with(1, {row(16, 2, 2, 2)}, 1, "S_Read_Indv", "aggregate");
  auto ours = run_with(2, {row(16, 2, 2, 2)}, 1, "S_Read_indv", "");
  auto c = report::compare_runs({intel}, {ours}, limit(10));
  EXPECT_EQ(c.rows.size(), 1u);
  EXPECT_TRUE(c.only_in_a.empty() && c.only_in_b.empty());
  // Writes in both modes on both sides pair by mode.
  auto both = [](int id, double agg, double nonagg) {
    auto r = run_with(id, {row(16, agg, agg, agg)}, 1, "S_Write_indv", "aggregate");
    auto n = r.benchmarks[0];
    n.mode = "non-aggregate";
    n.rows[0].t_max_us = nonagg;
    r.benchmarks.push_back(n);
    return r;
  };
  c = report::compare_runs({both(1, 4, 40)}, {both(2, 4, 40)}, limit(10));
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(c.rows[0].ratio, 1.0);
  EXPECT_DOUBLE_EQ(c.rows[1].ratio, 1.0);
}

TEST(ReportCompare, TablesOfOneRunOnlyAreListedNotCompared) {
  auto a = run_with(1, {row(8, 1, 2, 1.5)}, 4);
  auto b = run_with(2, {row(8, 1, 2, 1.5)}, 8);
  const auto c = report::compare_runs({a}, {b}, limit(10));
  EXPECT_TRUE(c.rows.empty());
  ASSERT_EQ(c.only_in_a.size(), 1u);
  EXPECT_EQ(c.only_in_a[0], "Allreduce, 4 processes");
  ASSERT_EQ(c.only_in_b.size(), 1u);
  const auto text = report::render_comparison({a}, {b}, c, limit(10));
  EXPECT_NE(text.find("only in B: Allreduce, 8 processes"), std::string::npos) << text;
}

// A table both sides have, but with no length measured on both (here: 8 bytes against 16, and a
// row whose time was not recorded), is listed, not left out without a word.
TEST(ReportCompare, ATableWithNoRowInCommonIsListed) {
  auto a = run_with(1, {row(8, 1, 2, 1.5), row(64, 1, 2, 1.5)});
  auto b = run_with(2, {row(16, 1, 2, 1.5), row(64, NAN, NAN, NAN)});
  const auto c = report::compare_runs({a}, {b}, limit(10));
  EXPECT_TRUE(c.rows.empty());
  EXPECT_TRUE(c.only_in_a.empty() && c.only_in_b.empty());
  ASSERT_EQ(c.no_row_in_common.size(), 1u);
  const auto text = report::render_comparison({a}, {b}, c, limit(10));
  EXPECT_NE(text.find("# no row measured on both sides: Allreduce, 4 processes"), std::string::npos)
      << text;
  // With a row in common, nothing is said.
  const auto same = report::compare_runs({a}, {a}, limit(10));
  EXPECT_TRUE(same.no_row_in_common.empty());
}

// An imported OSU collective has no process count (0): it matches the same table at any count,
// and the row's headline_us (mpiscope's osu rows: the time OSU's figure stands for) comes before
// t_max.
TEST(ReportCompare, ZeroProcessesMatchAnyCountAndHeadlineTimeComesFirst) {
  auto mine = run_with(1, {row(8, 1, 4, 2)}, 4, "osu_allreduce");
  mine.benchmarks[0].rows[0].values = {{"headline_us", 2, "microseconds"}};
  auto imported = run_with(2, {row(8, NAN, NAN, 3)}, 0, "osu_allreduce");
  const auto c = report::compare_runs({mine}, {imported}, limit(10));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(c.rows[0].ratio, 1.5);
  EXPECT_TRUE(c.only_in_a.empty() && c.only_in_b.empty());
  // Two known counts that differ still do not match.
  const auto other = report::compare_runs(
      {mine}, {run_with(3, {row(8, 1, 2, 1.5)}, 8, "osu_allreduce")}, limit(10));
  EXPECT_TRUE(other.rows.empty());
}

// Runs timed under different rules (here IMB 3.1's collectives against current IMB's, the
// default's change of fa46a40) are compared, and the output says which rules differ; an old
// run's rule is read from its `collectives_rule` text. The same rules on both sides say nothing.
TEST(ReportCompare, RunsTimedUnderDifferentRulesSaySo) {
  auto with_rules = [](int id, const std::string& collectives_rule, const std::string& warm_up) {
    auto r = run_with(id, {row(8, 1, 2, 1.5)});
    r.info.settings["collectives_rule"] = collectives_rule;
    r.info.settings["warm_up"] = warm_up;
    return r;
  };
  const std::string old_default =
      "root round robin (IMB 3.1; current IMB: -root_shift off), repetitions back to back (IMB "
      "3.1; current IMB: -sync on)";
  const std::string imb31 =
      "root round robin (-root_shift on, as IMB 3.1), repetitions back to back (-sync off, as "
      "IMB 3.1)";
  const std::string current =
      "root 0 (-root_shift off, as current IMB), each repetition timed alone after an untimed "
      "barrier (-sync on, as current IMB)";
  const std::vector<db::StoredRun> a = {with_rules(1, old_default, "on")};
  const std::vector<db::StoredRun> b = {with_rules(2, current, "on")};
  const auto c = report::compare_runs(a, b, limit(10));
  ASSERT_EQ(c.rule_differences.size(), 2u);
  EXPECT_EQ(c.rule_differences[0],
            "collectives' repetitions: A back to back (IMB 3.1); B each timed alone after a "
            "barrier (current IMB)");
  EXPECT_EQ(c.rule_differences[1],
            "collectives' root: A round robin (IMB 3.1); B rank 0 (current IMB)");
  EXPECT_NE(report::render_comparison(a, b, c, limit(10))
                .find("# note: the runs were not timed under the same rules"),
            std::string::npos);
  // The old default's text and today's -root_shift on -sync off are the same rules.
  const std::vector<db::StoredRun> same = {with_rules(3, imb31, "on")};
  const auto c2 = report::compare_runs(a, same, limit(10));
  EXPECT_TRUE(c2.rule_differences.empty());
  EXPECT_EQ(report::render_comparison(a, same, c2, limit(10)).find("not timed under the same"),
            std::string::npos);
  // A mixed side lists its values; a rule only one side records (an import) is no difference.
  const std::vector<db::StoredRun> mixed = {with_rules(4, imb31, "on"),
                                            with_rules(5, imb31, "imb3.1")};
  const auto c3 = report::compare_runs(same, mixed, limit(10));
  ASSERT_EQ(c3.rule_differences.size(), 1u);
  EXPECT_EQ(c3.rule_differences[0], "warm-up: A -warm_up on; B -warm_up imb3.1, -warm_up on");
  EXPECT_TRUE(report::compare_runs(same, {run_with(6, {row(8, 1, 2, 1.5)})}, limit(10))
                  .rule_differences.empty());
  // -warm_up on before each length also ran once in full: told apart by the recorded rule.
  // A run under today's rules with one more setting recorded.
  auto with_setting = [&](int id, const std::string& key, const std::string& value) {
    auto r = with_rules(id, current, "on");
    r.info.settings[key] = value;
    return r;
  };
  const std::vector<db::StoredRun> n10_only = {with_setting(
      7, "warm_up_rule",
      "at every length, n/10 untimed repetitions (at least min(10, n)) right before the n "
      "timed ones, as current IMB")};
  const std::vector<db::StoredRun> in_full = {with_setting(
      8, "warm_up_rule",
      "at every length, the point once in full untimed (n repetitions), then n/10 (at least "
      "min(10, n)) right before the n timed ones, as current IMB")};
  const auto c4 = report::compare_runs(n10_only, in_full, limit(10));
  ASSERT_EQ(c4.rule_differences.size(), 1u);
  EXPECT_EQ(c4.rule_differences[0],
            "warm-up: A -warm_up on (n/10 repetitions only, recorded before each length ran once "
            "in full); B -warm_up on");
  EXPECT_TRUE(report::compare_runs(in_full, b, limit(10)).rule_differences.empty());
  // The heap policy of each run (core/heap_policy.hpp) is a rule too.
  const std::vector<db::StoredRun> fixed = {with_setting(
      9, "heap",
      "fixed for the run (mmap threshold 32 MiB, trim threshold 256 MiB): an MPI library's "
      "temporary buffers stay in the heap between calls, whatever ran before")};
  const std::vector<db::StoredRun> adaptive = {
      with_setting(10, "heap", "the C library's adaptive thresholds (MPISCOPE_HEAP=system): …")};
  const auto c5 = report::compare_runs(fixed, adaptive, limit(10));
  ASSERT_EQ(c5.rule_differences.size(), 1u);
  EXPECT_EQ(c5.rule_differences[0],
            "heap: A fixed thresholds; B the C library's adaptive thresholds");
  EXPECT_TRUE(report::compare_runs(fixed, fixed, limit(10)).rule_differences.empty());
  // OSU's default (the suite's own choice) and MPISCOPE_HEAP=system are the same rule.
  const std::vector<db::StoredRun> osu_default = {with_setting(
      11, "heap",
      "the C library's adaptive thresholds (as this suite's own programs run; MPISCOPE_HEAP=fixed "
      "fixes them): …")};
  EXPECT_TRUE(report::compare_runs(osu_default, adaptive, limit(10)).rule_differences.empty());
  EXPECT_EQ(report::compare_runs(fixed, osu_default, limit(10)).rule_differences.size(), 1u);
}

// A table's protocol switch (its curve model) that moved between the sides is named; the same
// switch on both sides, or tables without a model, say nothing.
TEST(ReportCompare, AProtocolSwitchThatMovedIsNamed) {
  auto with_switch_at = [](int id, std::size_t at) {
    db::StoredRun r = run_with(id, {row(0, 1.0, 1.0, 1.0)}, 2, "PingPong");
    core::CurveModel m;
    m.regions.resize(2);
    m.regions[0].last_bytes = at / 2;
    m.regions[1].first_bytes = at;
    m.regions[1].last_bytes = 4194304;
    r.benchmarks[0].model = m;
    return r;
  };
  const std::vector<db::StoredRun> a = {with_switch_at(1, 4096)}, b = {with_switch_at(2, 16384)};
  const auto moved = report::compare_runs(a, b, limit(10));
  ASSERT_EQ(moved.switch_differences.size(), 1u);
  EXPECT_EQ(moved.switch_differences[0],
            "PingPong (2 processes): A at 4096 bytes; B at 16384 bytes");
  EXPECT_TRUE(
      report::compare_runs(a, {with_switch_at(3, 4096)}, limit(10)).switch_differences.empty());
  EXPECT_TRUE(report::compare_runs({run_with(4, {row(0, 1.0, 1.0, 1.0)}, 2, "PingPong")},
                                   {run_with(5, {row(0, 1.0, 1.0, 1.0)}, 2, "PingPong")}, limit(10))
                  .switch_differences.empty());
}
