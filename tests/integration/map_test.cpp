// mpiscope map on local ranks: every pair in the JSON with both rows, an odd number of ranks
// (one sits out each round), the database, and bad input. Across hosts, with a slowed host:
// tests/cluster/cluster_test.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "harness.hpp"

using harness::run_mpi;
using json = nlohmann::json;

namespace {

std::vector<std::string> map_args(const std::string& dir) {
  return {"map",
          "--large",
          "65536",
          "--iterations",
          "20",
          "--bandwidth-time",
          "0.002",
          "--json",
          dir + "/map.json",
          "--db",
          dir + "/results.sqlite"};
}

int count(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  int n = -1;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

}  // namespace

TEST(Map, EveryPairOfAnOddNumberOfRanksWithLatencyAndBandwidth) {
  const auto dir = harness::temp_dir();
  const auto r = run_mpi(3, map_args(dir), "", 90);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const json j = json::parse(harness::read_file(dir + "/map.json"));
  std::set<std::pair<int, int>> pairs;
  // Each pair's figure of each sweep, recorded as its round was measured (map_sweep tables).
  std::map<std::tuple<std::string, std::string, std::string>, double> sweep_latency;
  for (const auto& b : j.at("benchmarks")) {
    if (b.at("name") == "map_sweep") {
      const auto& p = b.at("parameters");
      const auto& rows = b.at("rows");
      ASSERT_EQ(rows.size(), 2u);
      EXPECT_EQ(rows[1].at("bytes"), 65536);
      sweep_latency[{p.at("rank_a"), p.at("rank_b"), p.at("sweep")}] =
          rows[0].at("values").at("latency").at("value");
      continue;
    }
    ASSERT_EQ(b.at("name"), "map");
    const auto& p = b.at("parameters");
    pairs.insert({std::stoi(p.at("rank_a").get<std::string>()),
                  std::stoi(p.at("rank_b").get<std::string>())});
    EXPECT_EQ(p.at("link"), "intra-host");
    const auto& rows = b.at("rows");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].at("bytes"), 8);
    EXPECT_EQ(rows[1].at("bytes"), 65536);
    // Two sweeps: one figure each, and the pair's figure is their median.
    const auto& lv = rows[0].at("values");
    const auto& bv = rows[1].at("values");
    const std::vector<double> latency = {lv.at("latency_sweep_1").at("value"),
                                         lv.at("latency_sweep_2").at("value")};
    const std::vector<double> bandwidth = {bv.at("bandwidth_sweep_1").at("value"),
                                           bv.at("bandwidth_sweep_2").at("value")};
    EXPECT_FALSE(lv.contains("latency_sweep_3"));
    for (const char* sweep : {"1", "2"})
      EXPECT_EQ((sweep_latency[{p.at("rank_a"), p.at("rank_b"), sweep}]),
                lv.at(std::string("latency_sweep_") + sweep).at("value").get<double>());
    EXPECT_GT(latency[0], 0);
    EXPECT_GT(bandwidth[0], 0);
    EXPECT_DOUBLE_EQ(lv.at("latency").at("value").get<double>(), (latency[0] + latency[1]) / 2);
    EXPECT_EQ(rows[0].at("repetitions"), 2 * 20);
    EXPECT_GE(rows[1].at("repetitions"), 2 * 2);
    // The row's times are what the figures say: one message of the large length per bandwidth.
    EXPECT_NEAR(rows[1].at("t_min_us").get<double>(), 65536 / std::max(bandwidth[0], bandwidth[1]),
                1e-6);
  }
  EXPECT_EQ(pairs, (std::set<std::pair<int, int>>{{0, 1}, {0, 2}, {1, 2}}));
  EXPECT_EQ(sweep_latency.size(), 6u);
  EXPECT_NE(r.out.find("# schedule: 3 rounds of up to 1 disjoint pairs"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("intra_host_latency_median"), std::string::npos);
  EXPECT_EQ(count(dir + "/results.sqlite",
                  "SELECT count(*) FROM benchmarks JOIN runs ON runs.id = run_id "
                  "WHERE runs.suite = 'map' AND runs.ok = 1 AND name = 'map'"),
            3);
}

