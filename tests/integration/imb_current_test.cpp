// Current IMB-MPI1 (2019 and later) on top of IMB 3.1: the windowed bandwidth benchmarks Uniband
// and Biband, and the options -iter_policy, -imb_barrier, -thread_level and -window_size, each
// against what Intel's source and user guide define.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness.hpp"
#include "imb_checks.hpp"

using namespace harness;
using namespace imbcheck;
using nlohmann::json;

namespace {

const std::vector<std::string> kWindowedColumns = {"#bytes", "#repetitions", "Mbytes/sec",
                                                   "Msg/sec"};

// Messages one repetition moves: a window per pair of the P/2 pairs, both ways for Biband.
double messages_per_repetition(const std::string& name, int nprocs, int window) {
  return (name == "Biband" ? 2.0 : 1.0) * window * (nprocs / 2);
}

// Msg/sec = messages / t_max and Mbytes/sec = Msg/sec · X / 2^20, recomputed from the JSON's
// times; the text table prints the same figures rounded.
void expect_windowed_formula(const json& j, const std::vector<Table>& tables, int window) {
  std::size_t checked = 0;
  for (const auto& jb : j["benchmarks"]) {
    const auto name = jb["name"].get<std::string>();
    const int nprocs = jb["nprocs"].get<int>();
    SCOPED_TRACE(name + " at " + std::to_string(nprocs));
    const Table* text = nullptr;
    for (const auto* t : tables_named(tables, name))
      if (t->nprocs == nprocs) text = t;
    ASSERT_NE(text, nullptr);
    ASSERT_EQ(text->cells.size(), jb["rows"].size());
    for (std::size_t r = 0; r < jb["rows"].size(); ++r) {
      const auto& row = jb["rows"][r];
      const double t_max = row["t_max_us"].get<double>(), bytes = row["bytes"].get<double>();
      const double rate = row["values"]["message_rate"]["value"].get<double>();
      EXPECT_EQ(row["values"]["message_rate"]["unit"], "messages/s");
      const double expected = messages_per_repetition(name, nprocs, window) / t_max * 1e6;
      EXPECT_NEAR(rate, expected, expected * 1e-9);
      EXPECT_NEAR(row["mbytes_per_sec"].get<double>(), rate * bytes / 1048576, 1e-6 * rate * bytes);
      EXPECT_NEAR(cell(*text, r, "Msg/sec"), rate, 0.51);
      EXPECT_NEAR(cell(*text, r, "Mbytes/sec"), rate * bytes / text->megabyte, 0.0051);
      EXPECT_EQ(cell(*text, r, "#repetitions"), row["repetitions"].get<double>());
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

class Windowed : public ::testing::TestWithParam<int> {};

// The tables as current IMB prints them (#bytes #repetitions Mbytes/sec Msg/sec) on 2 and on 4
// processes (-npmin: without the 2-process layout, whose 2 idle ranks would poll MPICH's barrier
// beside it), with -check finding every window's data correct.
TEST_P(Windowed, UnibandAndBibandTablesFormulaAndCheck) {
  const int np = GetParam();
  const auto dir = temp_dir();
  const auto r =
      run_mpi(np, {"imb-mpi1", "Uniband", "Biband", "-npmin", std::to_string(np), "-msglog",
                   "10:12", "-iter", "20", "-check", "--json", dir + "/r.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("!!!!  ALL BENCHMARKS SUCCESSFUL !!!!"), std::string::npos);
  const auto tables = parse_imb(r.out);
  for (const std::string& name : std::vector<std::string>{"Uniband", "Biband"}) {
    const auto found = tables_named(tables, name);
    ASSERT_EQ(found.size(), 1u) << name;
    EXPECT_EQ(found[0]->nprocs, np);
    for (const auto* t : found) {
      auto columns = kWindowedColumns;
      columns.push_back("defects");
      EXPECT_EQ(t->columns, columns);
      expect_imb_layout(*t);
      ASSERT_EQ(t->cells.size(), 4u);  // 0, 1024, 2048, 4096
      for (std::size_t row = 0; row < t->cells.size(); ++row) {
        EXPECT_EQ(cell(*t, row, "#repetitions"), 20);
        EXPECT_EQ(cell(*t, row, "defects"), 0);
        EXPECT_GT(cell(*t, row, "Msg/sec"), 0);
      }
    }
  }
  expect_windowed_formula(json::parse(read_file(dir + "/r.json")), tables, 256);
}

INSTANTIATE_TEST_SUITE_P(ImbCurrent, Windowed, ::testing::Values(2, 4));

// -window_size sets the messages per window, visible in the message rate's formula; an odd
// process count leaves its last rank waiting, and one process cannot pair.
TEST(ImbCurrent, WindowSizeAndProcessCountsOfThePairs) {
  const auto dir = temp_dir();
  const auto r = run_mpi(3, {"imb-mpi1", "Uniband", "Biband", "-msglog", "4:6", "-iter", "20",
                             "-window_size", "16", "--json", dir + "/r.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto tables = parse_imb(r.out);
  for (const std::string& name : std::vector<std::string>{"Uniband", "Biband"}) {
    const auto found = tables_named(tables, name);
    ASSERT_EQ(found.size(), 1u) << name;
    EXPECT_EQ(found[0]->nprocs, 2);
    EXPECT_EQ(found[0]->columns, kWindowedColumns);
  }
  EXPECT_EQ(count_of(r.out, "# ( 1 additional process waiting in MPI_Barrier)"), 2) << r.out;
  const json j = json::parse(read_file(dir + "/r.json"));
  EXPECT_EQ(j["run"]["settings"]["window_size"], "16");
  expect_windowed_formula(j, tables, 16);

  const auto one = run_mpi(1, {"imb-mpi1", "Uniband", "-msglog", "0:1"});
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(count_of(one.out, "# !! Benchmark Uniband invalid for 1 processes !!"), 1) << one.out;
}

// -check catches a planted flipped byte in what the receiving half got: the second half in
// Uniband (rank 1 of 2), either half in Biband (rank 0).
TEST(ImbCurrent, CheckCatchesAPlantedCorruptionInAWindow) {
  for (const auto& [name, rank] : {std::pair{"Uniband", "1"}, {"Biband", "0"}}) {
    SCOPED_TRACE(name);
    const auto r = run_mpi(2, {"imb-mpi1", name, "-msglog", "4:5", "-iter", "10", "-check"},
                           std::string("MPISCOPE_FAULT=corrupt:") + rank);
    EXPECT_EQ(r.exit_code, 3) << r.err << r.out;
    EXPECT_EQ(count_of(r.out, "!!!!  1  BENCHMARK FAILED     !!!!"), 1) << r.out;
    const auto tables = parse_imb(r.out);
    const auto t = tables_named(tables, name);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_GT(cell(*t[0], 1, "defects"), 0);
  }
}

// -iter_policy as current IMB: off runs MSGSPERSAMPLE at every length, multiple_np scales it along
// a hyperbola to a multiple of P, auto does that for rooted collectives only, dynamic keeps the
// volume rule (cut at 10 s); by default IMB 3.1's volume rule, min(20, 1 MB / 256 KiB) = 4.
TEST(ImbCurrent, IterPolicyChangesTheRepetitionsAsCurrentImb) {
  const auto lengths = write_file(temp_dir(), "l", "262144\n");
  struct Case {
    std::string policy;  // "" = the default
    int bcast, allreduce;
    std::string header;
  };
  // multiple_np: round(20 · 2^22 / (3 · 262144 + 2^22)) = 17 -> 15, a multiple of 3.
  for (const auto& c :
       {Case{"", 4, 4, "# Repetitions: min(20, 1 MB / X), cut to 10 s per length"},
        Case{"imb3.1", 4, 4, ""}, Case{"off", 20, 20, "# Repetitions: 20 at every length"},
        Case{"multiple_np", 15, 15, "# Repetitions: 20 * M / (P * max(X, 4) + M)"},
        Case{"auto", 15, 4, "# Repetitions: rooted collectives 20 * M"},
        Case{"dynamic", 4, 4, "# Repetitions: min(20, 1 MB / X), cut to 10 s per length"}}) {
    SCOPED_TRACE("-iter_policy '" + c.policy + "'");
    std::vector<std::string> args = {"imb-mpi1", "Bcast", "Allreduce", "-npmin", "3",
                                     "-iter",    "20,1",  "-msglen",   lengths};
    if (!c.policy.empty()) args.insert(args.end(), {"-iter_policy", c.policy});
    const auto r = run_mpi(3, args);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const auto tables = parse_imb(r.out);
    for (const auto& [name, expected] : {std::pair{"Bcast", c.bcast}, {"Allreduce", c.allreduce}}) {
      const auto t = tables_named(tables, name);
      ASSERT_EQ(t.size(), 1u) << name;
      EXPECT_EQ(cell(*t[0], 0, "#repetitions"), expected) << name;
      expect_consistent_numbers(*t[0], name);
    }
    if (c.header.empty())
      EXPECT_EQ(count_of(r.out, "# Repetitions:"), 0) << r.out;
    else
      EXPECT_EQ(count_of(r.out, c.header), 1) << r.out;
  }
}

// -imb_barrier on: the collectives' barriers before the timed loop and (with -sync on) between
// repetitions are mpiscope's own dissemination barrier, so no MPI_Barrier appears there in the
// PMPI trace; the numbers stay sane.
TEST(ImbCurrent, ImbBarrierReplacesTheCollectivesMpiBarrier) {
  const auto dir = temp_dir();
  const auto r = run_mpi(3,
                         {"imb-mpi1", "Bcast", "Allreduce", "-npmin", "3", "-iter", "6",
                          "-iter_policy", "off", "-warm_up", "off", "-sync", "on", "-root_shift",
                          "off", "-imb_barrier", "on", "-msglen", write_file(dir, "l", "1000\n")},
                         "MPISCOPE_TRACE=" + dir, 60, with_pmpi_library(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  for (int rank = 0; rank < 3; ++rank) {
    std::vector<std::string> calls;
    std::vector<int> counts;
    for (const auto& line : lines_of(read_file(dir + "/trace." + std::to_string(rank)))) {
      std::istringstream in(line);
      std::string call;
      int count = 0;
      in >> call >> count;
      calls.push_back(call);
      counts.push_back(count);
    }
    std::vector<std::size_t> timed;
    for (std::size_t i = 0; i < calls.size(); ++i)
      if (calls[i] == "MPI_Bcast" && counts[i] == 1000) timed.push_back(i);
    ASSERT_EQ(timed.size(), 6u) << "rank " << rank;
    for (std::size_t i = timed.front() - 2; i < timed.back(); ++i)
      EXPECT_NE(calls[i], "MPI_Barrier") << "rank " << rank << " call " << i;
  }
  EXPECT_EQ(count_of(r.out, "own dissemination barrier (-imb_barrier on)"), 1) << r.out;
  const auto tables = parse_imb(r.out);
  for (const std::string& name : std::vector<std::string>{"Bcast", "Allreduce"}) {
    const auto t = tables_named(tables, name);
    ASSERT_EQ(t.size(), 1u);
    expect_consistent_numbers(*t[0], name);
    EXPECT_GT(cell(*t[0], 0, "t_min[usec]"), 0);
  }
}

// -thread_level starts MPI at that level and the header reports the level MPI provided; by
// default MPI_THREAD_SINGLE.
TEST(ImbCurrent, ThreadLevelIsRequestedAndReported) {
  for (const auto& [level, reported] : {std::pair{"", "MPI_THREAD_SINGLE"},
                                        {"multiple", "MPI_THREAD_MULTIPLE"},
                                        {"serialized", "MPI_THREAD_SERIALIZED"}}) {
    SCOPED_TRACE(std::string("-thread_level '") + level + "'");
    // -iter 20: 1000 repetitions of a crowded MPICH ping-pong ran past the table's time-out
    // (20 s here) and skipped a row (CI, stop 33: exit 5); the thread level is what is tested.
    std::vector<std::string> args = {"imb-mpi1", "PingPong", "-msglog", "0:1", "-iter", "20"};
    if (*level) args.insert(args.end(), {"-thread_level", level});
    const auto r = run_mpi(2, args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(count_of(r.out, std::string("# MPI Thread Environment: ") + reported + "\n"), 1)
        << r.out;
  }
  // A library that grants less than -thread_level asks (the PMPI library lowers what
  // MPI_Init_thread says it provides): one error from rank 0, exit 1, nothing measured.
  const auto dir = temp_dir();
  const auto r = run_mpi(2, {"imb-mpi1", "PingPong", "-msglog", "0:1", "-thread_level", "multiple"},
                         "MPISCOPE_THREAD_LEVEL_PROVIDED=2", 30, with_pmpi_library(dir));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(count_of(r.err, "error"), 1) << r.err;
  EXPECT_EQ(count_of(r.err,
                     "must return MPI_THREAD_MULTIPLE; the MPI library provides only "
                     "MPI_THREAD_SERIALIZED"),
            1)
      << r.err;
  EXPECT_EQ(count_of(r.out, "# Benchmarking"), 0) << r.out;
}

// Bad values of the new options: one message naming the option, exit 2, nothing run.
TEST(ImbCurrent, BadValuesOfTheNewOptionsAreRejectedOnce) {
  for (const auto& [option, value] : {std::pair{"-iter_policy", "sometimes"},
                                      {"-imb_barrier", "maybe"},
                                      {"-thread_level", "many"},
                                      {"-window_size", "0"}}) {
    SCOPED_TRACE(option);
    const auto r = run_mpi(2, {"imb-mpi1", "Uniband", option, value});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(count_of(r.err, "error:"), 1) << r.err;
    EXPECT_EQ(count_of(r.err, option), 1) << r.err;
    EXPECT_EQ(count_of(r.out, "# Benchmarking"), 0) << r.out;
  }
}

// Intel's own Uniband and Biband tables (IMB-MPI1 2021.11, captured) import into the names and
// rows mpiscope's run stores, so that compare sets them side by side.
TEST(ImbCurrent, CompareMatchesImportedIntelUnibandAndBiband) {
  const auto dir = temp_dir();
  const auto db = dir + "/c.db";
  const auto run =
      run_mpi(2, {"imb-mpi1", "Uniband", "Biband", "-msglog", "8:10", "-iter", "5", "--db", db});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto imported =
      run_plain({"import", "--db", db,
                 std::string(MPISCOPE_TEST_DATA) + "/import/imb_2021_uniband_biband.txt"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  const auto c = run_plain({"compare", "--db", db, "1", "2"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  for (const std::string& table :
       std::vector<std::string>{"# Uniband, 2 processes", "# Biband, 2 processes"})
    EXPECT_EQ(count_of(c.out, table + "\n"), 1) << c.out;
  EXPECT_EQ(count_of(c.out, "only in"), 0) << c.out;
}

}  // namespace
