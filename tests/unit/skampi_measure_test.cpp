#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <thread>

#include "suites/skampi/measure.hpp"
#include "suites/skampi/output_file.hpp"

using namespace mpiscope::skampi;

TEST(SkampiMeasure, CutQuantileDropsBothEnds) {
  // 10 samples, q = 0.2: the 2 fastest and 2 slowest go, 3..8 are kept.
  const auto s = stats_after_cut({9, 1, 100, 5, 4, 6, 3, 7, 2, 8}, 0.2);
  EXPECT_EQ(s.n, 6);
  EXPECT_EQ(s.min, 3);
  EXPECT_EQ(s.max, 8);
  EXPECT_EQ(stats_after_cut({1, 2, 3}, 0.1).n, 3);  // floor(0.3) = 0
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  // sigma = sqrt(sum (x - 5.5)^2 / 6) = sqrt(17.5 / 6)
  EXPECT_NEAR(s.sigma, std::sqrt(17.5 / 6), 1e-12);
  EXPECT_NEAR(s.standard_error, std::sqrt(17.5 / 6) / std::sqrt(6.0), 1e-12);
}

TEST(SkampiMeasure, StoppingRuleOnSyntheticSamples) {
  StoppingRule r;
  r.min_repetition = 4;
  r.max_repetition = 10;
  r.epsilon = 0.05;
  r.cut_quantile = 0;
  r.wtick = 1e-6;
  // Constant samples: stop exactly at Min_Repetition.
  int n = 0;
  auto p = measure_point([&] { return ++n, 1e-3; }, r);
  EXPECT_EQ(p.samples.size(), 4u);
  EXPECT_TRUE(p.converged);
  // Alternating 1 and 3 ms: mean 2, sigma 1, stderr 1/sqrt(n): below 5 % needs n > 400, so
  // Max_Repetition ends it, unconverged.
  n = 0;
  p = measure_point([&] { return (n++ % 2) ? 3e-3 : 1e-3; }, r);
  EXPECT_EQ(p.samples.size(), 10u);
  EXPECT_FALSE(p.converged);
  // With ε = 0.2: even n gives mean 2, sigma 1, stderr/mean = 0.5/sqrt(n): 0.204 at n = 6,
  // 0.177 at n = 8; odd n = 7 has mean 13/7, sigma 0.9897, ratio 0.2015. So it stops at 8.
  r.epsilon = 0.2;
  n = 0;
  p = measure_point([&] { return (n++ % 2) ? 3e-3 : 1e-3; }, r);
  EXPECT_EQ(p.samples.size(), 8u);
  // The clock rule: total time must reach wtick/ε = 1e-3 / 0.2 = 5 ms; 1 µs samples need 5000.
  r.wtick = 1e-3;
  r.max_repetition = 100000;
  n = 0;
  p = measure_point([&] { return ++n, 1e-6; }, r);
  EXPECT_EQ(p.samples.size(), 5000u);
  // Cut_Quantile removes outliers that would otherwise prevent convergence.
  r = StoppingRule{};
  r.min_repetition = 10;
  r.max_repetition = 10;
  r.cut_quantile = 0.1;
  n = 0;
  p = measure_point([&] { return (n++ == 3) ? 1.0 : 1e-3; }, r);
  EXPECT_DOUBLE_EQ(p.stats.mean, 1e-3);
  EXPECT_EQ(p.stats.n, 8);
  // The agreement callback overrides the local decision (the timing process decides).
  r.min_repetition = 1;
  r.max_repetition = 50;
  n = 0;
  p = measure_point([&] { return ++n, 1.0; }, r, [&](bool) { return n >= 3; });
  EXPECT_EQ(p.samples.size(), 3u);
}

TEST(SkampiMeasure, GeometricGrid) {
  EXPECT_EQ(geometric_grid(1, 16, 2, 1).lengths(), (std::vector<long>{1, 2, 4, 8, 16}));
  EXPECT_EQ(geometric_grid(0, 100, 4, 1).lengths(), (std::vector<long>{0, 1, 4, 16, 64, 100}));
  EXPECT_EQ(geometric_grid(4, 64, 1.414213562, 4).lengths(),
            (std::vector<long>{4, 8, 12, 16, 24, 32, 44, 64}));
  EXPECT_EQ(linear_grid(2, 5, 1, 1).lengths(), (std::vector<long>{2, 3, 4, 5}));
  EXPECT_EQ(geometric_grid(16, 16, 2, 1).lengths(), (std::vector<long>{16}));
  EXPECT_EQ(geometric_grid(0, 0, 2, 4).lengths(), (std::vector<long>{0}));
}