TEST(Map, FourRanksRunTwoPairsPerRound) {
  const auto dir = harness::temp_dir();
  auto args = map_args(dir);
  args.insert(args.end(), {"--sweeps", "3"});
  const auto r = run_mpi(4, args, "", 90);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("# schedule: 3 rounds of up to 2 disjoint pairs"), std::string::npos);
  const json j = json::parse(harness::read_file(dir + "/map.json"));
  ASSERT_EQ(j.at("benchmarks").size(), 6u + 6u * 3u);  // the pairs, then each pair per sweep
  const json* first_pair = nullptr;
  for (const auto& b : j.at("benchmarks"))
    if (b.at("name") == "map" && first_pair == nullptr) first_pair = &b;
  ASSERT_NE(first_pair, nullptr);
  const auto& values = first_pair->at("rows")[0].at("values");
  EXPECT_TRUE(values.contains("latency_sweep_3"));
  EXPECT_FALSE(values.contains("latency_sweep_4"));
}

TEST(Map, BadInputIsOneErrorAndExitTwo) {
  const auto dir = harness::temp_dir();
  struct Case {
    std::vector<std::string> args;
    std::string says;
    int np;
  };
  const std::vector<Case> cases = {
      {{"map", "--sweeps", "1", "--no-db"}, "--sweeps", 2},
      {{"map", "--large", "0", "--no-db"}, "--large", 2},
      {{"map", "--slow-factor", "1", "--no-db"}, "--slow-factor", 2},
      {{"map", "--bogus", "--no-db"}, "--bogus", 2},
      {{"map", "--no-db"}, "at least 2 processes", 1},
      {{"map", "--json", dir + "/no/such/dir/m.json", "--no-db"}, "m.json", 2},
  };
  for (const auto& c : cases) {
    const auto r = run_mpi(c.np, c.args, "", 60);
    EXPECT_EQ(r.exit_code, 2) << c.says << ": " << r.err << r.out;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("# Every pair"), std::string::npos);
  }
}

namespace {

// A map of 2 ranks long enough to be interrupted (1000 sweeps of one round, each with at least
// 10 ms of bandwidth round trips), recording into dir's database, JSON and CSV.
struct LongMap {
  std::string dir = harness::temp_dir();
  std::string db = dir + "/results.sqlite";
  std::unique_ptr<harness::BackgroundCommand> launcher;
  int tables_seen = 0;

  LongMap() {
    launcher = std::make_unique<harness::BackgroundCommand>(
        "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 exec " +
        harness::mpiscope_launch(2) +
        " map --large 65536 --iterations 20 --bandwidth-time 0.05 --max-bandwidth-iterations "
        "100000 --sweeps 1000 --json " +
        dir + "/map.json --csv " + dir + "/map.csv --db " + db + " > " + dir + "/out 2>&1");
    // Five rounds recorded: the run is well under way, and far from its end whatever the
    // machine: each sweep's bandwidth is timed for 50 ms (with 10 ms and at most 50 round trips
    // a sweep can take under 2 ms; a CI run once found all 1,000 done 1.7 s after the launch,
    // before the signal came).
    EXPECT_TRUE(harness::wait_until(
        [&] {
          tables_seen = count(db, "SELECT count(*) FROM benchmarks WHERE name = 'map_sweep'");
          return tables_seen >= 5;
        },
        60))
        << harness::read_file(dir + "/out");
  }

