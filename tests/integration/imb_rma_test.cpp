// IMB-RMA end to end: current IMB's passive-target one-sided benchmarks at 2, 3 and 4 processes;
// the table layout against a real output of Intel's IMB-RMA (tests/data/import/imb_rma_2021.txt);
// throughput from its definition; -check with a planted corruption; accurate mode; the import
// of Intel's output and its comparison with a run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness.hpp"
#include "imb_checks.hpp"

using namespace harness;
using namespace imbcheck;

namespace {

// Intel's order (its src_cpp/RMA registration), Get_local and Get_all_local left out.
const std::vector<std::string> kRmaDefault = {
    "Unidir_put",       "Bidir_put",        "Unidir_get",  "Bidir_get",      "Put_local",
    "Put_all_local",    "One_put_all",      "All_put_all", "One_get_all",    "All_get_all",
    "Exchange_put",     "Exchange_get",     "Accumulate",  "Get_accumulate", "Fetch_and_op",
    "Compare_and_swap", "Truly_passive_put"};

std::string intel_output() {
  return read_file(std::string(MPISCOPE_TEST_DATA) + "/import/imb_rma_2021.txt");
}

bool one_to_all(const std::string& n) {
  return n.starts_with("One_") || n.ends_with("_all_local");
}
bool every_rank_originates(const std::string& n) {
  return n.starts_with("All_") || n.starts_with("Exchange_");
}
// Two processes, a table per mode (IMB's SingleTransfer and SingleElementTransfer).
bool pairwise(const std::string& n) {
  return !one_to_all(n) && !every_rank_originates(n) && n != "Truly_passive_put";
}

std::vector<std::string> rma_columns(const std::string& name, bool check) {
  std::vector<std::string> c = {"#bytes", "#repetitions"};
  if (name == "Truly_passive_put")
    c.insert(c.end(), {"t_pure[usec]", "t_ovrl[usec]"});
  else if (every_rank_originates(name))
    c.insert(c.end(), {"t_min[usec]", "t_max[usec]", "t_avg[usec]"});
  else
    c.insert(c.end(), {"t[usec]", "Mbytes/sec"});
  if (check) c.push_back("defects");
  return c;
}

// The tables a run of `names` prints at `np` processes with -npmin np: the pairwise ones twice
// (NON-AGGREGATE, then AGGREGATE) at 2 processes, the others once at np.
std::vector<std::string> expected_tables(const std::vector<std::string>& names) {
  std::vector<std::string> t;
  for (const auto& n : names) {
    t.push_back(n);
    if (pairwise(n)) t.push_back(n);
  }
  return t;
}

std::vector<std::string> names_of(const std::vector<Table>& tables) {
  std::vector<std::string> n;
  for (const auto& t : tables) n.push_back(t.name);
  return n;
}

std::string lengths_of(const Table& t) {
  std::string s;
  for (const auto& c : t.cells) s += (s.empty() ? "" : " ") + c[0];
  return s;
}

// Mbytes/sec = X per t[usec] in the table's megabyte (10^6 bytes under current IMB's rules),
// times the P - 1 targets of one origin (One_put_all …).
void expect_throughput_as_defined(const Table& t) {
  const double targets = one_to_all(t.name) ? t.nprocs - 1 : 1;
  for (std::size_t r = 0; r < t.cells.size(); ++r) {
    const double x = cell(t, r, "#bytes"), time = cell(t, r, "t[usec]");
    const double bw = cell(t, r, "Mbytes/sec");
    if (x == 0 || time < 0.5) continue;  // the rounding of t dominates
    const double expected = targets * x / (t.megabyte / 1e6) / time;
    EXPECT_NEAR(bw, expected, expected * 0.0101 / time + 0.011) << t.name << ": " << t.rows[r];
  }
}

class RmaProcesses : public ::testing::TestWithParam<int> {};

// The default list in IMB's order and modes, each table in current IMB's layout; the
// single-origin tables' time is the origin's alone (the targets' are -1 in the JSON).
TEST_P(RmaProcesses, DefaultListPrintsImbTablesInImbOrder) {
  const int np = GetParam();
  const auto dir = temp_dir();
  const auto r = run_mpi(np, {"imb-rma", "-npmin", std::to_string(np), "-msglog", "2", "-iter",
                              "10,40,5", "--json", dir + "/r.json", "--db", dir + "/r.db"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto tables = parse_imb(r.out);
  EXPECT_EQ(names_of(tables), expected_tables(kRmaDefault)) << r.out;
  for (std::size_t k = 0; k < tables.size(); ++k) {
    const auto& t = tables[k];
    SCOPED_TRACE(t.name + " " + t.mode);
    EXPECT_EQ(t.columns, rma_columns(t.name, false));
    expect_imb_layout(t);
    EXPECT_EQ(t.nprocs, pairwise(t.name) || t.name == "Truly_passive_put" ? 2 : np);
    const bool second = k > 0 && tables[k - 1].name == t.name;
    EXPECT_EQ(t.mode, !pairwise(t.name) ? "" : second ? "AGGREGATE" : "NON-AGGREGATE");
    const bool element = t.name == "Fetch_and_op" || t.name == "Compare_and_swap";
    const bool floats = element || t.name.ends_with("ccumulate");
    EXPECT_EQ(lengths_of(t), element ? "4" : floats ? "0 4" : "0 1 2 4");
    if (t.columns[2] == "t[usec]") expect_throughput_as_defined(t);
    if (t.columns[2] == "t_min[usec]") expect_consistent_numbers(t, t.name);
    // Repetitions: MSGS_NONAGGR (5) in the non-aggregate mode, MSGSPERSAMPLE (10) otherwise.
    for (const auto& row : t.cells) EXPECT_EQ(row[1], t.mode == "NON-AGGREGATE" ? "5" : "10");
  }
  EXPECT_EQ(count_of(r.out, "IMB 2021 compatible tables (MPI-RMA part)"), 1) << r.out;
  EXPECT_EQ(count_of(r.out, "# CPU_Exploit: "), 1) << r.out;
  const auto j = nlohmann::json::parse(read_file(dir + "/r.json"));
  for (const auto& b : j["benchmarks"]) {
    const std::string name = b["name"];
    for (const auto& row : b["rows"]) {
      const auto& ranks = row["rank_times_us"];
      // One origin (rank 0): the others do not time; every rank times when every rank originates.
      const bool single_origin = name.starts_with("Unidir_") || one_to_all(name) ||
                                 name == "Put_local" || name.ends_with("ccumulate") ||
                                 name == "Fetch_and_op" || name == "Compare_and_swap";
      for (std::size_t k = 1; k < ranks.size(); ++k)
        EXPECT_EQ(ranks[k].get<double>() < 0, single_origin) << name << " rank " << k;
      if (single_origin) {
        EXPECT_DOUBLE_EQ(ranks[0].get<double>(), row["t_max_us"].get<double>());
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ProcessCounts, RmaProcesses, ::testing::Values(2, 4));

// Each table's header block and column headings are character for character those of Intel's
// IMB-RMA for the same benchmark and mode at 2 processes (from the captured output).
TEST(ImbRma, TablesLookLikeIntelsImbRma) {
  const auto intel = parse_imb(intel_output());
  ASSERT_FALSE(intel.empty());
  const auto r = run_mpi(
      2, {"-msglog", "3", "-iter", "10,40,5", "-include", "Get_local,Get_all_local", "--no-db"}, "",
      120, "IMB-RMA");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto ours = parse_imb(r.out);
  for (const auto& theirs : intel) {
    SCOPED_TRACE(theirs.name + " " + theirs.mode);
    const auto mine = tables_named(ours, theirs.name);
    ASSERT_FALSE(mine.empty());
    const auto same_mode = std::find_if(mine.begin(), mine.end(),
                                        [&](const Table* t) { return t->mode == theirs.mode; });
    ASSERT_NE(same_mode, mine.end());
    EXPECT_EQ((*same_mode)->column_line, theirs.column_line);
    EXPECT_EQ((*same_mode)->header, theirs.header);
    for (const auto& row : (*same_mode)->rows) EXPECT_EQ(row.size(), theirs.rows.at(0).size());
  }
  EXPECT_EQ(count_of(r.out, "\n\n# All processes entering MPI_Finalize\n\n"), 1);
}

// Every benchmark with a checkable receive delivers the right bytes (3 processes: a ring of
// three for Exchange), and a byte corrupted on rank 1 is found in a put, a get and an atomic.
TEST(ImbRma, CheckVerifiesReceivesAndFindsAPlantedCorruption) {
  const auto r = run_mpi(
      3,
      {"imb-rma", "-check", "-npmin", "3", "-iter", "4,40,2", "-msglen",
       write_file(temp_dir(), "l", "64\n4100\n"), "-include", "Get_local,Get_all_local", "--no-db"},
      "", 180);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto tables = parse_imb(r.out);
  ASSERT_EQ(tables.size(), expected_tables(kRmaDefault).size() + 3) << r.out;
  for (const auto& t : tables) {
    SCOPED_TRACE(t.name);
    EXPECT_EQ(t.columns, rma_columns(t.name, true));
    for (const auto& row : t.cells) EXPECT_EQ(row.back(), "0.00");
  }
  EXPECT_EQ(count_of(r.out, "ALL BENCHMARKS SUCCESSFUL"), 1);

  const auto corrupt = run_mpi(
      3,
      {"imb-rma", "-check", "-iter", "4,40,2", "-msglen", write_file(temp_dir(), "l", "0\n64\n"),
       "-npmin", "3", "Unidir_put", "Exchange_get", "Accumulate", "One_put_all", "--no-db"},
      "MPISCOPE_FAULT=corrupt:1");
  EXPECT_EQ(corrupt.exit_code, 3) << corrupt.err;
  const auto bad = parse_imb(corrupt.out);
  ASSERT_EQ(bad.size(), 6u) << corrupt.out;
  for (const auto& t : bad) {
    SCOPED_TRACE(t.name + " " + t.mode);
    EXPECT_EQ(t.cells[0].back(), "0.00");  // nothing to corrupt at 0 bytes
    EXPECT_NE(t.cells[1].back(), "0.00");
  }
  EXPECT_EQ(count_of(corrupt.out, "!!!!  4  BENCHMARKS FAILED"), 1) << corrupt.out;
}

// The calls the modes issue, from a PMPI trace: per non-aggregate repetition a put and a flush,
// per aggregate sample n puts and one flush; one epoch per point, not per repetition; the
// one-to-all benchmark one put per target and repetition and one MPI_Win_flush_all per sample;
// the targets issue nothing.
TEST(ImbRma, ModesFlushPerRepetitionOrPerSampleInAPmpiTrace) {
  const auto dir = temp_dir();
  const auto trace = dir + "/t";
  std::filesystem::create_directory(trace);
  const auto r = run_mpi(3,
                         {"imb-rma", "Unidir_put", "One_put_all", "-npmin", "3", "-msglen",
                          write_file(dir, "l", "1024\n"), "-iter", "10,40,5", "-iter_policy",
                          "imb3.1", "-warm_up", "off", "--no-db"},
                         "MPISCOPE_TRACE=" + trace, 60, with_pmpi_library(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto origin = read_file(trace + "/trace.0");
  EXPECT_EQ(count_of(origin, "MPI_Put 1024 root 1 "), 5 + 10 + 10) << origin;
  EXPECT_EQ(count_of(origin, "MPI_Put 1024 root 2 "), 10) << origin;
  EXPECT_EQ(count_of(origin, "MPI_Win_flush 0 root 1 "), 5 + 1) << origin;
  EXPECT_EQ(count_of(origin, "MPI_Win_flush_all "), 1) << origin;
  EXPECT_EQ(count_of(origin, "MPI_Win_lock 0 root 1 "), 2) << origin;  // one per table
  EXPECT_EQ(count_of(origin, "MPI_Win_lock_all "), 1) << origin;
  for (const char* target : {"/trace.1", "/trace.2"}) {
    const auto t = read_file(trace + target);
    EXPECT_EQ(count_of(t, "MPI_Put"), 0) << t;
    EXPECT_EQ(count_of(t, "MPI_Win_"), 0) << t;
  }
}

// -aggregate_mode (current IMB-EXT and IMB-RMA) keeps one mode: its table alone, and in the
// trace the calls of that mode only; benchmarks with one mode are untouched. IMB-MPI1 has no
// modes and refuses it, as does a word that is no mode.
TEST(ImbRma, AggregateModeRunsOneModeAsCurrentImb) {
  const auto dir = temp_dir();
  const auto lengths = write_file(dir, "l", "1024\n");
  for (const std::string mode : {"aggregate", "non_aggregate"}) {
    SCOPED_TRACE(mode);
    const auto trace = dir + "/" + mode;
    std::filesystem::create_directory(trace);
    const auto r = run_mpi(
        2,
        {"imb-rma", "Unidir_put", "One_put_all", "-aggregate_mode", mode, "-msglen", lengths,
         "-iter", "10,40,5", "-iter_policy", "imb3.1", "-warm_up", "off", "--no-db"},
        "MPISCOPE_TRACE=" + trace, 60, with_pmpi_library(dir));
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const auto tables = parse_imb(r.out);
    ASSERT_EQ(names_of(tables), (std::vector<std::string>{"Unidir_put", "One_put_all"})) << r.out;
    EXPECT_EQ(tables[0].mode, mode == "aggregate" ? "AGGREGATE" : "NON-AGGREGATE");
    EXPECT_EQ(tables[1].mode, "");
    const auto origin = read_file(trace + "/trace.0");
    // Unidir_put: 10 puts and one flush (aggregate), or 5 puts each flushed; One_put_all: 10.
    EXPECT_EQ(count_of(origin, "MPI_Put 1024 root 1 "), (mode == "aggregate" ? 10 : 5) + 10)
        << origin;
    EXPECT_EQ(count_of(origin, "MPI_Win_flush 0 root 1 "), mode == "aggregate" ? 1 : 5) << origin;
  }
  const auto ext = run_mpi(2, {"imb-ext", "Unidir_Put", "-aggregate_mode", "AGGREGATE", "-msglen",
                               lengths, "-iter", "10,40,5", "--no-db"});
  ASSERT_EQ(ext.exit_code, 0) << ext.err << ext.out;
  const auto ext_tables = parse_imb(ext.out);
  ASSERT_EQ(ext_tables.size(), 1u) << ext.out;
  EXPECT_EQ(ext_tables[0].mode, "AGGREGATE");
  for (const auto& bad : std::vector<std::vector<std::string>>{
           {"imb-mpi1", "PingPong", "-aggregate_mode", "aggregate"},
           {"imb-rma", "Unidir_put", "-aggregate_mode", "both"}}) {
    const auto e = run_mpi(2, bad);
    EXPECT_EQ(e.exit_code, 2) << bad[0] << "\n" << e.err;
    EXPECT_EQ(count_of(e.err, "error"), 1) << e.err;
    EXPECT_EQ(count_of(e.err, "-aggregate_mode"), 1) << e.err;
    EXPECT_EQ(count_of(e.out, "# Benchmarking"), 0) << e.out;
  }
}

// --method accurate times a passive-target put and a one-to-all put repetition by repetition.
TEST(ImbRma, AccurateModeRunsOnPassiveTarget) {
  const auto r = run_mpi(2, {"imb-rma", "Unidir_put", "One_put_all", "-msglog", "1", "--method",
                             "accurate", "--budget", "0.2", "--no-db"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto tables = parse_imb(r.out);
  ASSERT_EQ(names_of(tables), (std::vector<std::string>{"Unidir_put", "Unidir_put", "One_put_all"}))
      << r.out;
  for (const auto& t : tables) EXPECT_EQ(t.columns.at(3), "t_med[usec]") << t.name;
}

// Intel's IMB-RMA output imports as an imb-rma run with the same table names and modes, so that
// compare matches its tables with mpiscope's.
TEST(ImbRma, IntelsOutputImportsAndComparesWithARun) {
  const auto dir = temp_dir();
  const auto db = dir + "/r.db";
  const auto imported = run_plain(
      {"import", "--db", db, std::string(MPISCOPE_TEST_DATA) + "/import/imb_rma_2021.txt"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_EQ(count_of(imported.out, "run 1 (import:imb, 29 tables, 121 rows)"), 1) << imported.out;
  const auto runs = run_plain({"runs", "--db", db});
  EXPECT_EQ(count_of(runs.out, "imb-rma"), 1) << runs.out;
  const auto r = run_mpi(2, {"imb-rma", "Unidir_put", "All_get_all", "Truly_passive_put", "-msglog",
                             "10", "-iter", "10,40,5", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto c = run_plain({"compare", "--db", db, "1", "2"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  for (const char* table : {"# Unidir_put, 2 processes", "# All_get_all, 2 processes",
                            "# Truly_passive_put, 2 processes"})
    EXPECT_GE(count_of(c.out, table), 1) << table << "\n" << c.out;
}

}  // namespace