// A Stepwidth just above 1 gives some 10^11 lengths from 1 to 64 KiB: the grid is never built
// whole (that hung before the first measurement); Max_Steps thins it to lengths evenly spread on
// its logarithmic scale, computed one by one.
TEST(SkampiMeasure, StepwidthJustAboveOneIsThinnedWithoutBuildingTheGrid) {
  const auto started = std::chrono::steady_clock::now();
  const Grid full = geometric_grid(1, 65536, 1.0000000001, 1);
  EXPECT_GT(full.size, 100000000000u);
  EXPECT_LT(full.size, 120000000000u);
  const Grid thinned = bounded_grid(full, 5);
  EXPECT_EQ(thinned.size, 5u);
  EXPECT_EQ(thinned.lengths(), (std::vector<long>{1, 16, 256, 4096, 65536}));
  RefinementLimits lim;
  lim.max_points = 5;
  const auto r = refine(
      thinned, [](long m) { return CurvePoint{.m = m, .t = double(m)}; }, lim);
  EXPECT_EQ(r.order, (std::vector<long>{1, 16, 256, 4096, 65536}));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 5);
}

// Max_Steps bounds the initial grid too: thinned evenly by index, both ends kept.
TEST(SkampiMeasure, MaxStepsThinsTheGrid) {
  const auto linear = linear_grid(100, 1000, 100, 1);
  ASSERT_EQ(linear.size, 10u);
  EXPECT_EQ(bounded_grid(linear, 4).lengths(), (std::vector<long>{100, 400, 700, 1000}));
  EXPECT_EQ(bounded_grid(linear, 2).lengths(), (std::vector<long>{100, 1000}));
  EXPECT_EQ(bounded_grid(linear, 1).lengths(), (std::vector<long>{100}));
  EXPECT_EQ(bounded_grid(linear, 10).lengths(), linear.lengths());
  EXPECT_EQ(bounded_grid(linear, 64).lengths(), linear.lengths());
  for (int keep = 2; keep < 10; ++keep) {
    const auto g = bounded_grid(linear, keep).lengths();
    ASSERT_EQ(g.size(), static_cast<std::size_t>(keep));
    EXPECT_TRUE(std::is_sorted(g.begin(), g.end()));
    EXPECT_EQ(std::adjacent_find(g.begin(), g.end()), g.end()) << keep;
    EXPECT_EQ(g.front(), 100);
    EXPECT_EQ(g.back(), 1000);
  }
  // Refinement adds nothing once the (thinned) grid holds Max_Steps points.
  RefinementLimits lim;
  lim.max_points = 4;
  lim.max_distance = 1;  // every segment would be split otherwise
  const auto r = refine(
      bounded_grid(linear, 4), [](long m) { return CurvePoint{.m = m, .t = double(m)}; }, lim);
  EXPECT_EQ(r.order, (std::vector<long>{100, 400, 700, 1000}));
}

TEST(SkampiMeasure, SegmentErrorFollowsFigure3) {
  // A straight line: both extrapolations are exact, so the error is 0.
  std::vector<CurvePoint> line = {{1, 1}, {2, 2}, {4, 4}, {8, 8}};
  EXPECT_DOUBLE_EQ(segment_error(line, 1), 0);
  // A step between b = 4 and c = 8: left (2,2)-(4,2) predicts t_c = 2, Δ2/t_c = (10-2)/10;
  // right (8,10)-(16,10) predicts t_b = 10, Δ1/t_b = (10-2)/2 = 4; width (8-4)/4 = 1.
  std::vector<CurvePoint> step = {{2, 2}, {4, 2}, {8, 10}, {16, 10}};
  EXPECT_DOUBLE_EQ(segment_error(step, 1), 0.8);
  // Narrow segment next to the jump: the width term wins.
  std::vector<CurvePoint> narrow = {{90, 2}, {100, 2}, {101, 10}, {110, 10}};
  EXPECT_DOUBLE_EQ(segment_error(narrow, 1), 0.01);
  EXPECT_EQ(split_point(4, 16, 1, 1), 8);
  EXPECT_EQ(split_point(0, 16, 1, 1), 8);
  EXPECT_EQ(split_point(8, 9, 1, 1), 0);
  EXPECT_EQ(split_point(8, 12, 4, 1), 0);  // no multiple of 4 strictly inside
  EXPECT_EQ(split_point(100, 101, 1, 2), 0);
}

