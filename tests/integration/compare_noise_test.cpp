// compare against run-to-run noise, with real launches recorded in a real SQLite file: identical
// launches pass the regression gate, a planted delay fails it, classic and accurate runs of one
// benchmark compare, and Intel's IMB-IO tables match mpiscope's.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace harness;

namespace {

// "1,3,5": the ids of the runs recorded as the given launches (1-based, in launch order).
std::string ids(const std::vector<int>& launches) {
  std::string s;
  for (int id : launches) s += (s.empty() ? "" : ",") + std::to_string(id);
  return s;
}

}  // namespace

// 5 launches against 5 identical ones never fail --fail-above 10 (they pass, or cannot tell
// where their launches spread too widely: below 4 KiB identical quiet launches differ by up to
// +-30 % on the 2-core test machine, so the lengths are 16 KiB to 1 MiB, where most rows pass); 5
// launches whose every MPI_Send waits 20 us more (the project's PMPI library) fail it, in
// PingPong's rows only; 5 identical launches beside CPU hogs never pass it. The four sets are
// launched interleaved so that the machine's load changes reach them alike.
TEST(CompareNoise, IdenticalLaunchesPassAndADelayedSendFails) {
  const auto dir = temp_dir();
  const auto db = dir + "/n.db";
  const std::string wrapper = with_pmpi_library(dir);
  const std::vector<std::string> args = {"imb-mpi1",
                                         "PingPong",
                                         "Allreduce",
                                         "-msglen",
                                         write_file(dir, "l", "16384\n65536\n262144\n1048576\n"),
                                         "-iter",
                                         "400",
                                         "--db",
                                         db};
  std::vector<int> a, b, slow, hogged;
  int launch = 0;
  for (int round = 0; round < 5; ++round) {
    for (auto* set : {&a, &b, &slow, &hogged}) {
      // Identical launches beside two busy loops (ended by their PIDs): the ranks share the
      // 2 cores with them and are slowed by as much as the scheduler happens to take.
      std::unique_ptr<BackgroundCommand> hog1, hog2;
      if (set == &hogged) {
        hog1 = std::make_unique<BackgroundCommand>("while :; do :; done");
        hog2 = std::make_unique<BackgroundCommand>("while :; do :; done");
      }
      const auto r =
          run_mpi(2, args, set == &slow ? "MPISCOPE_DELAY=MPI_Send=20" : "", 120, wrapper);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      set->push_back(++launch);
    }
  }
  const auto same = run_plain({"compare", "--db", db, ids(a), ids(b), "--fail-above", "10"});
  EXPECT_TRUE(same.exit_code == 0 || same.exit_code == 6) << same.out << same.err;
  EXPECT_EQ(count_of(same.out, "  SLOWDOWN\n"), 0) << same.out;
  // Each row either passed or says it cannot tell, and the summary says which (the legend's
  // "it cannot tell" is printed either way).
  EXPECT_EQ(same.exit_code == 0, count_of(same.out, "; 0 cannot tell;") == 1) << same.out;
  EXPECT_EQ(count_of(same.out, " 5:5 "), 8) << same.out;  // 2 tables x 4 lengths, 5 runs each
  EXPECT_EQ(count_of(same.out, "#    run "), 8) << same.out;

  const auto delayed = run_plain({"compare", "--db", db, ids(a), ids(slow), "--fail-above", "10"});
  EXPECT_EQ(delayed.exit_code, 3) << delayed.out << delayed.err;
  // PingPong's rows, where every run of the delayed set is slower (p = 1/252; on a crowded
  // machine a time-sliced launch of A can be slower still at some length), never Allreduce's.
  const auto allreduce = delayed.out.find("# Allreduce");
  ASSERT_NE(allreduce, std::string::npos) << delayed.out;
  EXPECT_GE(count_of(delayed.out.substr(0, allreduce), "  SLOWDOWN\n"), 2) << delayed.out;
  EXPECT_EQ(count_of(delayed.out.substr(allreduce), "SLOWDOWN"), 0) << delayed.out;
  // The same comparison as data: the same exit status, and the same rows with the same verdicts.
  const auto as_json =
      run_plain({"compare", "--db", db, ids(a), ids(slow), "--fail-above", "10", "--json"});
  EXPECT_EQ(as_json.exit_code, 3) << as_json.err;
  const auto doc = nlohmann::json::parse(as_json.out);
  ASSERT_EQ(doc["rows"].size(), 8u) << as_json.out;
  int slowdowns = 0;
  for (const auto& row : doc["rows"]) slowdowns += row["verdict"] == "SLOWDOWN";
  EXPECT_EQ(slowdowns, count_of(delayed.out, "  SLOWDOWN\n")) << as_json.out;
  EXPECT_EQ(doc["a"].size(), 5u);
  // One run per side: +20 us on these lengths (4-100 us) is a change of at most 6x, within the
  // single-run bound (10x) of how far one launch moves from the next: cannot tell, never a pass
  // (CompareNoise.ARankTimeSliced… fails a gross change with one run per side).
  const auto one_slow = run_plain(
      {"compare", "--db", db, std::to_string(a[0]), std::to_string(slow[0]), "--fail-above", "10"});
  EXPECT_EQ(one_slow.exit_code, 6) << one_slow.out;
  const auto one_same = run_plain(
      {"compare", "--db", db, std::to_string(a[0]), std::to_string(b[0]), "--fail-above", "10"});
  EXPECT_EQ(one_same.exit_code, 6) << one_same.out;
  EXPECT_EQ(count_of(one_same.out, "SLOWDOWN"), 0) << one_same.out;
  // Identical launches, B's beside CPU hogs: the gate cannot pass them (exit 6, "cannot tell";
  // or 3 if the hogs slowed every launch of B alike beyond the limit), never 0.
  const auto hog = run_plain({"compare", "--db", db, ids(a), ids(hogged), "--fail-above", "10"});
  EXPECT_TRUE(hog.exit_code == 6 || hog.exit_code == 3) << hog.out << hog.err;
  // "last-N" still names runs, alone or in lists.
  const auto tail =
      run_plain({"compare", "--db", db, "last-19,last-15", "last-2,last-6", "--fail-above", "10"});
  EXPECT_NE(tail.exit_code, 2) << tail.err;
  EXPECT_EQ(count_of(tail.out, " 2:2 "), 8) << tail.out;
  EXPECT_EQ(count_of(tail.out, "too few runs for the rank test"), 1) << tail.out;
  const auto twice = run_plain({"compare", "--db", db, "1,1", "2"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_EQ(count_of(twice.err, "run 1 is given twice"), 1) << twice.err;
}

// A classic and an accurate run of the same benchmark, lengths and process count compare row by
// row, each by its own time (t_max, the median).
TEST(CompareNoise, ClassicAndAccurateRunsOfOneBenchmarkCompare) {
  const auto dir = temp_dir();
  const auto db = dir + "/m.db";
  const auto lengths = write_file(dir, "l", "4\n1024\n");
  const auto classic =
      run_mpi(2, {"imb-mpi1", "PingPong", "-msglen", lengths, "-iter", "200", "--db", db});
  ASSERT_EQ(classic.exit_code, 0) << classic.err;
  const auto accurate = run_mpi(2, {"imb-mpi1", "PingPong", "-msglen", lengths, "--method",
                                    "accurate", "--budget", "2", "--db", db});
  ASSERT_EQ(accurate.exit_code, 0) << accurate.err;
  const auto c = run_plain({"compare", "--db", db, "1", "2"});
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_EQ(count_of(c.out, "# PingPong, 2 processes\n"), 1) << c.out;
  EXPECT_EQ(count_of(c.out, " 1:1 "), 2) << c.out;
  EXPECT_EQ(count_of(c.out, "only in"), 0) << c.out;
}

// Intel's IMB-IO output (S_Write_Indv in both modes, S_Read_Indv as AGGREGATE) imported beside a
// real mpiscope imb-io run: every table pairs with mpiscope's, none is left over.
TEST(CompareNoise, IntelIoTablesMatchMpiscopesRows) {
  const auto dir = temp_dir();
  const auto db = dir + "/io.db";
  const auto r =
      run_mpi(2, {"imb-io", "S_Write_indv", "S_Read_indv", "-msglen",
                  write_file(dir, "l", "16\n32\n"), "-iter", "4,1,2", "--io-dir", dir, "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(run_plain({"import", "--db", db, sample("imb_io_2021.txt")}).exit_code, 0);
  const auto c = run_plain({"compare", "--db", db, "2", "1"});
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_EQ(count_of(c.out, "only in"), 0) << c.out;
  EXPECT_EQ(count_of(c.out, "# S_Write_indv, 1 process, mode aggregate\n"), 1) << c.out;
  EXPECT_EQ(count_of(c.out, "# S_Write_indv, 1 process, mode non-aggregate\n"), 1) << c.out;
  EXPECT_EQ(count_of(c.out, "# S_Read_indv, 1 process\n"), 1) << c.out;
  EXPECT_EQ(count_of(c.out, " 1:1 "), 6) << c.out;
}

// The rules as the IMB front end records them reach compare: two default launches share them,
// a launch under IMB 3.1's collective rule (-root_shift on -sync off) is compared with a note
// naming both differences.
TEST(CompareNoise, RunsTimedUnderOtherCollectiveRulesSaySo) {
  const auto dir = temp_dir();
  const auto db = dir + "/rules.db";
  const auto lengths = write_file(dir, "l", "4\n");
  for (const auto& extra : {std::vector<std::string>{}, std::vector<std::string>{},
                            std::vector<std::string>{"-root_shift", "on", "-sync", "off"}}) {
    std::vector<std::string> args = {"imb-mpi1", "Bcast", "-msglen", lengths,
                                     "-iter",    "20",    "--db",    db};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_mpi(2, args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const auto same = run_plain({"compare", "--db", db, "1", "2"});
  ASSERT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_EQ(count_of(same.out, "not timed under the same rules"), 0) << same.out;
  const auto other = run_plain({"compare", "--db", db, "1", "3"});
  ASSERT_EQ(other.exit_code, 0) << other.out << other.err;
  EXPECT_EQ(count_of(other.out, "# note: the runs were not timed under the same rules"), 1)
      << other.out;
  EXPECT_EQ(count_of(other.out,
                     "#   collectives' root: A rank 0 (current IMB); B round robin "
                     "(IMB 3.1)\n"),
            1)
      << other.out;
  EXPECT_EQ(count_of(other.out,
                     "#   collectives' repetitions: A each timed alone after a "
                     "barrier (current IMB); B back to back (IMB 3.1)\n"),
            1)
      << other.out;
}

// One run per side decides only beyond the single-run bound: +20 us per send on a 4-byte PingPong
// (under a microsecond) fails. Then one rank shares its core with a busy loop (pinned beside it
// with taskset) while rank 0 keeps its own: the run records the most any rank waited for a CPU
// (rank 0's alone would say the run kept its cores), and one run per side against it cannot
// tell, saying why, though its sends are 20 us slower too.
TEST(CompareNoise, ARankTimeSlicedBesideABusyLoopMarksTheRunAndOneRunPerSideCannotTell) {
  if (std::system("command -v taskset > /dev/null 2>&1") != 0) GTEST_SKIP() << "no taskset(1)";
  const auto dir = temp_dir();
  const auto db = dir + "/t.db";
  const std::string preloaded = with_pmpi_library(dir);
  const std::string pinned = write_file(dir, "rank1_on_cpu1.sh",
                                        "#!/bin/sh\nrank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}\n"
                                        "[ \"$rank\" = 1 ] && exec taskset -c 1 " +
                                            preloaded + " \"$@\"\nexec " + preloaded + " \"$@\"\n");
  std::filesystem::permissions(pinned, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add);
  const auto lengths = write_file(dir, "l", "4\n");
  const auto launch = [&](const std::string& env, const std::string& json) {
    const auto r = run_mpi(2,
                           {"imb-mpi1", "PingPong", "-msglen", lengths, "-iter", "400", "--db", db,
                            "--json", dir + "/" + json},
                           env, 120, pinned);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(read_file(dir + "/" + json));
  };
  launch("", "quiet.json");                              // run 1
  launch("MPISCOPE_DELAY=MPI_Send=20", "delayed.json");  // run 2
  nlohmann::json sliced;
  {
    BackgroundCommand hog("exec taskset -c 1 sh -c 'while :; do :; done'");
    sliced = launch("MPISCOPE_DELAY=MPI_Send=20", "sliced.json");  // run 3
  }
  // (Unless the machine time-sliced one of these launches too, the first after a build can wait
  // 11 % of its time: then it cannot tell, and says why.)
  const auto gross = run_plain({"compare", "--db", db, "1", "2", "--fail-above", "10"});
  if (gross.out.find("time-sliced by other work") == std::string::npos) {
    EXPECT_EQ(gross.exit_code, 3) << gross.out << gross.err;
    EXPECT_EQ(count_of(gross.out, "SLOWDOWN"), 1) << gross.out;
  } else {
    EXPECT_EQ(gross.exit_code, 6) << gross.out << gross.err;
  }
  const double wait =
      std::stod(sliced["settings_at_end"]["max_cpu_wait_percent"].get<std::string>());
  EXPECT_GT(wait, 10.0) << sliced["settings_at_end"].dump();
  const auto one = run_plain({"compare", "--db", db, "1", "3", "--fail-above", "10"});
  EXPECT_EQ(one.exit_code, 6) << one.out << one.err;
  EXPECT_EQ(count_of(one.out,
                     "#   1 with too few runs per side, some of them time-sliced by other "
                     "work (a rank waited for a CPU more than 10 % of the time)"),
            1)
      << one.out;
}
