// OSU 7.5's osu_partitioned_latency (issue 34 item 5): under MPICH 4 (MPI 4.0) the ping-pong runs
// through partitioned requests made once per size, every partition marked ready at every
// iteration (PMPI trace), -c catching a planted corruption; under Open MPI 4.1 (MPI 3.1) every
// size says "not run" and the run exits 1; -q's refusals.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace harness;

namespace {

TEST(OsuPartitioned, PingPongsThroughPartitionedRequestsMadeOncePerSize) {
  const auto dir = temp_dir();
  const auto trace = dir + "/t";
  std::filesystem::create_directory(trace);
  const auto r = run_mpi(2,
                         {"osu", "osu_partitioned_latency", "-m", "8:64", "-q", "4", "-i", "10",
                          "-x", "2", "--json", dir + "/r.json", "--no-db"},
                         "MPISCOPE_TRACE=" + trace, 120, with_pmpi_library(dir));
  const auto lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 4u) << r.err << r.out;
  EXPECT_EQ(lines[0], "");
  EXPECT_EQ(lines[1], "# OSU MPI Partitioned Latency Test v7.5");
  EXPECT_EQ(lines[2], "# Datatype: MPI_CHAR.");
  EXPECT_EQ(lines[3], "# Size       Avg Latency(us)");
  if (is_openmpi()) {  // MPI 3.1: no MPI_Psend_init
    EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
    for (const std::string size : {"8", "16", "32", "64"})
      EXPECT_NE(r.out.find("# " + size +
                           ": not run: this MPI library (MPI 3.1) has no partitioned "
                           "communication (MPI 4.0's MPI_Psend_init)"),
                std::string::npos)
          << r.out;
    return;
  }
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  for (std::size_t k = 0; k < 4; ++k) {
    const auto w = words_of(lines[4 + k]);
    ASSERT_EQ(w.size(), 2u) << lines[4 + k];
    EXPECT_EQ(w[0], std::to_string(8 << k));
    EXPECT_EQ(lines[4 + k].size(), 28u) << lines[4 + k];
  }
  // Each rank: per size one partitioned send to its partner and one receive from it, each of 4
  // partitions of size / 4 bytes, made once; then per iteration (2 untimed, 10 timed) two
  // starts and the 4 partitions of its send marked ready.
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
    for (int size = 8; size <= 64; size *= 2)
      made.push_back("4 " + std::to_string(1 - rank) + " " + std::to_string(size / 4));
    EXPECT_EQ(calls["MPI_Psend_init"], made) << "rank " << rank;
    EXPECT_EQ(calls["MPI_Precv_init"], made) << "rank " << rank;
    EXPECT_EQ(calls["MPI_Start"].size(), 4u * 12 * 2) << "rank " << rank;
    ASSERT_EQ(calls["MPI_Pready"].size(), 4u * 12 * 4) << "rank " << rank;
    for (std::size_t k = 0; k < calls["MPI_Pready"].size(); ++k)
      EXPECT_EQ(calls["MPI_Pready"][k], std::to_string(k % 4)) << "rank " << rank;
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

TEST(OsuPartitioned, RefusesWhatItCannotRun) {
  expect_usage_errors({"osu", "osu_partitioned_latency"},
                      {{"-q", "0"}, {"-q", "x"}, {"-q", "65537"}});
  const auto other = run_singleton({"osu", "osu_latency", "-q", "4"});
  EXPECT_EQ(other.exit_code, 2) << other.err;
  const auto three = run_mpi(3, {"osu", "osu_partitioned_latency", "--no-db"}, "", 60);
  EXPECT_EQ(three.exit_code, 2) << three.err;
}

}  // namespace