  // The processes of this run's ranks: their command line names this test's folder; not the
  // reapers the ranks fork (their parent is a rank).
  std::vector<pid_t> ranks() const {
    std::map<pid_t, pid_t> found;  // process -> parent
    FILE* pipe = popen(("pgrep -f '^[^ ]*mpiscope map .*" + dir + "/'").c_str(), "r");
    if (pipe == nullptr) return {};
    for (long p = 0; std::fscanf(pipe, "%ld", &p) == 1;) {
      std::ifstream stat("/proc/" + std::to_string(p) + "/stat");
      std::string line;
      std::getline(stat, line);
      // pid (comm) state ppid …: comm may hold spaces, so read after the last ')'.
      const auto close = line.rfind(')');
      char state = 0;
      long parent = 0;
      if (close != std::string::npos &&
          std::sscanf(line.c_str() + close + 1, " %c %ld", &state, &parent) == 2)
        found[static_cast<pid_t>(p)] = static_cast<pid_t>(parent);
    }
    pclose(pipe);
    std::vector<pid_t> ranks;
    for (const auto& [process, parent] : found)
      if (!found.contains(parent)) ranks.push_back(process);
    return ranks;
  }

  // Everything measured before the interruption is in the database, the JSON and the CSV.
  void expect_rounds_kept() {
    EXPECT_TRUE(launcher->ends_within(60)) << "the launcher did not stop";
    EXPECT_EQ(count(db, "SELECT count(*) FROM runs WHERE suite = 'map' AND complete = 0"), 1);
    // The signal may land while a sweep's table is being written: that one table may be left
    // with one of its two rows in the database and none in the JSON and CSV; every other one is
    // whole everywhere.
    const int tables = count(db, "SELECT count(*) FROM benchmarks WHERE name = 'map_sweep'");
    const int stored = count(db,
                             "SELECT count(*) FROM benchmarks b WHERE b.name = 'map_sweep' AND "
                             "(SELECT count(*) FROM measurements m WHERE m.benchmark_id = b.id "
                             "AND m.t_max_us > 0) = 2");
    EXPECT_GE(tables, tables_seen);
    EXPECT_LE(tables - stored, 1);
    EXPECT_GE(stored, tables_seen - 1);
    const json j = json::parse(harness::read_file(dir + "/map.json"));
    EXPECT_FALSE(j.at("complete").get<bool>());
    int in_json = 0;
    for (const auto& b : j.at("benchmarks"))
      if (b.at("name") == "map_sweep" && b.at("rows").size() == 2u &&
          b.at("rows")[0].at("values").at("latency").at("value").get<double>() > 0)
        ++in_json;
    EXPECT_GE(in_json, stored);
    const std::string csv = harness::read_file(dir + "/map.csv");
    EXPECT_GE(harness::count_of(csv,
                                "\"map_sweep\",\"single_transfer\",\"\",classic,2,\"all\",8,"
                                "20,\"latency\","),
              stored)
        << csv.substr(0, 2000);
    // mpiscope itself reads the unfinished run.
    const auto listing = harness::run_plain({"runs", "--db", db});
    EXPECT_NE(listing.out.find("# rows*: the run did not finish"), std::string::npos)
        << listing.out;
  }
};

}  // namespace

// Issue 29: Ctrl-C on a long map keeps every round it measured.
TEST(Map, InterruptedBySigintKeepsEveryRoundItMeasured) {
  LongMap run;
  ASSERT_GE(run.tables_seen, 5);
  ASSERT_EQ(kill(run.launcher->pid(), SIGINT), 0);
  run.expect_rounds_kept();
}

// Issue 29: one rank killed in the middle of the map (not rank 0, which records): the job ends and
// every round measured before is kept.
TEST(Map, OneRankKilledKeepsEveryRoundItMeasured) {
  LongMap run;
  ASSERT_GE(run.tables_seen, 5);
  const auto recorder = static_cast<pid_t>(count(run.db, "SELECT recorded_pid FROM runs"));
  const auto ranks = run.ranks();
  ASSERT_EQ(ranks.size(), 2u);
  int killed = 0;
  for (pid_t p : ranks)
    if (p != recorder) killed += kill(p, SIGKILL) == 0;
  ASSERT_EQ(killed, 1);
  run.expect_rounds_kept();
}