TEST(SkampiMeasure, RefinementConcentratesAtAPlantedStep) {
  // t(m) = 1 + m/1000 below 5000 bytes, 20 + m/1000 from there (a protocol switch).
  auto t = [](long m) {
    return CurvePoint{.m = m, .t = (m < 5000 ? 1.0 : 20.0) + static_cast<double>(m) / 1000};
  };
  RefinementLimits lim;
  lim.epsilon = 0.05;
  lim.max_points = 200;
  const auto grid = geometric_grid(64, 1 << 20, 2, 1);
  const std::size_t grid_points = grid.lengths().size();
  const auto r = refine(grid, t, lim);
  EXPECT_TRUE(r.converged);
  EXPECT_LT(r.max_error, 0.05);
  const std::size_t extra = r.points.size() - grid_points;
  ASSERT_GT(extra, 3u);
  // Every added point lies in the grid segment around the step, [4096, 8192].
  for (std::size_t k = grid_points; k < r.order.size(); ++k) {
    EXPECT_GE(r.order[k], 4096);
    EXPECT_LE(r.order[k], 8192);
  }
  // The step is bracketed closely: the two points around 5000 are within 5 % of each other.
  long below = 0, above = 1 << 20;
  for (const auto& p : r.points) {
    if (p.m < 5000)
      below = std::max(below, p.m);
    else
      above = std::min(above, p.m);
  }
  EXPECT_LE(static_cast<double>(above - below) / static_cast<double>(below), 0.05);
  // A straight line needs no refinement at all.
  const auto flat = refine(
      grid, [](long m) { return CurvePoint{.m = m, .t = 1.0 + static_cast<double>(m)}; }, lim);
  EXPECT_EQ(flat.points.size(), grid_points);
  // The measurement limit stops it, keeping the grid.
  lim.max_points = static_cast<int>(grid_points) + 2;
  const auto capped = refine(grid, t, lim);
  EXPECT_EQ(capped.points.size(), grid_points + 2);
  EXPECT_FALSE(capped.converged);
}

// Times that are not figures (below zero, as MPI_Gather's were when the barrier was subtracted)
// are never divided by: the segments beside them are not split, and the error left counts only
// the segments whose error could be estimated.
TEST(SkampiMeasure, RefinementNeverDividesByATimeThatIsNotAFigure) {
  EXPECT_TRUE(time_is_a_figure(1e-9, 1e-9, true));
  EXPECT_FALSE(time_is_a_figure(0.5e-9, 1e-9, true));
  EXPECT_TRUE(time_is_a_figure(0, 1e-9, false));
  EXPECT_FALSE(time_is_a_figure(-1e-7, 1e-9, false));
  // t_b = -0.5: the term |Δ1|/t_b would divide by it; t_c's term needs b as a base.
  const std::vector<CurvePoint> curve = {{.m = 4, .t = 1},
                                         {.m = 8, .t = -0.5, .usable = false},
                                         {.m = 16, .t = 1},
                                         {.m = 32, .t = 2},
                                         {.m = 64, .t = 4}};
  EXPECT_TRUE(std::isnan(segment_error(curve, 1)));
  EXPECT_TRUE(std::isnan(segment_error(curve, 0)));
  EXPECT_DOUBLE_EQ(segment_error(curve, 2), 0);  // from the right: (32, 2)-(64, 4) predicts 1
  // Near-zero times of alternating sign, as the grid of MPI_Gather measured them: no split
  // point lands among them.
  auto gather = [](long m) {
    const double t = m < 1024 ? (std::bit_width(static_cast<unsigned long>(m)) % 2 ? -0.5 : 0.3)
                              : static_cast<double>(m) / 1000;
    return CurvePoint{.m = m, .t = t, .usable = time_is_a_figure(t * 1e-6, 1e-9, true)};
  };
  RefinementLimits lim;
  lim.max_points = 40;
  const auto r = refine(geometric_grid(4, 65536, 2, 4), gather, lim);
  ASSERT_GE(r.order.size(), 15u);
  // Below 512 every segment has an end below zero (4, 16, 64, 256).
  for (std::size_t k = 15; k < r.order.size(); ++k) EXPECT_GE(r.order[k], 512) << r.order[k];
  EXPECT_TRUE(std::isfinite(r.max_error));
}

