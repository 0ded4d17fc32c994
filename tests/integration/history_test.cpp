// `mpiscope history` on real databases: imported nightly IMB files with a known shift (and the
// kernel changed that night) are found at that night with what changed; real launches slowed by
// the project's PMPI library from one launch on are found at that launch; the nightly gate's exit
// statuses (a recent change, none, a series too short to show one) and its bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace harness;
using nlohmann::json;

TEST(History, ImportedNightsWithAShiftAreFoundAtThatNightWithWhatChanged) {
  const auto dir = temp_dir();
  const auto db = dir + "/nights.sqlite";
  std::vector<std::string> import = {"import", "--db", db};
  for (int night = 1; night <= 30; ++night)
    import.push_back(
        write_file(dir, "night" + std::to_string(night) + ".txt",
                   imb_pingpong_night(night, night >= 21 ? 1.3 : 1.0,
                                      night >= 21 ? "6.1.0-28-amd64" : "6.1.0-27-amd64")));
  ASSERT_EQ(run_plain(import).exit_code, 0);

  const auto r = run_plain({"history", "PingPong", "--db", db, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto h = json::parse(r.out);
  EXPECT_EQ(h["runs"], 30);
  ASSERT_EQ(h["series"].size(), 3u);
  for (const auto& s : h["series"]) {
    SCOPED_TRACE(s["bytes"].dump());
    ASSERT_EQ(s["points"].size(), 30u);
    ASSERT_EQ(s["changes"].size(), 1u);
    const auto& c = s["changes"][0];
    EXPECT_EQ(c["run_before"], 20);
    EXPECT_EQ(c["run_after"], 21);
    EXPECT_EQ(c["date"], "2026-03-21 02:00");
    EXPECT_NEAR(c["ratio"].get<double>(), 1.3, 0.04);
    EXPECT_TRUE(c["reported"]);
    ASSERT_EQ(c["changed_with_it"].size(), 1u) << c.dump();
    EXPECT_EQ(c["changed_with_it"][0], "kernel: before 6.1.0-27-amd64; after 6.1.0-28-amd64");
  }
  const auto text = run_plain({"history", "PingPong", "--db", db, "--bytes", "16"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("PingPong, 2 processes, 16 bytes: 30 runs from 2026-03-01 02:00 to "
                          "2026-03-30 02:00\n  change between run 20 (2026-03-20 02:00) and run "
                          "21 (2026-03-21 02:00): 30."),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("changed with it: kernel: before 6.1.0-27-amd64; after 6.1.0-28-amd64"),
            std::string::npos)
      << text.out;

  // The nightly gate: the change is 10 runs old (--recent 10 by default) and fails it; the
  // nights before the change pass it; 8 nights cannot show a change at all.
  EXPECT_EQ(run_plain({"history", "PingPong", "--db", db, "--fail-on-change"}).exit_code, 3);
  EXPECT_EQ(
      run_plain({"history", "PingPong", "--db", db, "--fail-on-change", "--recent", "9"}).exit_code,
      0);
  const auto before =
      run_plain({"history", "PingPong", "--db", db, "--fail-on-change", "--until", "2026-03-20"});
  EXPECT_EQ(before.exit_code, 0) << before.out;
  EXPECT_NE(before.out.find("# 3 series tested: 0 with a change shown, 3 without"),
            std::string::npos)
      << before.out;
  const auto few =
      run_plain({"history", "PingPong", "--db", db, "--fail-on-change", "--since", "2026-03-23"});
  EXPECT_EQ(few.exit_code, 6) << few.out;
  EXPECT_NE(few.out.find("# cannot tell: 3 series could not show a change:\n#   PingPong, 2 "
                         "processes, 0 bytes: 8 runs: a change needs 5 on each side"),
            std::string::npos)
      << few.out;

  // Without a benchmark: every benchmark of the runs (here PingPong's three lengths), the level
  // shared as the report's view shares it; the gate fails on the same change.
  const auto every = run_plain({"history", "--db", db, "--json"});
  ASSERT_EQ(every.exit_code, 0) << every.err;
  const auto e = json::parse(every.out);
  EXPECT_EQ(e["benchmark"], "every benchmark");
  EXPECT_EQ(e["series"].size(), 3u);
  EXPECT_EQ(run_plain({"history", "--db", db, "--fail-on-change"}).exit_code, 3);

  // Bad input: one error, exit 2.
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"history", "Pingpang", "--db", db},
        {"history", "PingPong", "--db", db, "--bytes", "17"},
        {"history", "PingPong", "--db", db, "--until", "2026-02-30"},
        {"history", "PingPong", "--db", db, "--min-segment", "1"},
        {"history", "PingPong", "--db", dir + "/none.sqlite"}}) {
    const auto b = run_plain(bad);
    EXPECT_EQ(b.exit_code, 2) << bad[3] << b.out;
    EXPECT_EQ(count_of(b.err, "error"), 1) << b.err;
  }
  // Each date option is named in its own error (a bad --until had read "--since takes ...").
  EXPECT_NE(run_plain({"history", "PingPong", "--db", db, "--until", "March"})
                .err.find("--until takes YYYY-MM-DD or YYYY-MM-DDTHH:MM, got 'March'"),
            std::string::npos);
}

