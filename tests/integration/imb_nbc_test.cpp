// IMB-NBC end to end: the non-blocking collectives with their overlap columns and their _pure
// variants, at 2 and 4 processes; the table layout against a real output of Intel's IMB-NBC
// 2021.11 (tests/data/import/imb_nbc_2021.txt); the overlap figures against their definition;
// -check; current IMB's options; the import of Intel's output and its comparison with a run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness.hpp"
#include "imb_checks.hpp"

using namespace harness;
using namespace imbcheck;

namespace {

const std::vector<std::string> kNbcDefault = {
    "Ibcast",          "Iallgather", "Iallgatherv", "Igather",    "Igatherv",
    "Iscatter",        "Iscatterv",  "Ialltoall",   "Ialltoallv", "Ireduce",
    "Ireduce_scatter", "Iallreduce", "Ibarrier"};

std::string intel_output() {
  return read_file(std::string(MPISCOPE_TEST_DATA) + "/import/imb_nbc_2021.txt");
}

bool is_pure(const std::string& name) {
  return name.ends_with("_pure");
}

// Current IMB's columns: the overlap columns, or a plain collective's for the _pure variants;
// Ibarrier(_pure) has no length; -check adds defects where there is one.
std::vector<std::string> nbc_columns(const std::string& name, bool check) {
  std::vector<std::string> c;
  const bool sized = !name.starts_with("Ibarrier");
  if (sized) c.push_back("#bytes");
  c.push_back("#repetitions");
  if (is_pure(name))
    c.insert(c.end(), {"t_min[usec]", "t_max[usec]", "t_avg[usec]"});
  else
    c.insert(c.end(), {"t_ovrl[usec]", "t_pure[usec]", "t_CPU[usec]", "overlap[%]"});
  if (check && sized) c.push_back("defects");
  return c;
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

// overlap[%] = 100 (t_pure + t_CPU - t_ovrl) / max(t_pure, t_CPU), clamped to 0-100, within the
// rounding of the printed times.
void expect_overlap_as_defined(const Table& t) {
  for (std::size_t r = 0; r < t.cells.size(); ++r) {
    const double ovrl = cell(t, r, "t_ovrl[usec]"), pure = cell(t, r, "t_pure[usec]"),
                 cpu = cell(t, r, "t_CPU[usec]"), overlap = cell(t, r, "overlap[%]");
    EXPECT_GE(overlap, 0) << t.name << ": " << t.rows[r];
    EXPECT_LE(overlap, 100) << t.name << ": " << t.rows[r];
    const double base = std::max(pure, cpu);
    if (base < 0.5) continue;  // the rounding of the printed times dominates
    const double expected = std::clamp(100 * (pure + cpu - ovrl) / base, 0.0, 100.0);
    EXPECT_NEAR(overlap, expected, 100 * 0.015 / base + 0.011) << t.name << ": " << t.rows[r];
  }
}

class NbcProcesses : public ::testing::TestWithParam<int> {};

// The default list in IMB's order, each table in current IMB's layout, every overlap figure from
// its definition; the JSON keeps the raw figure and names its base.
TEST_P(NbcProcesses, DefaultListPrintsOverlapTablesInImbOrder) {
  const int np = GetParam();
  const auto dir = temp_dir();
  // Fewer points at 4 processes: MPICH's 4 polling ranks on 2 busy cores wait a time slice at
  // every barrier (-msglog 2 -iter 10 took 76 s there).
  const bool small = np > 2;
  const std::string repetitions = small ? "5" : "10";
  const auto r =
      run_mpi(np, {"imb-nbc", "-npmin", std::to_string(np), "-msglog", small ? "0" : "2", "-iter",
                   repetitions, "--json", dir + "/r.json", "--db", dir + "/r.db"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto tables = parse_imb(r.out);
  EXPECT_EQ(names_of(tables), kNbcDefault) << r.out;
  for (const auto& t : tables) {
    SCOPED_TRACE(t.name);
    EXPECT_EQ(t.nprocs, np);
    EXPECT_EQ(t.columns, nbc_columns(t.name, false));
    expect_imb_layout(t);
    const bool reduction =
        t.name == "Ireduce" || t.name == "Ireduce_scatter" || t.name == "Iallreduce";
    const std::string lengths = t.name == "Ibarrier" ? repetitions
                                : reduction          ? (small ? "0" : "0 4")
                                                     : (small ? "0 1" : "0 1 2 4");
    EXPECT_EQ(lengths_of(t), lengths);
    expect_overlap_as_defined(t);
  }
  EXPECT_EQ(count_of(r.out, "#    mpiscope "), 1);
  EXPECT_EQ(count_of(r.out, "IMB 2021 compatible tables (MPI-NBC part)"), 1) << r.out;
  EXPECT_EQ(count_of(r.out, "# CPU_Exploit: "), 1) << r.out;
  EXPECT_EQ(count_of(r.out,
                     "# Collectives: root 0 (-root_shift off, as current IMB), each "
                     "repetition timed alone"),
            1)
      << r.out;
  const auto j = nlohmann::json::parse(read_file(dir + "/r.json"));
  ASSERT_EQ(j["benchmarks"].size(), kNbcDefault.size());
  for (const auto& b : j["benchmarks"]) {
    EXPECT_TRUE(b["overlap"].get<bool>()) << b["name"];
    for (const auto& row : b["rows"]) {
      const auto& o = row["overlap"];
      EXPECT_EQ(o["base"], "max(t_pure, t_CPU)");
      const double pure = o["t_pure_us"], cpu = o["t_cpu_us"], ovrl = o["t_ovrl_us"];
      const double raw = o["raw_overlap_percent"];
      if (std::max(pure, cpu) > 0) {
        EXPECT_NEAR(raw, 100 * (pure + cpu - ovrl) / std::max(pure, cpu), 1e-6 * std::fabs(raw));
      }
      EXPECT_DOUBLE_EQ(o["overlap_percent"].get<double>(), std::clamp(raw, 0.0, 100.0));
      // t_ovrl is the slowest rank's; t_pure and t_CPU are that rank's own.
      EXPECT_DOUBLE_EQ(ovrl, row["t_max_us"].get<double>());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ProcessCounts, NbcProcesses, ::testing::Values(2, 4));

// Each table's header block and column headings are character for character those of Intel's
// IMB-NBC for the same benchmark at 2 processes (from the captured output).
TEST(ImbNbc, TablesLookLikeIntelsImbNbc) {
  const auto intel = parse_imb(intel_output());
  ASSERT_EQ(intel.size(), 16u);
  const auto r = run_mpi(2,
                         {"-msglog", "3", "-iter", "10", "-include",
                          "Ibcast_pure,Iallreduce_pure,Ibarrier_pure", "--no-db"},
                         "", 120, "IMB-NBC");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto ours = parse_imb(r.out);
  ASSERT_EQ(ours.size(), intel.size()) << r.out;
  const auto intel_lines = lines_of(intel_output());
  const auto our_lines = lines_of(r.out);
  for (const auto& theirs : intel) {
    SCOPED_TRACE(theirs.name);
    const auto mine = tables_named(ours, theirs.name);
    ASSERT_EQ(mine.size(), 1u);
    EXPECT_EQ(mine[0]->column_line, theirs.column_line);
    EXPECT_EQ(mine[0]->header, theirs.header);
    // The dash lines around the header are as long as the column line.
    EXPECT_EQ(dash_line_before(our_lines, theirs.name), dash_line_before(intel_lines, theirs.name));
    for (const auto& row : mine[0]->rows) EXPECT_EQ(row.size(), theirs.rows.at(0).size());
  }
  EXPECT_EQ(count_of(r.out, "\n\n# All processes entering MPI_Finalize\n\n"), 1);
}

// The _pure variants run only when named, as plain collective tables (t_min, t_max, t_avg);
// -include, -exclude and -msglog as current IMB.
TEST(ImbNbc, PureVariantsIncludeExcludeAndMsglog) {
  const auto r = run_mpi(2, {"imb-nbc", "Ibcast_pure", "ibarrier_pure", "Iallreduce", "-msglog",
                             "3:5", "-iter", "10", "--no-db"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto tables = parse_imb(r.out);
  ASSERT_EQ(names_of(tables),
            (std::vector<std::string>{"Ibcast_pure", "Ibarrier_pure", "Iallreduce"}))
      << r.out;
  for (const auto& t : tables) {
    EXPECT_EQ(t.columns, nbc_columns(t.name, false)) << t.name;
    expect_imb_layout(t);
    expect_consistent_numbers(t, t.name);
  }
  EXPECT_EQ(lengths_of(tables[0]), "0 8 16 32");
  EXPECT_EQ(lengths_of(tables[2]), "0 8 16 32");  // max(4, 2^3)

  const auto chosen =
      run_mpi(2, {"imb-nbc", "-exclude",
                  "Ibcast,Iallgather,Iallgatherv,Igather,Igatherv,Iscatter,Iscatterv,"
                  "Ialltoall,Ialltoallv,Ireduce,Ireduce_scatter,Iallreduce",
                  "-include", "Igather_pure", "-msglog", "1", "-zero_size", "off", "-iter", "5",
                  "--no-db"});
  ASSERT_EQ(chosen.exit_code, 0) << chosen.err;
  tables = parse_imb(chosen.out);
  // -include's first, as current IMB.
  ASSERT_EQ(names_of(tables), (std::vector<std::string>{"Igather_pure", "Ibarrier"})) << chosen.out;
  EXPECT_EQ(lengths_of(tables[0]), "1 2");

  // current IMB's -root_shift on and -sync off are accepted; IMB-EXT does not know them.
  EXPECT_EQ(run_mpi(2, {"imb-nbc", "Ibcast", "-root_shift", "on", "-sync", "off", "-msglog", "1",
                        "-iter", "5", "-check", "--no-db"})
                .exit_code,
            0);
  // A misspelt name: a usage error under IMB 3.1's rules (current IMB's report it and run the
  // rest).
  const auto bad = run_mpi(2, {"imb-nbc", "Ibcastt", "-imb_rules", "3.1"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(count_of(bad.err, "error"), 1) << bad.err;
}

// Every benchmark that receives data delivers the right bytes (3 processes: uneven roots and
// blocks), and a byte corrupted on rank 1 is found in both kinds of table.
TEST(ImbNbc, CheckVerifiesEveryBenchmarkAndFindsAPlantedCorruption) {
  std::vector<std::string> args = {
      "imb-nbc", "-check", "-npmin",  "3",
      "-iter",   "4",      "-msglen", write_file(temp_dir(), "l", "4100\n"),
      "--no-db"};
  for (const auto& name : kNbcDefault) {
    args.push_back(name);
    args.push_back(name + "_pure");
  }
  const auto r = run_mpi(3, args, "", 180);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto tables = parse_imb(r.out);
  ASSERT_EQ(tables.size(), 2 * kNbcDefault.size());
  for (const auto& t : tables) {
    SCOPED_TRACE(t.name);
    EXPECT_EQ(t.columns, nbc_columns(t.name, true));
    if (t.name.starts_with("Ibarrier")) continue;
    for (const auto& row : t.cells) EXPECT_EQ(row.back(), "0.00");
  }
  EXPECT_EQ(count_of(r.out, "ALL BENCHMARKS SUCCESSFUL"), 1);

  const auto corrupt =
      run_mpi(2,
              {"imb-nbc", "-check", "-iter", "4", "-msglen", write_file(temp_dir(), "l", "0\n64\n"),
               "Iallreduce", "Ialltoall_pure", "--no-db"},
              "MPISCOPE_FAULT=corrupt:1");
  EXPECT_EQ(corrupt.exit_code, 3) << corrupt.err;
  const auto bad = parse_imb(corrupt.out);
  ASSERT_EQ(bad.size(), 2u) << corrupt.out;
  for (const auto& t : bad) {
    EXPECT_EQ(t.cells[0].back(), "0.00") << t.name;  // nothing to corrupt at 0 bytes
    EXPECT_NE(t.cells[1].back(), "0.00") << t.name;
  }
  EXPECT_EQ(count_of(corrupt.out, "!!!!  2  BENCHMARKS FAILED"), 1) << corrupt.out;
}

// The CPU work is sized to t_pure: for a collective long enough to time, t_CPU is of its order, and
// t_ovrl lies between perfect overlap, max(t_pure, t_CPU), and none, their sum. The margins allow
// for this 2-core VM's load (see ImbIo.OverlapColumnsFollowTheirDefinition); the bounds must hold
// in one of three runs.
TEST(ImbNbc, CpuWorkIsSizedToTpureAndTovrlLiesBetweenItsBounds) {
  // 4 MiB: a collective of milliseconds, so that a time slice lost to another process moves the
  // means by little.
  const auto lengths = write_file(temp_dir(), "l", "4194304\n");
  std::string why;
  bool within = false;
  for (int attempt = 0; attempt < 3 && !within; ++attempt) {
    const auto r = run_mpi(2, {"imb-nbc", "-msglen", lengths, "-iter", "20,1000", "Ialltoall",
                               "Iallreduce", "--no-db"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto tables = parse_imb(r.out);
    ASSERT_EQ(tables.size(), 2u) << r.out;
    within = true;
    for (const auto& t : tables) {
      expect_overlap_as_defined(t);
      const double ovrl = cell(t, 0, "t_ovrl[usec]"), pure = cell(t, 0, "t_pure[usec]"),
                   cpu = cell(t, 0, "t_CPU[usec]");
      const bool ok = pure > 10 && cpu > 0.3 * pure && cpu < 3 * pure &&
                      ovrl > 0.5 * std::max(pure, cpu) && ovrl < 2 * (pure + cpu);
      if (!ok) why += t.rows[0] + " (" + t.name + ")\n";
      within = within && ok;
    }
  }
  EXPECT_TRUE(within) << why;
}

// Intel's IMB-NBC output imports as an imb-nbc run with the same table names and kinds, so that
// compare matches its tables with mpiscope's.
TEST(ImbNbc, IntelsOutputImportsAndComparesWithARun) {
  const auto dir = temp_dir();
  const auto db = dir + "/r.db";
  const auto imported = run_plain(
      {"import", "--db", db, std::string(MPISCOPE_TEST_DATA) + "/import/imb_nbc_2021.txt"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_EQ(count_of(imported.out, "run 1 (import:imb, 16 tables, 162 rows)"), 1) << imported.out;
  const auto runs = run_plain({"runs", "--db", db});
  EXPECT_EQ(count_of(runs.out, "imb-nbc"), 1) << runs.out;
  const auto r = run_mpi(2, {"imb-nbc", "Iallreduce", "Ibarrier", "Ibcast_pure", "-msglog", "10",
                             "-iter", "10", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto c = run_plain({"compare", "--db", db, "1", "2"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  for (const char* table :
       {"# Iallreduce, 2 processes", "# Ibarrier, 2 processes", "# Ibcast_pure, 2 processes"})
    EXPECT_EQ(count_of(c.out, table), 1) << table << "\n" << c.out;
  // Only the 13 tables this run left out are unmatched.
  EXPECT_EQ(count_of(c.out, "only in"), 13) << c.out;
}

}  // namespace
