// The piecewise Hockney model (core/curve_model.hpp) on synthetic curves with known regions and
// breakpoints, with and without noise, and on a PingPong measured here under Open MPI.
#include "core/curve_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace mpiscope::core;

namespace {

// Lengths 0, 1, 2, 4, … 2^max_log, times from `t`, each multiplied by (1 + noise · u), u uniform
// in [-1, 1] from a fixed seed.
template <class F>
std::vector<CurvePoint> curve(int max_log, F t, double noise = 0, unsigned seed = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<CurvePoint> p = {{0, t(0.0) * (1 + noise * u(gen))}};
  for (int e = 0; e <= max_log; ++e) {
    const double x = std::ldexp(1.0, e);
    p.push_back({x, t(x) * (1 + noise * u(gen))});
  }
  return p;
}

}  // namespace

TEST(CurveModel, OneLineIsOneRegionWithItsAlphaAndBeta) {
  const auto m = fit_piecewise_hockney(curve(22, [](double x) { return 0.5 + x / 5000.0; }));
  ASSERT_TRUE(m);
  ASSERT_EQ(m->regions.size(), 1u);
  EXPECT_NEAR(m->regions[0].alpha_us, 0.5, 1e-9);
  ASSERT_TRUE(m->regions[0].beta_mb_per_s);
  EXPECT_NEAR(*m->regions[0].beta_mb_per_s, 5000, 1e-6);
  EXPECT_EQ(m->regions[0].first_bytes, 0u);
  EXPECT_EQ(m->regions[0].last_bytes, std::size_t{1} << 22);
  EXPECT_LT(m->rms_relative_error, 1e-9);
}

// An eager/rendezvous switch: a jump in latency and another bandwidth from 4 KiB on, and a third
// regime (out of cache) from 256 KiB on; found where they are, with and without 3 % noise.
TEST(CurveModel, BreakpointsAreFoundWhereTheProtocolSwitches) {
  auto three = [](double x) {
    if (x < 4096) return 0.3 + x / 4000.0;
    if (x < 262144) return 3.0 + x / 10000.0;
    return 5.0 + x / 4000.0;
  };
  for (double noise : {0.0, 0.03}) {
    SCOPED_TRACE(noise);
    const auto m = fit_piecewise_hockney(curve(22, three, noise));
    ASSERT_TRUE(m);
    ASSERT_EQ(m->regions.size(), 3u);
    EXPECT_EQ(m->regions[0].last_bytes, 2048u);
    EXPECT_EQ(m->regions[1].first_bytes, 4096u);
    EXPECT_EQ(m->regions[1].last_bytes, 131072u);
    EXPECT_EQ(m->regions[2].first_bytes, 262144u);
    EXPECT_NEAR(*m->regions[2].beta_mb_per_s, 4000, 4000 * 0.1);
    EXPECT_NEAR(m->regions[0].alpha_us, 0.3, 0.3 * 0.1);
  }
}

// The switch moves with the data: the same curve (eager copies fast from cache, rendezvous starts
// later and streams) with its jump at 1 KiB, 4 KiB or 32 KiB.
TEST(CurveModel, TheBreakpointMovesWithTheSwitch) {
  for (double limit : {1024.0, 4096.0, 32768.0}) {
    SCOPED_TRACE(limit);
    const auto m = fit_piecewise_hockney(curve(
        20, [&](double x) { return x < limit ? 0.2 + x / 16000.0 : 3.0 + x / 10000.0; }, 0.02));
    ASSERT_TRUE(m);
    ASSERT_EQ(m->regions.size(), 2u);
    EXPECT_EQ(static_cast<double>(m->regions[1].first_bytes), limit);
  }
}

// Noise alone makes no region: 5 % noise on one line stays one region.
TEST(CurveModel, NoiseAloneIsNotARegion) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const auto m = fit_piecewise_hockney(curve(
        22, [](double x) { return 1.0 + x / 3000.0; }, 0.05, seed));
    ASSERT_TRUE(m);
    EXPECT_EQ(m->regions.size(), 1u) << "seed " << seed;
  }
}

// A flat region (latency-bound) has no bandwidth; unusable points are left out; too few points
// give no model.
TEST(CurveModel, FlatRegionsBadPointsAndTooFewPoints) {
  auto points = curve(10, [](double) { return 2.0; });
  points.push_back({2048, 0});    // a row that has no time
  points.push_back({4096, NAN});  // nor this
  points.push_back({8192, -1});   // nor this
  const auto flat = fit_piecewise_hockney(points);
  ASSERT_TRUE(flat);
  ASSERT_EQ(flat->regions.size(), 1u);
  EXPECT_FALSE(flat->regions[0].beta_mb_per_s);
  EXPECT_EQ(flat->regions[0].last_bytes, 1024u);
  EXPECT_FALSE(fit_piecewise_hockney(curve(3, [](double x) { return 1 + x; })));
}

// A PingPong measured on this project's 2-core machine under Open MPI 4.1 (vader, eager limit
// 4 KiB by default): the switch is found between 2 and 4 KiB.
TEST(CurveModel, ARealPingPongSwitchesAtTheEagerLimit) {
  const std::vector<CurvePoint> pingpong = {
      {0, 0.39},     {16, 0.50},    {32, 0.53},      {64, 0.57},     {128, 0.63},  {256, 0.74},
      {512, 0.85},   {1024, 1.04},  {2048, 1.45},    {4096, 3.83},   {8192, 3.94}, {16384, 4.95},
      {32768, 6.05}, {65536, 8.79}, {131072, 14.38}, {262144, 32.32}};
  const auto m = fit_piecewise_hockney(pingpong);
  ASSERT_TRUE(m);
  ASSERT_GE(m->regions.size(), 2u);
  const bool switch_found = std::any_of(m->regions.begin(), m->regions.end(),
                                        [](const auto& r) { return r.first_bytes == 4096; });
  EXPECT_TRUE(switch_found);
}

TEST(CurveModel, OnlyPointToPointTablesAreModelled) {
  BenchmarkRun run;
  run.name = "PingPong";
  run.family = "single_transfer";
  run.nprocs = 2;
  for (int e = 0; e <= 10; ++e) {
    Measurement m;
    m.bytes = std::size_t{1} << e;
    m.measured = true;
    m.t_max_us = 1 + static_cast<double>(m.bytes) / 1000;
    run.rows.push_back(m);
  }
  const auto model = model_of(run);
  ASSERT_TRUE(model);
  EXPECT_EQ(model->time_column, "t_max");
  const auto lines = model_lines(*model, run);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "PingPong (2 processes): 1 region, fit error 0.0 % (rms, relative, of t_max)");
  EXPECT_EQ(lines[1], "  X = 1 ... 1024 bytes: alpha 1 us, beta 1000 MB/s, error 0.0 %");
  // A curve no line describes says so.
  run.rows[5].t_max_us *= 3;
  run.rows[7].t_max_us /= 3;
  const auto noisy = model_of(run);
  ASSERT_TRUE(noisy);
  const auto noisy_lines = model_lines(*noisy, run);
  EXPECT_TRUE(std::any_of(noisy_lines.begin(), noisy_lines.end(), [](const std::string& l) {
    return l.find("poor fit (error above 15 %)") != std::string::npos;
  })) << noisy->rms_relative_error;
  for (const char* family : {"collective", "io"}) {
    run.family = family;
    EXPECT_FALSE(model_of(run)) << family;
  }
  run.family = "single_transfer";
  run.message_rate = true;  // a windowed bandwidth table: its time is not one message's
  EXPECT_FALSE(model_of(run));
}
