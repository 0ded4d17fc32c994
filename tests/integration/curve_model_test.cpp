// Issue 32 item 2: a point-to-point curve's model (core/curve_model.hpp) finds the library's
// protocol switch where it is, and moves it when the library is told to switch elsewhere. Open
// MPI's shared-memory transport here (vader) sends eagerly up to btl_vader_eager_limit; MPICH here
// runs its messages on UCX, which switches to rendezvous at UCX_RNDV_THRESH. Each run sets both
// (the other library ignores the other's), to 1 KiB and to 16 KiB.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace harness;
using json = nlohmann::json;

TEST(CurveModel, TheProtocolSwitchFoundMovesWithTheLibrarysEagerLimit) {
  const auto dir = temp_dir();
  const std::string db = dir + "/r.sqlite";
  for (const int limit : {1024, 16384}) {
    SCOPED_TRACE(limit);
    const std::string value = std::to_string(limit);
    const std::string json_path = dir + "/pingpong" + value + ".json";
    // A launch beside other work can read too noisy a curve to place the switch (one region,
    // fit error 27 %: seen once in CI under MPICH): up to three launches, the noisy ones deleted,
    // so that the database holds one run per limit. A model that never switches at the limit
    // fails all three.
    bool switch_at_limit = false;
    harness::Result r;
    json model;
    for (int launch = 0; launch < 3 && !switch_at_limit; ++launch) {
      if (launch > 0) {
        ASSERT_EQ(run_plain({"delete", "--db", db, "last"}).exit_code, 0);
      }
      r = run_mpi(2, {"imb-mpi1", "PingPong", "-msglog", "0:18", "--json", json_path, "--db", db},
                  "OMPI_MCA_btl_vader_eager_limit=" + value + " UCX_RNDV_THRESH=" + value, 120);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const json run = json::parse(read_file(json_path));
      const json& table = run.at("benchmarks").at(0);
      ASSERT_TRUE(table.contains("model")) << table.dump();
      model = table.at("model");
      for (const auto& region : model.at("regions"))
        switch_at_limit |= region.at("first_bytes").get<int>() == limit;
    }
    EXPECT_EQ(model.at("kind"), "piecewise_hockney");
    EXPECT_EQ(model.at("time_column"), "t_max");
    EXPECT_TRUE(switch_at_limit) << model.dump(1) << "\n" << r.out;
    // The text says it after the tables, before IMB's last line.
    const auto said =
        r.out.find("#   switch between " + std::to_string(limit / 2) + " and " + value + " bytes");
    EXPECT_NE(said, std::string::npos) << r.out;
    EXPECT_LT(said, r.out.find("# All processes entering MPI_Finalize")) << r.out;
  }
  // compare names the switch that moved, beside the variables that moved it.
  const auto c = run_plain({"compare", "last-1", "last", "--db", db});
  EXPECT_NE(c.out.find("# note: the curves' protocol switches differ"), std::string::npos) << c.out;
  // "#   PingPong (2 processes): A at [other switches, ]1024[, …] bytes; B at …16384… bytes"
  const auto line_at = c.out.find("#   PingPong (2 processes): A at ");
  ASSERT_NE(line_at, std::string::npos) << c.out;
  const std::string line = c.out.substr(line_at, c.out.find('\n', line_at) - line_at);
  const auto b_at = line.find("; B at ");
  ASSERT_NE(b_at, std::string::npos) << line;
  EXPECT_NE(line.substr(0, b_at).find("1024"), std::string::npos) << line;
  EXPECT_NE(line.substr(b_at).find("16384"), std::string::npos) << line;
  EXPECT_NE(c.out.find("UCX_RNDV_THRESH: A 1024; B 16384"), std::string::npos) << c.out;

  // The report's comparison names the same switches, and each run's PingPong carries its model
  // for the page to draw (tests/browser checks the drawing).
  const auto page_path = dir + "/report.html";
  ASSERT_EQ(
      run_plain({"report", "--db", db, "--compare", "last-1:last", "-o", page_path}).exit_code, 0);
  const std::string page = read_file(page_path);
  const std::string open = "id=\"mpiscope-data\">";
  const auto from = page.find(open) + open.size();
  const json data = json::parse(page.substr(from, page.find("</script>", from) - from));
  const auto& switches = data.at("comparison").at("switch_differences");
  ASSERT_EQ(switches.size(), 1u) << data.at("comparison").dump();
  EXPECT_EQ(switches[0].get<std::string>().rfind("PingPong (2 processes): A at ", 0), 0u);
  for (const auto& run : data.at("runs")) {
    const auto& table = run.at("tables").at(0);
    EXPECT_EQ(table.at("name"), "PingPong");
    ASSERT_TRUE(table.contains("model")) << table.dump();
    EXPECT_GE(table.at("model").at("regions").size(), 2u);
  }
}

// Collectives and windowed bandwidths have no model, PingPong has one in the text, the JSON and the
// database; osu_latency's is of the latency it prints.
TEST(CurveModel, OnlyLatencyCurvesAreModelled) {
  const auto dir = temp_dir();
  const std::string db = dir + "/r.sqlite";
  const auto imb = run_mpi(2,
                           {"imb-mpi1", "PingPong", "Allreduce", "Uniband", "-msglog", "0:12",
                            "-iter", "20", "--json", dir + "/imb.json", "--db", db},
                           "", 120);
  ASSERT_EQ(imb.exit_code, 0) << imb.err;
  for (const auto& table : json::parse(read_file(dir + "/imb.json")).at("benchmarks"))
    EXPECT_EQ(table.contains("model"), table.at("name") == "PingPong") << table.at("name");
  EXPECT_EQ(count_of(imb.out, "# Model (mpiscope): t(X) = alpha + X/beta"), 1) << imb.out;
  EXPECT_EQ(imb.out.find("# Allreduce (2 processes)"), std::string::npos) << imb.out;
  // The database holds the same model as the JSON, and none for the others.
  const auto stored = query(db, "SELECT name, model FROM benchmarks ORDER BY seq");
  ASSERT_EQ(stored.size(), 3u);
  for (const auto& row : stored) {
    SCOPED_TRACE(row.at(0));
    if (row.at(0) != "PingPong") {
      EXPECT_EQ(row.at(1), "");
      continue;
    }
    const json model = json::parse(row.at(1));
    EXPECT_EQ(model.at("kind"), "piecewise_hockney");
    EXPECT_EQ(model, json::parse(read_file(dir + "/imb.json")).at("benchmarks").at(0).at("model"));
  }

  const auto osu = run_mpi(
      2, {"osu", "osu_latency", "-m", "1:65536", "--json", dir + "/osu.json", "--no-db"}, "", 120);
  ASSERT_EQ(osu.exit_code, 0) << osu.err;
  const json table = json::parse(read_file(dir + "/osu.json")).at("benchmarks").at(0);
  ASSERT_TRUE(table.contains("model")) << table.dump();
  EXPECT_EQ(table.at("model").at("time_column"), "the time printed");
  EXPECT_NE(osu.out.find("# osu_latency (2 processes): "), std::string::npos) << osu.out;
}
