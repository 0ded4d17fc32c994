// OSU's one-sided latency tests (osu_put_latency, osu_get_latency) with OSU 7.4's defaults,
// called by their aliases: OSU's header lines (from print_header_one_sided), rank 0's time alone,
// OSU's refusal of -c and of other process counts, the PMPI trace of the default
// synchronisation, and an imported OSU 7.4 output (tests/data/import/osu_one_sided_7.4.txt,
// captured from OSU's own binaries) compared with a run.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace harness;

namespace {

std::string right(const std::string& s, std::size_t width) {
  return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
}

TEST(OsuOneSided, HeaderAndRowsAreOsusAndOnlyRankZeroTimes) {
  for (const std::string program : {"osu_put_latency", "osu_get_latency"}) {
    SCOPED_TRACE(program);
    const auto json_path = temp_dir() + "/r.json";
    const auto r = run_mpi(2, {"-m", "1:64", "-i", "50", "-x", "5", "--json", json_path, "--no-db"},
                           "", 60, program);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const auto l = osu_lines(r.out);
    ASSERT_EQ(l.size(), 5u + 7u) << r.out;
    EXPECT_EQ(l[0], program == "osu_put_latency" ? "# OSU MPI_Put Latency Test v7.4"
                                                 : "# OSU MPI_Get latency Test v7.4");
    EXPECT_EQ(l[1], "# Window creation: MPI_Win_allocate");
    EXPECT_EQ(l[2], "# Synchronization: MPI_Win_flush");
    EXPECT_EQ(l[3], "# Datatype: MPI_CHAR.");
    // 18 wide, as OSU 7.4's binaries print ("# Size          Latency (us)").
    EXPECT_EQ(l[4], "# Size    " + right("Latency (us)", 18));
    for (std::size_t k = 0; k < 7; ++k) {
      const std::string size = std::to_string(1u << k);
      EXPECT_TRUE(std::regex_match(
          l[5 + k], std::regex(size + std::string(10 - size.size(), ' ') + " {0,17}\\d+\\.\\d\\d")))
          << l[5 + k];
      EXPECT_EQ(l[5 + k].size(), 28u);
    }
    const auto doc = nlohmann::json::parse(read_file(json_path));
    for (const auto& row : doc["benchmarks"][0]["rows"]) {
      EXPECT_EQ(row["repetitions"], 50);
      EXPECT_LT(row["rank_times_us"][1].get<double>(), 0);  // the target does not time
      EXPECT_DOUBLE_EQ(row["rank_times_us"][0].get<double>(), row["t_avg_us"].get<double>());
    }
  }
}

TEST(OsuOneSided, RefusesValidationAndOtherProcessCounts) {
  const auto c = run_mpi(2, {"-c", "--no-db"}, "", 30, "osu_put_latency");
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_EQ(count_of(c.err, "Benchmark does not support validation"), 1) << c.err;
  const auto three = run_mpi(3, {"--no-db"}, "", 30, "osu_get_latency");
  EXPECT_EQ(three.exit_code, 2);
  EXPECT_EQ(count_of(three.err, "This test requires exactly two processes"), 1) << three.err;
}

// The default synchronisation from a PMPI trace: rank 0 locks rank 1 once per size, then each of
// the -x + -i iterations is one MPI_Put and one MPI_Win_flush; rank 1 issues no one-sided call.
TEST(OsuOneSided, PutLatencyLocksOnceAndFlushesEveryIteration) {
  const auto dir = temp_dir();
  const auto trace = dir + "/t";
  std::filesystem::create_directory(trace);
  const auto t =
      run_mpi(2, {"osu", "osu_put_latency", "-m", "256:256", "-i", "7", "-x", "3", "--no-db"},
              "MPISCOPE_TRACE=" + trace, 60, with_pmpi_library(dir));
  ASSERT_EQ(t.exit_code, 0) << t.err;
  const auto origin = read_file(trace + "/trace.0");
  EXPECT_EQ(count_of(origin, "MPI_Put 256 root 1 "), 3 + 7) << origin;
  EXPECT_EQ(count_of(origin, "MPI_Win_flush 0 root 1 "), 3 + 7) << origin;
  EXPECT_EQ(count_of(origin, "MPI_Win_lock 0 root 1 "), 1) << origin;
  const auto target = read_file(trace + "/trace.1");
  EXPECT_EQ(count_of(target, "MPI_Put"), 0) << target;
  EXPECT_EQ(count_of(target, "MPI_Win_"), 0) << target;
}

// OSU 7.4's own output imports under the program names, with its window and synchronisation as
// parameters, and compares with a run of the same programs.
TEST(OsuOneSided, OsusOutputImportsAndComparesWithARun) {
  const auto db = temp_dir() + "/r.db";
  const auto imported = run_plain(
      {"import", "--db", db, std::string(MPISCOPE_TEST_DATA) + "/import/osu_one_sided_7.4.txt"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  for (const std::string program : {"osu_put_latency", "osu_get_latency"}) {
    const auto r = run_mpi(2, {"-m", "1:64", "-i", "50", "-x", "5", "--db", db}, "", 60, program);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  for (const char* run : {"2", "3"}) {
    const auto c = run_plain({"compare", "--db", db, "1", run});
    ASSERT_EQ(c.exit_code, 0) << c.err;
    EXPECT_EQ(count_of(c.out, "only in"), 1) << c.out;  // the other program's table
    EXPECT_EQ(count_of(c.out, "\n     64 "), 1) << c.out;
  }
}

}  // namespace
