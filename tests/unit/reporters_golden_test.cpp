// Golden-output tests of the reporters: a made-up run (fixed metadata, a classic table with a
// skipped row, an accurate-mode table, a note and a summary figure) through the IMB text, JSON and
// CSV reporters, compared byte for byte with tests/data/golden/. A change of any format shows up
// here as a diff to review; MPISCOPE_UPDATE_GOLDEN=1 rewrites the files after such a review.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "core/convergence.hpp"
#include "core/reporter.hpp"
#include "core/stats.hpp"
#include "output/csv_reporter.hpp"
#include "output/imb_text.hpp"
#include "output/json_reporter.hpp"

using namespace mpiscope;

namespace {

std::string golden_path(const std::string& name) {
  return (std::filesystem::path(__FILE__).parent_path().parent_path() / "data" / "golden" / name)
      .string();
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void expect_golden(const std::string& name, const std::string& text) {
  const std::string path = golden_path(name);
  if (const char* update = std::getenv("MPISCOPE_UPDATE_GOLDEN"); update && *update == '1') {
    std::ofstream(path, std::ios::binary) << text;
    GTEST_SKIP() << "rewrote " << path;
  }
  EXPECT_EQ(text, read(path)) << "differs from " << path
                              << " (MPISCOPE_UPDATE_GOLDEN=1 rewrites it after review)";
}

core::RunInfo made_up_info() {
  core::RunInfo i;
  i.suite = "imb-mpi1";
  i.suite_title = "mpiscope 1.0, IMB 3.1 compatible tables (MPI-1 part)";
  i.date = "Mon Nov 23 12:00:00 2026";
  i.date_iso = "2026-11-23T12:00:00Z";
  i.machine = "x86_64";
  i.system = "Linux";
  i.release = "6.1.0";
  i.version = "#1 SMP";
  i.ranks_per_host = {{"node1", 2}};
  i.world_size = 2;
  i.mpi_version = "3.1";
  i.mpi_library = "Made-up MPI 1.0";
  i.thread_level = "MPI_THREAD_SINGLE";
  i.mpiscope_version = "1.0.0";
  i.mpiscope_commit = "0123456789ab";
  i.command_line = {"mpiscope", "imb-mpi1", "PingPong"};
  i.settings = {{"warm_up", "on"}, {"warm_up_rule", "at every length"}};
  i.min_length = 0;
  i.max_length = 4194304;
  i.benchmarks = {"PingPong"};
  return i;
}

core::BenchmarkRun made_up_table() {
  core::BenchmarkRun b;
  b.name = "PingPong";
  b.family = "single_transfer";
  b.nprocs = 2;
  b.has_throughput = true;
  return b;
}

core::Measurement classic_row(std::size_t bytes, double t_us) {
  core::Measurement m;
  m.bytes = bytes;
  m.repetitions = 1000;
  m.measured = true;
  m.t_min_us = m.t_max_us = m.t_avg_us = t_us;
  m.rank_times_us = {t_us, t_us};
  m.mbytes_per_sec = t_us > 0 ? static_cast<double>(bytes) / 1.048576 / t_us : 0.0;
  return m;
}

// Feeds the made-up run to a reporter, as the engine does on rank 0.
void feed(core::Reporter& r) {
  const auto info = made_up_info();
  auto table = made_up_table();
  r.run_started(info);
  r.benchmark_started(table);
  r.row(table, classic_row(0, 0.25));
  r.row(table, classic_row(1024, 0.75));
  core::Measurement skipped;
  skipped.bytes = 4194304;
  skipped.note = "out of memory limit (-mem 0.001 GB)";
  r.row(table, skipped);
  r.benchmark_finished(table);
  // The same benchmark in accurate mode: a median and its interval.
  table.accurate = true;
  r.benchmark_started(table);
  core::Measurement accurate = classic_row(64, 0.5);
  accurate.t_min_us = 0.4;
  accurate.t_max_us = 0.9;
  accurate.repetitions = 40;
  core::AccurateStats stats;
  stats.sync = "window";
  stats.time_definition = "max-local";
  stats.stop_reason = "converged";
  stats.attempted = 42;
  stats.valid = 40;
  stats.late = 2;
  stats.window_us = 3;
  stats.timer_floor_us = 0.03;
  stats.summary_us = core::summarize({0.4, 0.45, 0.5, 0.5, 0.5, 0.55, 0.6, 0.9});
  accurate.accurate = stats;
  accurate.mbytes_per_sec = 64 / 1.048576 / stats.summary_us.median;
  r.row(table, accurate);
  // A point stopped by its budget: not converged, flagged in every output.
  core::Measurement stopped = accurate;
  stopped.bytes = 128;
  stopped.accurate->stop_reason = "time-budget";
  stopped.accurate->min_repetitions = 20;
  stopped.accurate->target_relative_half_width = 0.02;
  stopped.note = "not converged: " + *core::not_converged_reason(stopped);
  r.row(table, stopped);
  r.benchmark_finished(table);
  r.note("1 of 3 measurement points did not run");
  r.summary({"made_up_figure", 42.5, "MiB/s"});
  r.run_finished(info, false);
}

}  // namespace

TEST(ReportersGolden, ImbText) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  ASSERT_NE(out, nullptr);
  {
    output::ImbTextReporter text(out, "MPI-1");
    feed(text);
  }
  std::fclose(out);
  const std::string printed(buffer, size);
  std::free(buffer);
  expect_golden("imb_text.txt", printed);
}

TEST(ReportersGolden, Json) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("golden-json-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / "run.json").string();
  {
    output::JsonReporter json(path);
    feed(json);
  }
  expect_golden("run.json", read(path));
  std::filesystem::remove_all(dir);
}

TEST(ReportersGolden, Csv) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("golden-csv-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / "run.csv").string();
  {
    output::CsvReporter csv(path);
    feed(csv);
  }
  expect_golden("run.csv", read(path));
  std::filesystem::remove_all(dir);
}
