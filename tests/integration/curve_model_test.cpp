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
  for (const int limit : {1024, 16384}) {
    SCOPED_TRACE(limit);
    const std::string value = std::to_string(limit);
    const std::string json_path = dir + "/pingpong" + value + ".json";
    const auto r =
        run_mpi(2, {"imb-mpi1", "PingPong", "-msglog", "0:18", "--json", json_path, "--no-db"},
                "OMPI_MCA_btl_vader_eager_limit=" + value + " UCX_RNDV_THRESH=" + value, 120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json run = json::parse(read_file(json_path));
    const json& table = run.at("benchmarks").at(0);
    ASSERT_TRUE(table.contains("model")) << table.dump();
    const json& model = table.at("model");
    EXPECT_EQ(model.at("kind"), "piecewise_hockney");
    EXPECT_EQ(model.at("time_column"), "t_max");
    bool switch_at_limit = false;
    for (const auto& region : model.at("regions"))
      switch_at_limit |= region.at("first_bytes").get<int>() == limit;
    EXPECT_TRUE(switch_at_limit) << model.dump(1) << "\n" << r.out;
    // The text says it after the tables, before IMB's last line.
    const auto said =
        r.out.find("#   switch between " + std::to_string(limit / 2) + " and " + value + " bytes");
    EXPECT_NE(said, std::string::npos) << r.out;
    EXPECT_LT(said, r.out.find("# All processes entering MPI_Finalize")) << r.out;
  }
}

// Collectives and windowed bandwidths have no model; osu_latency's is of the latency it prints.
TEST(CurveModel, OnlyLatencyCurvesAreModelled) {
  const auto dir = temp_dir();
  const auto imb = run_mpi(2,
                           {"imb-mpi1", "Allreduce", "Uniband", "-msglog", "0:12", "-iter", "20",
                            "--json", dir + "/imb.json", "--no-db"},
                           "", 120);
  ASSERT_EQ(imb.exit_code, 0) << imb.err;
  for (const auto& table : json::parse(read_file(dir + "/imb.json")).at("benchmarks"))
    EXPECT_FALSE(table.contains("model")) << table.at("name");
  EXPECT_EQ(imb.out.find("Model of the point-to-point curves"), std::string::npos) << imb.out;

  const auto osu = run_mpi(
      2, {"osu", "osu_latency", "-m", "1:65536", "--json", dir + "/osu.json", "--no-db"}, "", 120);
  ASSERT_EQ(osu.exit_code, 0) << osu.err;
  const json table = json::parse(read_file(dir + "/osu.json")).at("benchmarks").at(0);
  ASSERT_TRUE(table.contains("model")) << table.dump();
  EXPECT_EQ(table.at("model").at("time_column"), "the time printed");
  EXPECT_NE(osu.out.find("# osu_latency (2 processes): "), std::string::npos) << osu.out;
}
