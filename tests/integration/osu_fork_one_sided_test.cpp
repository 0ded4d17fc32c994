// osu_get_mbw and osu_get_multi_lat (issue 34 item 5): programs of a fork of OSU 7.4 (the cMPI
// project's; no OSU release has them), run as that fork's -s flush loops on every pair at once:
// rank r < P/2 gets from rank r + P/2. Their header lines, every origin's calls and none on the
// targets (PMPI trace at 4 ranks), the figures from the origins' mean, and the refusals.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace harness;

namespace {

TEST(OsuForkOneSided, EveryOriginGetsFromItsPartnerAtOnce) {
  const auto dir = temp_dir();
  struct Case {
    std::string program, title;
    std::vector<std::string> options;
    int gets, locks, flushes;  // per origin, at -m 64:64 with 2 warm-up and 3 timed iterations
  };
  const std::vector<Case> cases = {
      {"osu_get_mbw",
       "# OSU MPI_Get Multiple Bandwidth Bandwidth Test v7.4",
       {"-W", "4"},
       4 * 5,
       5,
       5},
      {"osu_get_multi_lat", "# OSU MPI_Get Multi Latency Test v7.4", {}, 5, 1, 5}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.program);
    const auto trace = dir + "/" + c.program;
    std::filesystem::create_directory(trace);
    std::vector<std::string> args = {"osu", c.program, "-m",     "64:64",         "-x",     "2",
                                     "-i",  "3",       "--json", dir + "/r.json", "--no-db"};
    args.insert(args.end(), c.options.begin(), c.options.end());
    const auto r = run_mpi(4, args, "MPISCOPE_TRACE=" + trace, 60, with_pmpi_library(dir));
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const auto lines = lines_of(r.out);
    ASSERT_GE(lines.size(), 6u) << r.out;
    EXPECT_EQ(lines[0], c.title);
    EXPECT_EQ(lines[1], "# Window creation: MPI_Win_allocate");
    EXPECT_EQ(lines[2], "# Synchronization: MPI_Win_flush");
    EXPECT_EQ(lines[3], "# Datatype: MPI_CHAR.");
    EXPECT_EQ(lines[4], c.program == "osu_get_mbw"
                            ? "# Size      Bandwidth (MB/s)        Messages/s"
                            : "# Size          Latency (us)");
    for (int rank = 0; rank < 4; ++rank) {
      const auto calls = read_file(trace + "/trace." + std::to_string(rank));
      if (rank < 2) {
        const std::string target = " root " + std::to_string(rank + 2) + " ";
        EXPECT_EQ(count_of(calls, "MPI_Get 64" + target), c.gets) << calls;
        EXPECT_EQ(count_of(calls, "MPI_Win_lock 0" + target), c.locks) << calls;
        EXPECT_EQ(count_of(calls, "MPI_Win_flush 0" + target), c.flushes) << calls;
      } else {
        EXPECT_EQ(count_of(calls, "MPI_Get"), 0) << calls;
        EXPECT_EQ(count_of(calls, "MPI_Win_lock"), 0) << calls;
      }
    }
    // The origins time, their mean is the figure: osu_get_mbw's MB/s counts every pair's window.
    const auto doc = nlohmann::json::parse(read_file(dir + "/r.json"));
    const auto& row = doc["benchmarks"][0]["rows"][0];
    const auto& times = row["rank_times_us"];
    EXPECT_GT(times[0].get<double>(), 0);
    EXPECT_GT(times[1].get<double>(), 0);
    EXPECT_EQ(times[2].get<double>(), -1);
    EXPECT_EQ(times[3].get<double>(), -1);
    EXPECT_EQ(doc["run"]["settings"]["pairs"], "2");
    const double mean = (times[0].get<double>() + times[1].get<double>()) / 2;
    EXPECT_NEAR(row["t_avg_us"].get<double>(), mean, 1e-9 * mean);
    if (c.program == "osu_get_mbw") {
      // Per message: the origin's iteration over 4 messages x 2 pairs.
      const double mb = row["values"]["osu_bandwidth"]["value"].get<double>();
      EXPECT_NEAR(mb, 64 / mean, 1e-6 * 64 / mean);
      const auto w = words_of(lines[5]);
      ASSERT_EQ(w.size(), 3u) << lines[5];
      EXPECT_NEAR(std::stod(w[2]), 1e6 / mean, 0.01 + 1e-4 * 1e6 / mean);
    }
  }
}

TEST(OsuForkOneSided, RefusesWhatTheyDoNotRun) {
  expect_usage_errors({"osu"},
                      {{"osu_get_mbw", "-s", "lock"}, {"osu_get_multi_lat", "-s", "pscw"}});
  const auto odd = run_mpi(3, {"osu", "osu_get_multi_lat", "--no-db"}, "", 60);
  EXPECT_EQ(odd.exit_code, 2) << odd.err;
  EXPECT_NE(odd.err.find("This test requires an even number of processes"), std::string::npos)
      << odd.err;
}

}  // namespace
