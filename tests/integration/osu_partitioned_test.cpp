// OSU 7.5's osu_partitioned_latency (issue 34 item 5): under MPICH 4 (MPI 4.0) the ping-pong runs
// through partitioned requests made once per size and pass, every partition marked ready at
// every iteration (PMPI trace), twice per size: alone (Pure Comm.) and overlapped with CPU work
// that computes for the rank's own pure time; its table is OSU 7.5's line by line
// (tests/data/import/osu_partitioned_7.5.txt); -c catches a planted corruption; under Open MPI
// 4.1 (MPI 3.1) every size says "not run" and the run exits 1; -q's refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace harness;

namespace {

// The lines of OSU 7.5's own table whose title is the file's `k`-th, from the blank line before it.
std::vector<std::string> osu_table(int k) {
  const auto all = lines_of(read_file(sample("osu_partitioned_7.5.txt")));
  std::vector<std::string> table;
  int titles = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const bool title = i + 1 < all.size() && all[i + 1].rfind("# OSU MPI", 0) == 0;
    if (title) ++titles;
    if (titles == k + 1) table.push_back(all[i]);
  }
  return table;
}

// Every row of `ours` as wide as OSU's row of that size, with as many columns.
void expect_rows_as_osus(const std::vector<std::string>& ours, std::size_t first_row,
                         const std::vector<std::string>& osu) {
  std::map<std::string, std::string> osu_rows;
  for (std::size_t k = 4; k < osu.size(); ++k)
    if (!osu[k].empty()) osu_rows[words_of(osu[k])[0]] = osu[k];
  for (std::size_t k = first_row; k < ours.size() && !ours[k].empty(); ++k) {
    const auto w = words_of(ours[k]);
    ASSERT_TRUE(osu_rows.count(w[0])) << ours[k];
    EXPECT_EQ(w.size(), words_of(osu_rows[w[0]]).size()) << ours[k];
    EXPECT_EQ(ours[k].size(), osu_rows[w[0]].size()) << ours[k] << "\n" << osu_rows[w[0]];
  }
}

TEST(OsuPartitioned, TwoPassesPerSizeThroughPartitionedRequestsAsOsusTable) {
  const auto dir = temp_dir();
  const auto trace = dir + "/t";
  std::filesystem::create_directory(trace);
  const auto r = run_mpi(2,
                         {"osu", "osu_partitioned_latency", "-m", "1:64", "-q", "4", "-i", "10",
                          "-x", "2", "--json", dir + "/r.json", "--no-db"},
                         "MPISCOPE_TRACE=" + trace, 120, with_pmpi_library(dir));
  const auto lines = lines_of(r.out);
  const auto osu = osu_table(0);  // -q 4 -m 1:1024
  ASSERT_GE(lines.size(), 5u) << r.err << r.out;
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(lines[k], osu[k]) << "line " << k;
  if (is_openmpi()) {  // MPI 3.1: no MPI_Psend_init
    EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
    for (const std::string size : {"4", "8", "16", "32", "64"})
      EXPECT_NE(r.out.find("# " + size +
                           ": not run: this MPI library (MPI 3.1) has no partitioned "
                           "communication (MPI 4.0's MPI_Psend_init)"),
                std::string::npos)
          << r.out;
    return;
  }
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // Sizes of whole partitions, from 4 bytes (1 to 2 make no partition of a char each), as OSU's.
  ASSERT_EQ(lines.size(), 10u) << r.out;
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(words_of(lines[5 + k])[0], std::to_string(4 << k));
  expect_rows_as_osus(lines, 5, osu);
  // Each rank: per size and pass one partitioned send to its partner and one receive from it,
  // each of 4 partitions of size / 4 bytes, made once; per iteration of each pass (2 untimed, 10
  // timed) two starts and the 4 partitions of its send marked ready.
  for (int rank = 0; rank < 2; ++rank) {
    std::map<std::string, std::vector<std::string>> calls;
    for (const auto& line : lines_of(read_file(trace + "/trace." + std::to_string(rank)))) {
      const auto w = words_of(line);
      if (w.empty()) continue;
      if (w[0] == "MPI_Psend_init" || w[0] == "MPI_Precv_init")
        calls[w[0]].push_back(w[1] + " " + w[3] + " " + w.back());
      if (w[0] == "MPI_Start" || w[0] == "MPI_Pready") calls[w[0]].push_back(w[1]);
    }
    std::vector<std::string> made;
    for (int size = 4; size <= 64; size *= 2)
      for (int pass = 0; pass < 2; ++pass)
        made.push_back("4 " + std::to_string(1 - rank) + " " + std::to_string(size / 4));
    EXPECT_EQ(calls["MPI_Psend_init"], made) << "rank " << rank;
    EXPECT_EQ(calls["MPI_Precv_init"], made) << "rank " << rank;
    EXPECT_EQ(calls["MPI_Start"].size(), 5u * 2 * 12 * 2) << "rank " << rank;
    ASSERT_EQ(calls["MPI_Pready"].size(), 5u * 2 * 12 * 4) << "rank " << rank;
    for (std::size_t k = 0; k < calls["MPI_Pready"].size(); ++k)
      EXPECT_EQ(calls["MPI_Pready"][k], std::to_string(k % 4)) << "rank " << rank;
  }
}

