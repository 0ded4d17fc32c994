// The engine and the accurate meter called in-process inside an MPI job at 1, 2 and 4 ranks
// (KaMPIng's way of testing MPI code), without the command line or any output format.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/accurate.hpp"
#include "core/engine.hpp"
#include "suites/imb/imb.hpp"

using namespace mpiscope;

namespace {

int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Keeps what the engine reports (on world rank 0).
struct RowsReporter : core::Reporter {
  struct Row {
    std::string benchmark;
    int nprocs = 0;
    core::Measurement m;
  };
  std::vector<Row> rows;
  void row(const core::BenchmarkRun& b, const core::Measurement& m) override {
    rows.push_back({b.name, b.nprocs, m});
  }
};

core::SuitePlan imb_plan(const std::vector<std::string>& names,
                         const std::vector<std::size_t>& lengths) {
  core::SuitePlan plan;
  plan.suite = "imb-mpi1";
  for (const auto& name : names)
    for (const auto& b : imb::imb_mpi1_suite().benchmarks())
      if (b.name == name) plan.benchmarks.push_back(&b);
  plan.lengths = [lengths](const core::Benchmark& b) {
    return b.sized ? lengths : std::vector<std::size_t>{0};
  };
  return plan;
}

}  // namespace

// IMB's rules by default: n = MSGSPERSAMPLE at X = 0, OVERALL_VOL / X above; 2^20-byte megabytes.
TEST(Engine, ImbRulesByDefault) {
  core::EngineSettings s;
  s.npmin = 1;
  RowsReporter rows;
  const auto outcome = core::run_suite(imb_plan({"Sendrecv"}, {0, 1 << 20}), s, rows);
  EXPECT_TRUE(outcome.all_ran);
  if (world_rank() != 0) return;
  ASSERT_FALSE(rows.rows.empty());
  for (const auto& r : rows.rows) {
    SCOPED_TRACE(r.benchmark + " " + std::to_string(r.m.bytes) + " bytes on " +
                 std::to_string(r.nprocs));
    ASSERT_TRUE(r.m.measured) << r.m.note;
    EXPECT_EQ(r.m.repetitions, r.m.bytes == 0 ? 1000 : 40);
    ASSERT_TRUE(r.m.mbytes_per_sec.has_value());
    // Sendrecv moves 2 messages per repetition.
    EXPECT_NEAR(*r.m.mbytes_per_sec, 2.0 * static_cast<double>(r.m.bytes) / r.m.t_max_us / 1.048576,
                1e-9 * (1 + *r.m.mbytes_per_sec));
  }
}

// A suite with other rules (OSU: a fixed count, 10^6-byte megabytes) sets them; the engine obeys.
TEST(Engine, RepetitionRuleAndMegabyteAreTheSuitesChoice) {
  core::EngineSettings s;
  s.npmin = 1;
  s.repetitions_rule = [](const core::RepetitionSettings&, std::size_t, bool) { return 7; };
  s.bytes_per_megabyte = 1e6;
  RowsReporter rows;
  core::run_suite(imb_plan({"Sendrecv", "Allreduce"}, {0, 4096, 1 << 20}), s, rows);
  if (world_rank() != 0) return;
  ASSERT_FALSE(rows.rows.empty());
  for (const auto& r : rows.rows) {
    SCOPED_TRACE(r.benchmark + " " + std::to_string(r.m.bytes) + " bytes on " +
                 std::to_string(r.nprocs));
    ASSERT_TRUE(r.m.measured) << r.m.note;
    EXPECT_EQ(r.m.repetitions, 7);
    if (r.benchmark != "Sendrecv") continue;
    ASSERT_TRUE(r.m.mbytes_per_sec.has_value());
    EXPECT_NEAR(*r.m.mbytes_per_sec, 2.0 * static_cast<double>(r.m.bytes) / r.m.t_max_us,
                1e-9 * (1 + *r.m.mbytes_per_sec));
  }
}

// The accurate meter on a repetition of known length (a 200 µs busy wait on every rank, after a
// barrier-free start): the median is that long, within its interval and a few microseconds.
TEST(AccurateMeter, MedianOfAKnownRepetitionOnEveryProcessCount) {
  core::AccurateSettings settings;
  settings.stopping.budget_s = 0.5;
  settings.stopping.min_repetitions = 20;
  core::AccurateMeter meter(MPI_COMM_WORLD, settings);
  constexpr double kSeconds = 200e-6;
  auto busy = [](int) {
    const double until = MPI_Wtime() + kSeconds;
    while (MPI_Wtime() < until) {
    }
  };
  const core::AccurateResult r = meter.measure(busy);
  // Every rank gets the median (broadcast); rank 0 holds the samples.
  EXPECT_GE(r.seconds, kSeconds);
  EXPECT_LT(r.seconds, kSeconds * (world_size() > 2 ? 1.5 : 1.2));
  if (world_rank() != 0) return;
  ASSERT_GE(r.samples.size(), 20u);
  EXPECT_GE(*std::min_element(r.samples.begin(), r.samples.end()), kSeconds);
}