// The stopping rule costs O(log n) per sample: a point that never converges and runs to a
// Max_Repetition of 20,000 takes milliseconds (it sorted every sample again after each: seconds).
TEST(SkampiMeasure, ALargeMaxRepetitionFinishesFast) {
  StoppingRule r;
  r.min_repetition = 2;
  r.max_repetition = 20000;
  r.epsilon = 1e-6;
  r.cut_quantile = 0.1;
  int n = 0;
  const auto started = std::chrono::steady_clock::now();
  const auto p = measure_point([&] { return (n++ % 3) ? 3e-6 : 1e-6; }, r);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(p.samples.size(), 20000u);
  EXPECT_FALSE(p.converged);
  EXPECT_LT(seconds, 1.5);
  // The same statistics as the samples sorted and cut at once.
  std::vector<double> sorted = p.samples;
  std::sort(sorted.begin(), sorted.end());
  const std::vector<double> kept(sorted.begin() + 2000, sorted.end() - 2000);
  double mean = 0;
  for (double x : kept) mean += x;
  mean /= static_cast<double>(kept.size());
  EXPECT_EQ(p.stats.n, 16000);
  EXPECT_NEAR(p.stats.mean, mean, 1e-15);
  EXPECT_EQ(p.stats.min, kept.front());
  EXPECT_EQ(p.stats.max, kept.back());
}

// Time_Measurement bounds a point's wall time, its samples' overhead included (it counted the
// samples' times alone: 1 µs samples that take 1 ms each ran 50,000 of them for 0.05 s), and
// before Min_Repetition too; a point so cut is not converged.
TEST(SkampiMeasure, TimeMeasurementBoundsThePointsWallTime) {
  StoppingRule r;
  r.min_repetition = 1000;
  r.max_repetition = 1000000;
  r.time_limit = 0.05;
  const auto started = std::chrono::steady_clock::now();
  const auto p = measure_point(
      [] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return 1e-6;
      },
      r);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_GE(seconds, 0.05);
  EXPECT_LT(seconds, 1.0);
  EXPECT_LT(p.samples.size(), 1000u);
  EXPECT_FALSE(p.converged);
}

TEST(SkampiPostproc, MediansOfKnownRuns) {
  auto run = [](double a, double b, bool with_extra) {
    OutputFile f;
    f.complete = true;
    SuiteResult s;
    s.name = "S";
    s.type = 1;
    s.rows.push_back({0, 0, 2, 0, a, 0.1, a, 0, 8, 8, true, 0, {a, a}, {}, {}});
    s.rows.push_back({16, 16, 2, 0, b, 0.1, b, 0, 8, 8, true, 0, {}, {}, {}});
    if (with_extra) s.rows.push_back({8, 8, 2, 0, 42, 0.1, 42, 0, 8, 8, false, 0, {}, {}, {}});
    f.suites.push_back(s);
    return f;
  };
  const auto m =
      postprocess({run(1, 10, false), run(5, 30, true), run(2, 20, false), run(100, 1, false)});
  ASSERT_EQ(m.suites.size(), 1u);
  const auto& rows = m.suites[0].rows;
  ASSERT_EQ(rows.size(), 3u);  // sorted by argument
  EXPECT_EQ(rows[0].argument, 0);
  EXPECT_DOUBLE_EQ(rows[0].t_us, 3.5);  // median of 1, 5, 2, 100
  EXPECT_DOUBLE_EQ(rows[0].node_times_us[1], 3.5);
  EXPECT_EQ(rows[0].repetitions, 4);
  EXPECT_EQ(rows[1].argument, 8);
  EXPECT_DOUBLE_EQ(rows[1].t_us, 42);  // only one run measured it
  EXPECT_EQ(rows[1].repetitions, 1);
  EXPECT_DOUBLE_EQ(rows[2].t_us, 15);  // median of 10, 30, 20, 1
  // Written and read back unchanged.
  const auto back = parse_output(format_output(m), "m");
  EXPECT_TRUE(back.complete);
  ASSERT_EQ(back.suites[0].rows.size(), 3u);
  EXPECT_DOUBLE_EQ(back.suites[0].rows[2].t_us, 15);
  // A torn tail marks the crashed suite and is dropped.
  auto torn = parse_output(format_output(run(1, 2, false)).substr(0, 0) +
                               "#SKAMPI-OUTPUT 1\n@BEGIN_SUITE X\n@TYPE 1\n0 0 2 0 1",
                           "t");
  EXPECT_EQ(torn.torn_suite, "X");
  EXPECT_TRUE(torn.suites.empty());
  EXPECT_THROW(parse_output("#SKAMPI-OUTPUT 2\n", "v"), std::runtime_error);
}
