// Import of other benchmarks' text output: the hand-written samples in tests/data/import follow
// the published formats (IMB guide, OSU micro-benchmarks, SKaMPI 5 output files).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "db/import.hpp"

using namespace mpiscope;

namespace {

std::string sample(const std::string& name) {
  return (std::filesystem::path(__FILE__).parent_path().parent_path() / "data" / "import" / name)
      .string();
}

const core::BenchmarkRun& table(const db::StoredRun& r, const std::string& name, int nprocs) {
  for (const auto& b : r.benchmarks)
    if (b.name == name && b.nprocs == nprocs) return b;
  throw std::runtime_error("no table " + name);
}

}  // namespace

TEST(DbImport, ImbTextGivesEveryTableWithItsColumns) {
  const auto r = db::import_file(sample("imb_mpi1_openmpi.txt"));
  EXPECT_EQ(r.source, "import:imb");
  EXPECT_EQ(r.info.suite, "imb-mpi1");
  EXPECT_EQ(r.info.date, "Tue Mar  5 14:02:11 2024");
  EXPECT_EQ(r.info.release, "6.1.0-18-amd64");
  EXPECT_EQ(r.info.mpi_version, "3.1");
  EXPECT_EQ(r.info.world_size, 4);
  EXPECT_EQ(r.info.command_line.front(), "./IMB-MPI1");
  ASSERT_EQ(r.benchmarks.size(), 4u);

  const auto& pp = table(r, "PingPong", 2);
  EXPECT_EQ(pp.inactive, 2);
  EXPECT_TRUE(pp.sized);
  EXPECT_TRUE(pp.has_throughput);
  ASSERT_EQ(pp.rows.size(), 4u);
  EXPECT_EQ(pp.rows[3].bytes, 16u);
  EXPECT_EQ(pp.rows[3].repetitions, 1000);
  EXPECT_DOUBLE_EQ(pp.rows[3].t_max_us, 0.64);  // t[usec] is IMB's t_max
  EXPECT_TRUE(std::isnan(pp.rows[3].t_min_us));
  EXPECT_DOUBLE_EQ(pp.rows[3].mbytes_per_sec.value(), 23.84);

  const auto& ar = table(r, "Allreduce", 4);
  ASSERT_EQ(ar.rows.size(), 4u);
  EXPECT_FALSE(ar.has_throughput);
  EXPECT_DOUBLE_EQ(ar.rows[1].t_min_us, 2.00);
  EXPECT_DOUBLE_EQ(ar.rows[1].t_max_us, 2.40);
  EXPECT_DOUBLE_EQ(ar.rows[1].t_avg_us, 2.20);

  const auto& barrier = table(r, "Barrier", 4);
  EXPECT_FALSE(barrier.sized);
  ASSERT_EQ(barrier.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(barrier.rows[0].t_avg_us, 1.90);
}

TEST(DbImport, OsuTablesConvertMegabytesAndKeepThePrintedValue) {
  const auto r = db::import_file(sample("osu_mixed.txt"));
  EXPECT_EQ(r.source, "import:osu");
  EXPECT_EQ(r.info.suite_title, "OSU Micro-Benchmarks 7.3");
  ASSERT_EQ(r.benchmarks.size(), 3u);
  const auto& bw = r.benchmarks[0];
  EXPECT_EQ(bw.name, "osu_bw");
  EXPECT_EQ(bw.nprocs, 2);
  ASSERT_EQ(bw.rows.size(), 3u);  // the launcher's lines between the tables are skipped
  EXPECT_EQ(bw.rows[2].bytes, 1024u);
  // 1048.58 MB/s (10^6) = 1000.00 MiB/s (2^20)
  EXPECT_NEAR(bw.rows[2].mbytes_per_sec.value(), 1000.0, 0.01);
  ASSERT_EQ(bw.rows[2].values.size(), 1u);
  EXPECT_DOUBLE_EQ(bw.rows[2].values[0].value, 1048.58);

  const auto& ar = r.benchmarks[1];
  EXPECT_EQ(ar.name, "osu_allreduce");
  ASSERT_EQ(ar.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(ar.rows[1].t_avg_us, 1.41);
  EXPECT_DOUBLE_EQ(ar.rows[1].t_min_us, 1.25);
  EXPECT_DOUBLE_EQ(ar.rows[1].t_max_us, 1.66);
  EXPECT_EQ(ar.rows[1].repetitions, 1000);

  const auto& barrier = r.benchmarks[2];
  EXPECT_EQ(barrier.name, "osu_barrier");
  EXPECT_FALSE(barrier.sized);
  ASSERT_EQ(barrier.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(barrier.rows[0].t_avg_us, 3.25);

  const auto lat = db::import_file(sample("osu_latency_a.txt"));
  ASSERT_EQ(lat.benchmarks.size(), 1u);
  EXPECT_EQ(lat.benchmarks[0].name, "osu_latency");
  EXPECT_EQ(lat.benchmarks[0].parameters.at("datatype"), "MPI_CHAR");
  EXPECT_EQ(lat.benchmarks[0].rows.size(), 6u);
  EXPECT_DOUBLE_EQ(lat.benchmarks[0].rows[5].t_avg_us, 4.0);
}

TEST(DbImport, SkampiResultsSplitByProcessCount) {
  const auto r = db::import_file(sample("skampi.txt"));
  EXPECT_EQ(r.source, "import:skampi");
  EXPECT_EQ(r.info.suite_title, "SKaMPI Version 5.0.4 rev. 355");
  EXPECT_EQ(r.info.date, "Tue Mar  5 16:00:00 2024");
  const auto& pp = table(r, "Pingpong_Send_Recv", 2);  // two per-process columns
  ASSERT_EQ(pp.rows.size(), 3u);
  EXPECT_EQ(pp.rows[2].bytes, 16u);
  EXPECT_DOUBLE_EQ(pp.rows[2].t_avg_us, 6.0);
  EXPECT_EQ(pp.rows[2].repetitions, 40);
  EXPECT_EQ(pp.rows[2].rank_times_us, (std::vector<double>{5.9, 6.0}));
  EXPECT_EQ(pp.rows[2].values[0].name, "std_error");
  EXPECT_DOUBLE_EQ(pp.rows[2].values[0].value, 0.3);

  const auto& bcast4 = table(r, "MPI_Bcast-nodes-length", 4);
  ASSERT_EQ(bcast4.rows.size(), 2u);
  EXPECT_EQ(bcast4.rows[1].bytes, 2u);
  EXPECT_DOUBLE_EQ(bcast4.rows[1].t_avg_us, 12.5);
  EXPECT_EQ(bcast4.rows[1].rank_times_us.size(), 4u);
  EXPECT_EQ(table(r, "MPI_Bcast-nodes-length", 2).rows.size(), 2u);

  const auto& barrier = table(r, "MPI_Barrier-nodes", 4);
  EXPECT_FALSE(barrier.sized);
  ASSERT_EQ(barrier.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(barrier.rows[0].t_avg_us, 7.0);
  EXPECT_EQ(r.info.world_size, 4);
}

TEST(DbImport, GarbageAndUnreadableFilesAreClearErrors) {
  auto message = [](const std::string& path) {
    try {
      db::import_file(path);
    } catch (const db::ImportError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto garbage = message(sample("garbage.txt"));
  EXPECT_NE(garbage.find("garbage.txt"), std::string::npos) << garbage;
  EXPECT_NE(garbage.find("not an IMB, OSU or SKaMPI output file"), std::string::npos) << garbage;
  const auto truncated = message(sample("osu_truncated.txt"));
  EXPECT_NE(truncated.find("no table of numbers"), std::string::npos) << truncated;
  const auto missing = message(sample("does-not-exist.txt"));
  EXPECT_NE(missing.find("cannot read"), std::string::npos) << missing;
  EXPECT_NE(missing.find("No such file"), std::string::npos) << missing;
  EXPECT_THROW(
      db::parse_skampi_text("# SKaMPI Version 5\n# begin result \"x\"\ncount= 1 4 abc 1 1\n"),
      db::ImportError);
  EXPECT_THROW(db::parse_imb_text("# Benchmarking PingPong\n# #processes = 2\n"), db::ImportError);
}