// The figures at two sizes: each MPI_Pready made to take 250 us, a send's start takes 1 ms (4
// partitions), so the pure half round trip is about 1 ms (no CPU work left over from the size
// before); the overlapped pass computes about as long between each start and its wait (Compute:
// two works per round trip, one per half). Overall holds the work and at most the pure time
// besides (how much of the transfer the work hides is the library's: MPICH 4.0 moves nothing
// before MPI_Wait, a library that sends at MPI_Pready hides more), and Overlap is OSU's formula.
TEST(OsuPartitioned, ComputesForThePureTimeBetweenEachStartAndItsWait) {
  if (is_openmpi()) GTEST_SKIP() << "Open MPI 4.1 has no partitioned communication";
  const auto dir = temp_dir();
  const auto r = run_mpi(2,
                         {"osu", "osu_partitioned_latency", "-m", "32:64", "-q", "4", "-i", "20",
                          "-x", "2", "--json", dir + "/r.json", "--no-db"},
                         "MPISCOPE_DELAY=MPI_Pready=250", 120, with_pmpi_library(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto doc = nlohmann::json::parse(read_file(dir + "/r.json"));
  const auto& rows = doc["benchmarks"][0]["rows"];
  ASSERT_EQ(rows.size(), 2u) << r.out;
  for (const auto& row : rows) {
    const double overall = row["t_avg_us"].get<double>();
    const double pure = row["overlap"]["t_pure_us"].get<double>();
    const double compute = row["overlap"]["t_cpu_us"].get<double>();
    const double overlap = row["overlap"]["overlap_percent"].get<double>();
    EXPECT_GT(pure, 950) << r.out;
    EXPECT_LT(pure, 1500) << r.out;
    EXPECT_GT(compute, 0.95 * pure) << r.out;
    EXPECT_LT(compute, 1.3 * pure) << r.out;
    EXPECT_GT(overall, compute) << r.out;
    EXPECT_LT(overall, 1.25 * (pure + compute)) << r.out;
    EXPECT_NEAR(overlap, std::max(0.0, 100 - (overall - compute) / pure * 100), 1e-6) << r.out;
  }
}

TEST(OsuPartitioned, CheckPassesAndFindsAPlantedCorruption) {
  if (is_openmpi()) GTEST_SKIP() << "Open MPI 4.1 has no partitioned communication";
  const std::vector<std::string> args = {
      "osu", "osu_partitioned_latency", "-m", "8:4096", "-c", "-i", "20", "-x", "2", "--no-db"};
  const auto r = run_mpi(2, args, "", 120);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(count_of(r.out, "Pass"), 10) << r.out;
  const auto bad = run_mpi(2, args, "MPISCOPE_FAULT=corrupt:1", 120);
  EXPECT_EQ(bad.exit_code, 3) << bad.err << bad.out;
  EXPECT_EQ(count_of(bad.out, "Fail"), 10) << bad.out;
}

// OSU 7.5's own output imports as osu_partitioned_latency tables with their partition counts and
// overlap figures, and compares size for size with a run of the same partitions (MPICH).
TEST(OsuPartitioned, ImportsOsusTablesAndComparesThemWithARun) {
  const auto dir = temp_dir();
  const auto db = dir + "/r.sqlite";
  const auto imported = run_plain({"import", "--db", db, sample("osu_partitioned_7.5.txt")});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("(import:osu, 2 tables, 17 rows)"), std::string::npos)
      << imported.out;
  const auto exported = run_plain({"export", "--db", db, "--format", "json", "1"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  // -q 4's 8-byte row: Overall 1.90, Compute 1.16, Pure Comm. 0.88, Overlap 15.69.
  std::map<std::string, double> row;
  for (const auto& q : nlohmann::json::parse(exported.out))
    if (q["benchmark"] == "osu_partitioned_latency" && q["partitions"] == "4" && q["bytes"] == 8)
      row[q["quantity"].get<std::string>()] = q["value"].get<double>();
  EXPECT_EQ(row["t_avg_us"], 1.90);
  EXPECT_EQ(row["t_cpu_us"], 1.16);
  EXPECT_EQ(row["t_pure_us"], 0.88);
  EXPECT_EQ(row["overlap_percent"], 15.69);
  if (is_openmpi()) return;
  const auto r = run_mpi(
      2, {"osu", "osu_partitioned_latency", "-m", "8:1024", "-i", "20", "-x", "2", "--db", db}, "",
      120);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto compared = run_plain({"compare", "--db", db, "1", "2"});
  ASSERT_EQ(compared.exit_code, 0) << compared.err << compared.out;
  EXPECT_EQ(count_of(compared.out, "osu_partitioned_latency"), 2) << compared.out;  // -q 8 alike
  EXPECT_NE(compared.out.find("partitions=8"), std::string::npos) << compared.out;
  EXPECT_NE(compared.out.find("only in A"), std::string::npos) << compared.out;  // -q 4's table
}

// No size of the range holds a whole partition of a whole element (8 partitions of MPI_INT need
// 32 bytes): the table is its header alone, as OSU's, and the run ends normally.
TEST(OsuPartitioned, ARangeWithoutAWholePartitionRunsNoSize) {
  const auto r = run_mpi(
      2, {"osu", "osu_partitioned_latency", "-T", "mpi_int", "-m", "1:16", "--no-db"}, "", 60);
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 5u) << r.err << r.out;
  EXPECT_EQ(lines[4].rfind("# Size", 0), 0u) << r.out;
  for (const auto& line : lines)
    EXPECT_FALSE(!line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) << r.out;
}

TEST(OsuPartitioned, RefusesWhatItCannotRun) {
  expect_usage_errors({"osu", "osu_partitioned_latency"},
                      {{"-q", "0"}, {"-q", "x"}, {"-q", "65537"}});
  const auto other = run_singleton({"osu", "osu_latency", "-q", "4"});
  EXPECT_EQ(other.exit_code, 2) << other.err;
  const auto three = run_mpi(3, {"osu", "osu_partitioned_latency", "--no-db"}, "", 60);
  EXPECT_EQ(three.exit_code, 2) << three.err;
}

}  // namespace
