// mpiscope map on local ranks: every pair in the JSON with both rows, an odd number of ranks
// (one sits out each round), the database, and bad input. Across hosts, with a slowed host:
// tests/cluster/cluster_test.cpp.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <set>

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
  for (const auto& b : j.at("benchmarks")) {
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
  ASSERT_EQ(j.at("benchmarks").size(), 6u);
  const auto& values = j.at("benchmarks")[0].at("rows")[0].at("values");
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