// The gate on a slowdown the test cannot establish: 12 imported nights, the 3rd time-sliced to
// 100 times, the 7th on 11 times slower. No change reaches the level, but "no change" would pass
// an 11-fold slowdown: it is a possible change in each length, and the gate cannot tell (exit 6).
TEST(History, AnElevenFoldSlowdownShortOfTheLevelLeavesTheGateUndecided) {
  const auto dir = temp_dir();
  const auto db = dir + "/nights.sqlite";
  std::vector<std::string> import = {"import", "--db", db};
  for (int night = 1; night <= 12; ++night)
    import.push_back(write_file(dir, "night" + std::to_string(night) + ".txt",
                                imb_pingpong_night(night,
                                                   night == 3   ? 100.0
                                                   : night >= 7 ? 11.0
                                                                : 1.0,
                                                   "6.1.0-27-amd64")));
  ASSERT_EQ(run_plain(import).exit_code, 0);
  const auto gate = run_plain({"history", "PingPong", "--db", db, "--fail-on-change"});
  EXPECT_EQ(gate.exit_code, 6) << gate.out;
  EXPECT_EQ(count_of(gate.out, "  possible change between run 6 (2026-03-06 02:00) and run 7 "), 3)
      << gate.out;
  EXPECT_NE(gate.out.find("# cannot tell: 3 possible changes of at least 5.0 %"), std::string::npos)
      << gate.out;
  const auto h = json::parse(run_plain({"history", "PingPong", "--db", db, "--json"}).out);
  EXPECT_EQ(h["recent_changes"], 0);
  EXPECT_EQ(h["recent_possible_changes"], 3);
  // The report's history view carries them for its orange lines and its "Cannot tell" list.
  const auto page = dir + "/page.html";
  ASSERT_EQ(run_plain({"report", "--db", db, "-o", page}).exit_code, 0);
  EXPECT_EQ(count_of(read_file(page), "\"possible\":[{"), 3);
}

// Twelve real launches, the last six with every MPI_Send delayed by 50 us (the project's PMPI
// library): the change is found between launch 6 and 7, and nothing recorded changed with it.
TEST(History, ALaunchSlowedFromOneNightOnIsFoundAtThatLaunch) {
  const auto dir = temp_dir();
  const auto db = dir + "/launches.sqlite";
  const std::string wrapper = with_pmpi_library(dir);
  for (int launch = 1; launch <= 12; ++launch) {
    const auto r =
        run_mpi(2, {"imb-mpi1", "PingPong", "-msglog", "2:3", "-iter", "300", "--db", db},
                launch >= 7 ? "MPISCOPE_DELAY=MPI_Send=50" : "", 120, wrapper);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const auto r = run_plain({"history", "pingpong", "--db", db, "--bytes", "4", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto h = json::parse(r.out);
  ASSERT_EQ(h["series"].size(), 1u) << r.out;
  const auto& s = h["series"][0];
  ASSERT_EQ(s["changes"].size(), 1u) << r.out;
  EXPECT_EQ(s["changes"][0]["run_before"], 6);
  EXPECT_EQ(s["changes"][0]["run_after"], 7);
  EXPECT_GT(s["changes"][0]["ratio"].get<double>(), 3);  // 50 us on a few microseconds
  EXPECT_TRUE(s["changes"][0]["changed_with_it"].empty()) << r.out;
  const auto gate = run_plain({"history", "PingPong", "--db", db, "--fail-on-change"});
  EXPECT_EQ(gate.exit_code, 3) << gate.out;
  EXPECT_NE(gate.out.find("nothing recorded changed with it"), std::string::npos) << gate.out;
}
