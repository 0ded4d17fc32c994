// Import of other benchmarks' text output: the hand-written samples in tests/data/import follow
// the published formats (IMB guide, OSU micro-benchmarks, SKaMPI 5 output files). The
// mpiscope_skampi*.out samples were written by real runs of mpiscope skampi (2 Open MPI ranks,
// tests/data/import/mpiscope_skampi.skampi): mpiscope_skampi.out and mpiscope_skampi_b.out two
// classic runs, mpiscope_skampi_merged.out `skampi postproc` of the two,
// mpiscope_skampi_accurate.out a run with --method accurate.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "db/import.hpp"
#include "suites/osu/osu.hpp"

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

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first twelve columns (argument … defects) of every data row of suite `name` in an mpiscope
// skampi output file, read here without the suite's own reader (docs/skampi.md's format).
std::vector<std::vector<double>> block_rows(const std::string& text, const std::string& name) {
  std::vector<std::vector<double>> rows;
  std::istringstream in(text);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "@BEGIN_SUITE " + name) inside = true;
    if (line == "@END_SUITE " + name) inside = false;
    if (!inside || line.empty() || line[0] == '@' || line[0] == '#') continue;
    std::istringstream cells(line);
    std::vector<double> row(12);
    for (auto& v : row) cells >> v;
    rows.push_back(row);
  }
  return rows;
}
enum Column { kArgument, kBytes, kNprocs, kChunks, kT, kStderr, kRaw, kEmpty, kReps, kUsed };

