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
  // IMB 2021 prints 25.00 Mbytes/sec (10^6 bytes/s); stored as 23.84 MiB/s, and as printed.
  EXPECT_NEAR(pp.rows[3].mbytes_per_sec.value(), 25.0 / 1.048576, 1e-9);
  ASSERT_NE(pp.rows[3].value("imb_bandwidth"), nullptr);
  EXPECT_DOUBLE_EQ(pp.rows[3].value("imb_bandwidth")->value, 25.0);
  EXPECT_EQ(r.info.settings.at("imb_version"), "2021.3");

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

// IMB 3.x prints Mbytes/sec as 2^20 bytes/s, the unit the database stores: kept unchanged. The
// versions come from each banner as IMB prints it.
TEST(DbImport, ImbBandwidthUnitFollowsTheVersionInTheBanner) {
  const auto old = db::import_file(sample("imb3_pingpong.txt"));
  EXPECT_EQ(old.info.settings.at("imb_version"), "3.2.4");
  const auto& pp = table(old, "PingPong", 2);
  ASSERT_EQ(pp.rows.size(), 3u);
  EXPECT_DOUBLE_EQ(pp.rows[1].mbytes_per_sec.value(), 23.84);
  EXPECT_EQ(pp.rows[1].value("imb_bandwidth"), nullptr);

  auto banner = [](const std::string& title) {
    return db::parse_imb_text("#----\n#    " + title +
                              "\n#----\n# Benchmarking PingPong\n# #processes = 2\n#----\n"
                              "       #bytes #repetitions      t[usec]   Mbytes/sec\n"
                              "      1000000         1000         1.00   1000000.00\n");
  };
  auto stored = [&](const std::string& title) {
    return banner(title).benchmarks.at(0).rows.at(0).mbytes_per_sec.value();
  };
  const double mib = 1e12 / 1048576.0;  // 10^6 MB/s (10^6) in MiB/s
  EXPECT_NEAR(stored("Intel (R) MPI Benchmarks 2018, MPI-1 part    "), mib, 1e-6);
  EXPECT_NEAR(stored("Intel(R) MPI Benchmarks 2019 Update 6, MPI-1 part"), mib, 1e-6);
  EXPECT_NEAR(stored("Intel(R) MPI Benchmarks 2021.11, MPI-1 part"), mib, 1e-6);
  EXPECT_DOUBLE_EQ(stored("Intel (R) MPI Benchmark Suite V3.1, MPI-1 part    "), 1e6);
  EXPECT_DOUBLE_EQ(stored("mpiscope 1.0.0, IMB 3.1 compatible tables (MPI-1 part)    "), 1e6);
  EXPECT_EQ(
      banner("Intel(R) MPI Benchmarks 2019 Update 6, MPI-1 part").info.settings.at("imb_version"),
      "2019 Update 6");
  // No title at all: taken as 2^20, and the run says so.
  const auto bare = db::parse_imb_text(
      "# Benchmarking PingPong\n# #processes = 2\n#----\n"
      "       #bytes #repetitions      t[usec]   Mbytes/sec\n"
      "            8         1000         1.00         7.63\n");
  EXPECT_DOUBLE_EQ(bare.benchmarks.at(0).rows.at(0).mbytes_per_sec.value(), 7.63);
  ASSERT_EQ(bare.notes.size(), 1u);
  EXPECT_NE(bare.notes[0].find("not recognised"), std::string::npos);
}

// Current IMB-IO: its title runs into the dash line ("MPI-IO partn#---"), it spells the file
// pointer S_Write_Indv and calls its reads AGGREGATE; imports take mpiscope's names and modes.
TEST(DbImport, ImbIoTablesTakeMpiscopesNamesAndModes) {
  const auto r = db::import_file(sample("imb_io_2021.txt"));
  EXPECT_EQ(r.info.suite, "imb-io");
  EXPECT_EQ(r.info.suite_title, "Intel(R) MPI Benchmarks 2021.7, MPI-IO part");
  ASSERT_EQ(r.benchmarks.size(), 3u);
  EXPECT_EQ(r.benchmarks[0].name, "S_Write_indv");
  EXPECT_EQ(r.benchmarks[0].mode, "aggregate");
  EXPECT_EQ(r.benchmarks[1].mode, "non-aggregate");
  EXPECT_EQ(r.benchmarks[2].name, "S_Read_indv");
  EXPECT_EQ(r.benchmarks[2].mode, "");
  EXPECT_NEAR(r.benchmarks[2].rows[2].mbytes_per_sec.value(), 16.0 / 1.048576, 1e-9);
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