double value_of(const core::Measurement& m, const std::string& name, const std::string& unit) {
  const auto* v = m.value(name);
  if (!v) throw std::runtime_error("no value " + name);
  EXPECT_EQ(v->unit, unit) << name;
  return v->value;
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

// Current IMB's Uniband and Biband, captured from Intel's IMB-MPI1 2021.11 (2 Open MPI ranks,
// -msglog 0:10): Msg/sec is stored as "message_rate", Mbytes/sec (10^6) as MiB/s, and the time of
// one window of 256 messages per pair (both ways for Biband) follows from the message rate.
TEST(DbImport, ImbUnibandAndBibandKeepTheMessageRateAndGiveTheWindowTime) {
  const auto r = db::import_file(sample("imb_2021_uniband_biband.txt"));
  EXPECT_EQ(r.info.settings.at("imb_version"), "2021.11");
  const auto& uni = table(r, "Uniband", 2);
  const auto& bi = table(r, "Biband", 2);
  for (const auto* t : {&uni, &bi}) {
    EXPECT_TRUE(t->message_rate);
    EXPECT_TRUE(t->has_throughput);
    ASSERT_EQ(t->rows.size(), 12u);
  }
  const auto& row = uni.rows[11];  // 1024 273.65 267232
  EXPECT_EQ(row.bytes, 1024u);
  EXPECT_EQ(row.repetitions, 1000);
  EXPECT_NEAR(row.mbytes_per_sec.value(), 273.65 / 1.048576, 1e-9);
  EXPECT_DOUBLE_EQ(value_of(row, "message_rate", "messages/s"), 267232);
  EXPECT_NEAR(row.t_max_us, 256 / 267232.0 * 1e6, 1e-6);
  EXPECT_DOUBLE_EQ(value_of(uni.rows[0], "message_rate", "messages/s"), 1325242);
  const auto& bi_row = bi.rows[11];  // 1024 273.02 266619: two windows per repetition
  EXPECT_NEAR(bi_row.t_max_us, 2 * 256 / 266619.0 * 1e6, 1e-6);
  // -window_size in the calling sequence sets the window; IMB before 2021.2 used 64.
  auto window_time = [](const std::string& title, const std::string& call) {
    return db::parse_imb_text("#----\n#    " + title + "\n#----\n# Calling sequence was: \n\n# " +
                              call + "\n\n# Benchmarking Uniband\n# #processes = 4\n#----\n" +
                              "       #bytes #repetitions   Mbytes/sec      Msg/sec\n" +
                              "            8         1000         8.00      1000000\n")
        .benchmarks.at(0)
        .rows.at(0)
        .t_max_us;
  };
  EXPECT_DOUBLE_EQ(window_time("Intel(R) MPI Benchmarks 2021.11, MPI-1 part", "IMB-MPI1 Uniband"),
                   2 * 256);
  EXPECT_DOUBLE_EQ(window_time("Intel(R) MPI Benchmarks 2021.11, MPI-1 part",
                               "IMB-MPI1 Uniband -window_size 32"),
                   2 * 32);
  EXPECT_DOUBLE_EQ(
      window_time("Intel(R) MPI Benchmarks 2019 Update 6, MPI-1 part", "IMB-MPI1 Uniband"), 2 * 64);
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

// OSU 7.4's non-blocking collectives (captured from its binaries): the programs by their titles
// (mpiscope's names: "Non-Blocking Broadcast" is osu_ibcast), Overall as the time, the overlap
// figures, -f's phases as the named values mpiscope's rows carry, osu_ibarrier without a size.
TEST(DbImport, OsuNonBlockingTablesKeepTheOverlapFigures) {
  const auto r = db::import_file(sample("osu_nbc_7.4.txt"));
  EXPECT_EQ(r.info.suite_title, "OSU Micro-Benchmarks 7.4");
  ASSERT_EQ(r.benchmarks.size(), 4u);
  const auto& ag = r.benchmarks[0];
  EXPECT_EQ(ag.name, "osu_iallgather");
  EXPECT_TRUE(ag.overlap);
  EXPECT_EQ(ag.parameters.at("datatype"), "MPI_CHAR");
  ASSERT_EQ(ag.rows.size(), 5u);
  const auto& first = ag.rows[0];
  EXPECT_DOUBLE_EQ(first.t_avg_us, 2.74);
  ASSERT_TRUE(first.overlap.has_value());
  EXPECT_DOUBLE_EQ(first.overlap->t_cpu_us, 2.21);
  EXPECT_DOUBLE_EQ(first.overlap->t_pure_us, 1.85);
  EXPECT_DOUBLE_EQ(first.overlap->overlap_percent, 71.66);
  EXPECT_EQ(first.overlap->base, core::OverlapBase::Pure);
  EXPECT_TRUE(first.values.empty());

  const auto& bc = r.benchmarks[1];
  EXPECT_EQ(bc.name, "osu_ibcast");
  ASSERT_EQ(bc.rows.size(), 4u);
  const auto& row = bc.rows[0];
  EXPECT_DOUBLE_EQ(row.t_avg_us, 1.98);
  EXPECT_DOUBLE_EQ(row.overlap->t_pure_us, 0.97);
  EXPECT_DOUBLE_EQ(row.overlap->overlap_percent, 45.19);
  ASSERT_NE(row.value("coll_init_us"), nullptr);
  EXPECT_DOUBLE_EQ(row.value("coll_init_us")->value, 0.14);
  EXPECT_DOUBLE_EQ(row.value("mpi_test_us")->value, 0.25);
  EXPECT_DOUBLE_EQ(row.value("mpi_wait_us")->value, 0.03);
  EXPECT_DOUBLE_EQ(row.value("t_pure_min_us")->value, 0.59);
  EXPECT_DOUBLE_EQ(row.value("t_pure_max_us")->value, 1.34);

  const auto& ib = r.benchmarks[2];
  EXPECT_EQ(ib.name, "osu_ibarrier");
  EXPECT_FALSE(ib.sized);
  ASSERT_EQ(ib.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(ib.rows[0].t_avg_us, 3.35);
  EXPECT_DOUBLE_EQ(ib.rows[0].overlap->overlap_percent, 57.14);

  EXPECT_EQ(r.benchmarks[3].name, "osu_iallreduce");
  EXPECT_EQ(r.benchmarks[3].parameters.at("datatype"), "MPI_FLOAT");
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

// mpiscope's own SKaMPI output file gives the tables a live run records: one per suite, named
// and parametrised as skampi's reporters name them, each row's figures with their units.
TEST(DbImport, MpiscopeSkampiOutputGivesTheTablesItsRunRecorded) {
  const std::string path = sample("mpiscope_skampi.out");
  EXPECT_EQ(db::detect_format(text_of(path)), db::Format::kMpiscopeSkampi);
  const auto r = db::import_file(path);
  EXPECT_EQ(r.source, "import:mpiscope-skampi");
  EXPECT_EQ(r.info.suite, "skampi");
  EXPECT_EQ(r.info.suite_title, "SKaMPI");
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.info.world_size, 2);
  EXPECT_NE(r.info.mpi_library.find("Open MPI"), std::string::npos) << r.info.mpi_library;
  EXPECT_FALSE(r.info.date_iso.empty());
  EXPECT_FALSE(r.info.mpiscope_version.empty());
  EXPECT_EQ(r.info.settings.at("machine"), "test machine");
  EXPECT_EQ(r.info.settings.at("memory_kb"), "1024");
  EXPECT_EQ(r.info.settings.at("cachewarmup"), "1");
  EXPECT_EQ(r.info.settings.count("merged"), 0u);
  EXPECT_EQ(r.info.benchmarks,
            (std::vector<std::string>{"PingPong_Send_Recv", "Allreduce", "Barrier"}));
  const std::string text = text_of(path);

  const auto& pp = table(r, "PingPong_Send_Recv", 2);
  EXPECT_EQ(pp.family, "ping-pong");
  EXPECT_TRUE(pp.sized);
  EXPECT_EQ(pp.parameters.at("type"), "1");
  EXPECT_EQ(pp.parameters.at("operation"), "MPI_Send-MPI_Recv");
  EXPECT_EQ(pp.parameters.at("variation"), "Length");
  EXPECT_EQ(pp.parameters.at("argument_unit"), "bytes");
  EXPECT_EQ(pp.parameters.at("method"), "classic");
  // The pair is chosen by latency at every run: a setting, not the table's identity.
  EXPECT_EQ(pp.parameters.count("pair"), 0u);
  EXPECT_EQ(r.info.settings.at("pingpong_pair"), "0-1");
  EXPECT_EQ(pp.parameters.count("measurement"), 0u);
  const auto rows = block_rows(text, "PingPong_Send_Recv");
  ASSERT_EQ(pp.rows.size(), rows.size());
  ASSERT_GE(rows.size(), 8u);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto& m = pp.rows[k];
    const auto& f = rows[k];
    EXPECT_TRUE(m.measured);
    EXPECT_EQ(m.bytes, static_cast<std::size_t>(f[kBytes]));
    EXPECT_EQ(m.repetitions, static_cast<int>(f[kReps]));
    EXPECT_DOUBLE_EQ(m.t_avg_us, f[kT]);  // SKaMPI's one figure: t = t_min = t_max
    EXPECT_DOUBLE_EQ(m.t_max_us, f[kT]);
    EXPECT_DOUBLE_EQ(m.t_min_us, f[kT]);
    EXPECT_DOUBLE_EQ(value_of(m, "argument", "bytes"), f[kArgument]);
    EXPECT_DOUBLE_EQ(value_of(m, "nprocs", "processes"), 2);
    EXPECT_DOUBLE_EQ(value_of(m, "standard_error", "us"), f[kStderr]);
    EXPECT_DOUBLE_EQ(value_of(m, "raw_mean", "us"), f[kRaw]);
    EXPECT_DOUBLE_EQ(value_of(m, "empty", "us"), f[kEmpty]);
    EXPECT_DOUBLE_EQ(value_of(m, "used_repetitions", "repetitions"), f[kUsed]);
  }

  const auto& allreduce = table(r, "Allreduce", 2);
  EXPECT_EQ(allreduce.family, "collective");
  EXPECT_EQ(allreduce.rows.size(), block_rows(text, "Allreduce").size());
  EXPECT_EQ(allreduce.rows.back().bytes, 1024u);

  const auto& barrier = table(r, "Barrier", 2);  // the Nodes axis: one table, nprocs its last
  EXPECT_FALSE(barrier.sized);
  EXPECT_EQ(barrier.parameters.at("argument_unit"), "processes");
  ASSERT_EQ(barrier.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(value_of(barrier.rows[0], "argument", "processes"), 1);
  EXPECT_DOUBLE_EQ(value_of(barrier.rows[1], "nprocs", "processes"), 2);
  // The capture's Barrier times, -2.8e-11 and -2000.25 us (issue 36's negative collective times),
  // are no measurement: stored as not measured, with a note on the run.
  EXPECT_FALSE(barrier.rows[0].measured);
  EXPECT_FALSE(barrier.rows[1].measured);
  EXPECT_NE(barrier.rows[1].note.find("t_min -2000.25 us"), std::string::npos)
      << barrier.rows[1].note;
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("stored as not measured (first: Barrier"), std::string::npos);
}

// postproc's medians of two runs: every row the median (of two: the mean) of the runs that
// measured its argument, marked as such in the run's settings, its notes and each row.
TEST(DbImport, MpiscopeSkampiPostprocMediansAreMarkedAsMedians) {
  const auto r = db::import_file(sample("mpiscope_skampi_merged.out"));
  EXPECT_EQ(r.info.settings.at("merged"), "median of 2 runs (mpiscope skampi postproc)");
  ASSERT_EQ(r.notes.size(), 2u);  // and the non-physical Barrier rows (see above)
  EXPECT_NE(r.notes[0].find("median over the runs"), std::string::npos) << r.notes[0];
  const std::string a = text_of(sample("mpiscope_skampi.out")),
                    b = text_of(sample("mpiscope_skampi_b.out"));
  std::size_t both = 0;
  for (const auto& t : r.benchmarks) {
    EXPECT_EQ(t.parameters.count("runs"), 0u);  // so that the tables match single runs' tables
    for (const auto& m : t.rows) {
      const double argument = m.value("argument")->value;
      auto find = [&](const std::string& text) -> std::optional<double> {
        for (const auto& row : block_rows(text, t.name))
          if (row[kArgument] == argument) return row[kT];
        return std::nullopt;
      };
      const auto ta = find(a), tb = find(b);
      ASSERT_TRUE(ta || tb) << t.name << " " << argument;
      const double runs = value_of(m, "merged_runs", "runs whose median this row is");
      EXPECT_EQ(runs, (ta ? 1 : 0) + (tb ? 1 : 0));
      if (!m.measured) continue;  // a non-physical median (Barrier's negative times)
      const double expected = ta && tb ? (*ta + *tb) / 2 : ta ? *ta : *tb;
      EXPECT_NEAR(m.t_avg_us, expected, 1e-5 * std::abs(expected) + 1e-9) << t.name;
      EXPECT_EQ(m.repetitions, 0);  // a median over runs, not a count of repetitions
      EXPECT_EQ(m.value("used_repetitions"), nullptr);
      if (ta && tb) ++both;
    }
  }
  EXPECT_GE(both, 8u);
}

// Accurate mode's rows keep their median, interval and counts, stored as a live accurate run
// stores them (the table's measurement=accurate, median_us, ci95_low_us, ...).
TEST(DbImport, MpiscopeSkampiAccurateRowsKeepTheirMedianAndInterval) {
  const auto r = db::import_file(sample("mpiscope_skampi_accurate.out"));
  const auto& pp = table(r, "PingPong_Send_Recv", 2);
  EXPECT_EQ(pp.parameters.at("method"), "accurate");
  EXPECT_EQ(pp.parameters.at("measurement"), "accurate");
  const auto rows =
      block_rows(text_of(sample("mpiscope_skampi_accurate.out")), "PingPong_Send_Recv");
  ASSERT_EQ(pp.rows.size(), rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto& m = pp.rows[k];
    ASSERT_TRUE(m.accurate);
    EXPECT_DOUBLE_EQ(value_of(m, "median_us", "microseconds"), rows[k][kT]);
    EXPECT_LE(value_of(m, "ci95_low_us", "microseconds"),
              value_of(m, "ci95_high_us", "microseconds"));
    EXPECT_EQ(m.accurate->attempted, static_cast<int>(rows[k][kReps]));
    EXPECT_EQ(value_of(m, "valid_repetitions", "repetitions"), rows[k][kUsed]);
    EXPECT_LE(m.t_min_us, rows[k][kT]);
  }
  // Barrier over Nodes: the collective pattern has a complete repetition, so it is accurate too.
  EXPECT_EQ(table(r, "Barrier", 2).parameters.at("measurement"), "accurate");
}

// A run that crashed leaves a torn block: the complete suites are imported, the run is marked
// as not finished. Damaged files are errors naming the line; a huge block is refused.
TEST(DbImport, MpiscopeSkampiTornAndDamagedFiles) {
  const std::string text = text_of(sample("mpiscope_skampi.out"));
  const auto second = text.find("@BEGIN_SUITE Allreduce");
  ASSERT_NE(second, std::string::npos);
  const auto row = text.find("\n4 ", second);
  ASSERT_NE(row, std::string::npos);
  const std::string torn = text.substr(0, row + 6);  // a row cut in the middle
  const auto r = db::parse_mpiscope_skampi_text(torn);
  ASSERT_EQ(r.benchmarks.size(), 1u);
  EXPECT_EQ(r.benchmarks[0].name, "PingPong_Send_Recv");
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("suite Allreduce was interrupted"), std::string::npos) << r.notes[0];

  auto error = [](const std::string& t) {
    try {
      db::parse_mpiscope_skampi_text(t);
    } catch (const db::ImportError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string damaged = text;
  damaged.insert(row + 1, "4 4 2 0 x\n");
  const auto line = std::count(text.begin(), text.begin() + static_cast<long>(row) + 1, '\n') + 1;
  EXPECT_EQ(error(damaged), "line " + std::to_string(line) + ": malformed data row");
  std::string bad_nodes = text;
  bad_nodes.insert(row + 1, "4 4 2 0 1 1 1 0 4 4 1 0 1.5,abc\n");
  EXPECT_EQ(error(bad_nodes), "line " + std::to_string(line) + ": malformed data row");
  const auto first = text.find("@BEGIN_SUITE ");
  EXPECT_EQ(error(text.substr(0, first) + "@BEGIN_SUITE PingPong_Send_Recv\n"),
            "no complete suite block ('@BEGIN_SUITE NAME' … '@END_SUITE NAME') found");
  EXPECT_EQ(error("# comment\n" + text),
            "line 1: not a SKaMPI output file (no #SKAMPI-OUTPUT line)");
  std::string huge = "#SKAMPI-OUTPUT 1\n@BEGIN_SUITE H\n@TYPE 1\n";
  for (int k = 0; k <= 100000; ++k) huge += "4 4 2 0 1 0 1 0 2 2 1 0 -\n";
  EXPECT_NE(error(huge).find("table 'H' has more than 100000 rows"), std::string::npos);
}

// Issue 36: OSU 7.4's diagnostic header lines ("# HOST/POSIX_MEMALIGN: allocated 8 bytes at
// 0x55d0…", printed by every rank and forwarded among the table's header lines) are not
// parameters: the table's identity is the program and its datatype, as a live run records it.
TEST(DbImport, OsuDiagnosticHeaderLinesAreNotParameters) {
  const auto r = db::import_file(sample("osu_latency_7.4_memalign.txt"));
  ASSERT_EQ(r.benchmarks.size(), 1u);
  const auto& b = r.benchmarks[0];
  EXPECT_EQ(b.name, "osu_latency");
  EXPECT_EQ(b.parameters, (std::map<std::string, std::string>{{"datatype", "MPI_CHAR"}}));
  EXPECT_EQ(b.rows.size(), 4u);  // 1 to 8 bytes: OSU 7.4's osu_latency prints no 0-byte row
  const auto one_sided = db::import_file(sample("osu_one_sided_7.4.txt"));
  for (const auto& t : one_sided.benchmarks) {
    EXPECT_EQ(t.parameters.count("window creation"), 1u) << t.name;
    EXPECT_EQ(t.parameters.count("synchronization"), 1u) << t.name;
  }
}

// A time of zero or below, or a negative bandwidth, is no measurement: the row is stored as not
// measured (as a row IMB printed without numbers), with a note, so that compare never calls it
// "faster".
TEST(DbImport, NonPhysicalFiguresAreStoredAsNotMeasured) {
  const auto osu = db::parse_osu_text(
      "# OSU MPI Latency Test v7.4\n# Datatype: MPI_CHAR.\n# Size          Latency (us)\n"
      "0                       0.21\n1                      -1.50\n2                       0.00\n"
      "4                       0.22\n");
  ASSERT_EQ(osu.benchmarks.size(), 1u);
  const auto& rows = osu.benchmarks[0].rows;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_TRUE(rows[0].measured);
  EXPECT_FALSE(rows[1].measured);
  EXPECT_EQ(rows[1].bytes, 1u);
  EXPECT_NE(rows[1].note.find("t_avg -1.5 us"), std::string::npos) << rows[1].note;
  EXPECT_FALSE(rows[2].measured);
  EXPECT_TRUE(rows[3].measured);
  ASSERT_EQ(osu.notes.size(), 1u);
  EXPECT_NE(osu.notes[0].find("stored as not measured (first: osu_latency, t_avg -1.5 us)"),
            std::string::npos)
      << osu.notes[0];

  const auto imb = db::parse_imb_text(
      "# Benchmarking PingPong\n# #processes = 2\n#----\n"
      "       #bytes #repetitions      t[usec]   Mbytes/sec\n"
      "            0         1000         0.50         0.00\n"
      "            1         1000         0.50        -2.00\n");
  ASSERT_EQ(imb.benchmarks.size(), 1u);
  EXPECT_TRUE(imb.benchmarks[0].rows[0].measured);  // no bandwidth at 0 bytes is physical
  EXPECT_FALSE(imb.benchmarks[0].rows[1].measured);
  EXPECT_NE(imb.benchmarks[0].rows[1].note.find("bandwidth -2 MiB/s"), std::string::npos);
}

// Issue 31, item 5: an imported OSU table has the family and process count a live run of the
// program records (osu::table_kind, from the one description of each program), so that the two
// land in the same table of compare and the report. osu_multi_pair_7.4.txt is OSU 7.4's own
// osu_mbw_mr and osu_multi_lat (2 Open MPI ranks), which a live run records as parallel
// transfers, and the one-sided programs as single transfers on 2 processes.
TEST(DbImport, OsuTablesHaveTheFamilyOfALiveRun) {
  std::map<std::string, std::string> seen;  // program -> family
  for (const char* file :
       {"osu_mixed.txt", "osu_nbc_7.4.txt", "osu_one_sided_7.4.txt", "osu_one_sided_more_7.4.txt",
        "osu_reductions_7.4.txt", "osu_multi_pair_7.4.txt", "osu_latency_7.4_memalign.txt",
        "osu_nbc_block_and_w_7.4.txt"}) {
    SCOPED_TRACE(file);
    const auto r = db::import_file(sample(file));
    ASSERT_FALSE(r.benchmarks.empty());
    for (const auto& b : r.benchmarks) {
      const auto* program = osu::find_program(b.name);
      ASSERT_NE(program, nullptr) << b.name;
      const auto kind = osu::table_kind(*program);
      EXPECT_EQ(b.family, kind.family) << b.name;
      EXPECT_EQ(b.nprocs, kind.nprocs) << b.name;
      seen[b.name] = b.family;
    }
  }
  EXPECT_EQ(seen["osu_mbw_mr"], "parallel_transfer");
  EXPECT_EQ(seen["osu_multi_lat"], "parallel_transfer");
  EXPECT_EQ(seen["osu_put_latency"], "single_transfer");
  EXPECT_EQ(seen["osu_bw"], "single_transfer");
  EXPECT_EQ(seen["osu_allreduce"], "collective");
  EXPECT_EQ(seen["osu_ibcast"], "collective");
}

// An imported point-to-point curve gets its model as a live run's (core/curve_model.hpp): IMB's
// PingPong of its t_max, OSU's osu_latency of the mean its file gives; collectives none.
TEST(DbImport, PointToPointCurvesGetTheModelOfALiveRun) {
  // Intel's IMB-MPI1 PingPong -msglog 0:20, Open MPI 4.1.4 here: vader's eager limit at 4 KiB.
  const auto imb = db::import_file(sample("imb_mpi1_pingpong_openmpi_2021.11.txt"));
  const auto& pingpong = imb.benchmarks.at(0);
  ASSERT_EQ(pingpong.name, "PingPong");
  EXPECT_EQ(pingpong.family, "single_transfer");
  ASSERT_TRUE(pingpong.model);
  EXPECT_EQ(pingpong.model->time_column, "t_max");
  EXPECT_EQ(pingpong.model->regions.front().first_bytes, 0u);
  EXPECT_EQ(pingpong.model->regions.back().last_bytes, 1048576u);
  bool imb_switch_at_4096 = false;
  for (const auto& region : pingpong.model->regions)
    imb_switch_at_4096 |= region.first_bytes == 4096;
  EXPECT_TRUE(imb_switch_at_4096);
  // Collectives have none; a curve of 4 lengths is too short for one.
  const auto short_one = db::import_file(sample("imb_mpi1_openmpi.txt"));
  for (const auto& b : short_one.benchmarks) {
    EXPECT_FALSE(b.model) << b.name;
    EXPECT_EQ(b.family, b.name == "PingPong" || b.name == "PingPing"   ? "single_transfer"
                        : b.name == "Sendrecv" || b.name == "Exchange" ? "parallel_transfer"
                                                                       : "collective")
        << b.name;
  }
  // OSU 7.4's osu_latency -m 0:65536, Open MPI 4.1.4 here: vader's eager limit at 4 KiB.
  const auto osu = db::import_file(sample("osu_latency_7.4_to_64k.txt"));
  const auto& latency = osu.benchmarks.at(0).model;
  ASSERT_TRUE(latency);
  EXPECT_EQ(latency->time_column, "t_avg");
  bool switch_at_4096 = false;
  for (const auto& region : latency->regions) switch_at_4096 |= region.first_bytes == 4096;
  EXPECT_TRUE(switch_at_4096);
}
