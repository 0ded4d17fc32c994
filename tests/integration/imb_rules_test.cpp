// Issue 30, item 1: every IMB front end runs current IMB's rules by default, a drop-in for Intel's
// IMB 2021, and IMB 3.1's exactly under -imb_rules 3.1. The current rules are checked against
// real output of Intel's IMB 2021.11 (tests/data/intel_imb_2021.11, with the command lines that
// made it): mpiscope run with the same arguments prints the same tables, modes, columns, lengths
// and repetition counts, names and messages. Times differ, so they are not compared.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "harness.hpp"

using namespace harness;

namespace {

std::string intel_capture(const std::string& name) {
  std::ifstream in(std::string(MPISCOPE_TEST_DATA) + "/intel_imb_2021.11/" + name + ".txt");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// What a user's script reads from an IMB output besides the times: the benchmarks listed, the
// invalid names reported, and per table its name, process count, mode, columns and each row's
// length and repetition count (or its time-out), one line each.
std::vector<std::string> shape(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  bool in_list = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# List of Benchmarks to run:", 0) == 0) {
      in_list = true;
      continue;
    }
    if (in_list && line.rfind("# ", 0) == 0 && line.find(' ', 2) == std::string::npos)
      lines.push_back("listed " + line.substr(2));
    if (line.rfind("#---", 0) == 0) in_list = false;
    if (line.rfind("Invalid benchmark name", 0) == 0) lines.push_back(line);
  }
  for (const auto& t : parse_imb(out)) {
    std::string columns;
    for (const auto& c : t.columns) columns += " " + c;
    lines.push_back("table " + t.name + " np " + std::to_string(t.nprocs) + " mode '" + t.mode +
                    "':" + columns);
    for (const auto& row : t.cells) {
      if (row.size() >= 2 && row[1].rfind("time-out", 0) == 0)
        lines.push_back("  " + row[0] + " time-out");
      else if (row.size() >= 2)
        lines.push_back("  " + row[0] + " x " + row[1]);
    }
  }
  return lines;
}

// The header lines that say what is moved: the lengths ("# Minimum message length in bytes",
// IMB-IO's "io portion", "# Message lengths were user defined", IMB-IO's "IO lengths") and the
// datatypes (IMB-MPI1's -data_type, -red_data_type; none in IMB-IO), trailing blanks left out (they
// differ between IMB's own lines).
std::vector<std::string> header_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    for (const char* start : {"# MPI_Datatype", "# MPI_Op", "# Minimum ", "# Maximum ",
                              "# Message lengths", "# IO lengths"})
      if (line.rfind(start, 0) == 0)
        lines.push_back(line.substr(0, line.find_last_not_of(' ') + 1));
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

struct Capture {
  std::string name;     // tests/data/intel_imb_2021.11/<name>.txt
  std::string program;  // the legacy name mpiscope is called by
  std::vector<std::string> args;
};

void PrintTo(const Capture& c, std::ostream* os) {
  *os << c.name;
}

class AsIntelsImb : public ::testing::TestWithParam<Capture> {};

// The same command line as Intel's, and the same output but for the times.
TEST_P(AsIntelsImb, SameTablesLengthsRepetitionsAndMessages) {
  const Capture& c = GetParam();
  auto args = c.args;
  for (auto& a : args)
    if (a == "msglen_0_4_8.lengths")
      a = std::string(MPISCOPE_TEST_DATA) + "/intel_imb_2021.11/" + a;
  // A time limit far beyond the run's: on a crowded machine (MPICH's polling ranks beside another
  // test, 4 ms a round trip) current IMB's 10 s per length would cut repetition counts or end a
  // table with a time-out row, rightly, and the shapes would differ for that reason alone.
  args.insert(args.end(), {"-time", "600", "--no-db"});
  const auto r = run_mpi(2, args, "", 240, c.program);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto intel = shape(intel_capture(c.name));
  ASSERT_FALSE(intel.empty()) << c.name;
  EXPECT_EQ(joined(shape(r.out)), joined(intel)) << r.out;
  EXPECT_EQ(header_lines(r.out), header_lines(intel_capture(c.name))) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    ImbRules, AsIntelsImb,
    ::testing::Values(
        Capture{"mpi1_pingpong_allreduce", "IMB-MPI1", {"PingPong", "Allreduce", "-msglog", "0:4"}},
        Capture{"mpi1_pingpong_allreduce_iter5",
                "IMB-MPI1",
                {"PingPong", "Allreduce", "-msglog", "0:4", "-iter", "5"}},
        Capture{"mpi1_unknown_bench",
                "IMB-MPI1",
                {"PingPong", "NoSuchBench", "Allreduce", "-msglog", "0:3"}},
        Capture{
            "mpi1_include", "IMB-MPI1", {"Allreduce", "-include", "PingPong", "-msglog", "0:2"}},
        Capture{"mpi1_order_positional", "IMB-MPI1", {"Allreduce", "PingPong", "-msglog", "0:1"}},
        Capture{
            "mpi1_iterpolicy_multiple_np",
            "IMB-MPI1",
            {"PingPong", "Allreduce", "Reduce", "-msglog", "0:4", "-iter_policy", "multiple_np"}},
        Capture{"mpi1_iterpolicy_auto",
                "IMB-MPI1",
                {"Allreduce", "Reduce", "-msglog", "0:4", "-iter_policy", "auto"}},
        Capture{
            "ext_only_unknown_bench", "IMB-EXT", {"NoSuchBench", "-msglog", "0:2", "-iter", "10"}},
        Capture{
            "ext_unidirput_accumulate", "IMB-EXT", {"Unidir_Put", "Accumulate", "-msglog", "0:4"}},
        Capture{"ext_unidirput_accumulate_iter5",
                "IMB-EXT",
                {"Unidir_Put", "Accumulate", "-msglog", "0:4", "-iter", "5"}},
        Capture{"ext_unidirput_iterpolicy_off",
                "IMB-EXT",
                {"Unidir_Put", "-msglog", "0:2", "-iter_policy", "off"}},
        Capture{"ext_unidirput_msglen_iter5",
                "IMB-EXT",
                {"Unidir_Put", "-msglen", "msglen_0_4_8.lengths", "-iter", "5"}},
        Capture{"io_swrite_siwrite_pread_iter5",
                "IMB-IO",
                {"S_Write_indv", "S_IWrite_indv", "P_Read_shared", "-msglog", "0:4", "-iter", "5"}},
        Capture{"mpi1_data_types",
                "IMB-MPI1",
                {"PingPong", "Allreduce", "Bcast", "Reduce_scatter", "Allgatherv", "-msglog", "0:4",
                 "-data_type", "int", "-red_data_type", "double"}},
        Capture{"mpi1_data_types_char",
                "IMB-MPI1",
                {"Sendrecv", "Reduce", "-msglog", "0:3", "-data_type", "double", "-red_data_type",
                 "char"}},
        Capture{"nbc_iallreduce", "IMB-NBC", {"Iallreduce", "-msglog", "0:4"}},
        Capture{"rma_unidirput", "IMB-RMA", {"Unidir_put", "-msglog", "0:4"}}),
    [](const ::testing::TestParamInfo<Capture>& param) { return param.param.name; });

// Current IMB's time-out: a table that has run longer than -time per length (for as many lengths
// as it has, less one) prints a "time-out" row and leaves out the benchmark's other lengths and
// modes; the next benchmark runs. 100,000 repetitions of PingPong take far longer than 0.1 ms.
TEST(ImbRules, TimeOutRowsEndABenchmarkAsCurrentImb) {
  const auto r = run_mpi(2,
                         {"PingPong", "Allreduce", "-msglog", "0:4", "-time", "0.0001", "-iter",
                          "100000", "-iter_policy", "off", "--no-db"},
                         "", 240, "IMB-MPI1");
  EXPECT_EQ(r.exit_code, 5) << r.out << r.err;  // points left out: the run says it is incomplete
  const auto tables = parse_imb(r.out);
  ASSERT_EQ(tables.size(), 2u) << r.out;
  for (const auto& t : tables) {
    SCOPED_TRACE(t.name);
    ASSERT_FALSE(t.rows.empty());
    EXPECT_NE(t.rows.back().find("time-out.; Time limit (secs_per_sample * msg_sizes_list_len) is "
                                 "over"),
              std::string::npos)
        << r.out;
    EXPECT_LT(t.rows.size(), 5u);  // fewer than the 5 lengths 0, 1 (4), …, 16
  }
  EXPECT_NE(intel_capture("mpi1_timeout_iterpolicy_off").find("time-out.; Time limit"),
            std::string::npos);
  // IMB 3.1 has no time-out: every length runs.
  const auto old = run_mpi(2,
                           {"PingPong", "-msglog", "0:2", "-time", "0.0001", "-iter", "1000",
                            "-iter_policy", "off", "-imb_rules", "3.1", "--no-db"},
                           "", 240, "IMB-MPI1");
  EXPECT_EQ(old.exit_code, 0) << old.out << old.err;
  const auto old_tables = parse_imb(old.out);
  ASSERT_EQ(old_tables.size(), 1u) << old.out;
  EXPECT_EQ(old_tables[0].rows.size(), 4u) << old.out;
}

// IMB 3.1's rules, each difference from current IMB's that the issue names: the banner, the
// megabyte, EXT's lengths by 1 byte and NON-AGGREGATE first, IO's repetitions (50 and 10), its
// non-blocking writes non-aggregate and its names as the guide spells them, and an unknown name
// refused.
TEST(ImbRules, Imb31RulesReproduceImb31) {
  const auto ext =
      run_mpi(2, {"Unidir_Put", "-msglog", "0:2", "-iter", "5", "-imb_rules", "3.1", "--no-db"}, "",
              120, "IMB-EXT");
  ASSERT_EQ(ext.exit_code, 0) << ext.out << ext.err;
  EXPECT_NE(ext.out.find("IMB 3.1 compatible tables"), std::string::npos);
  EXPECT_NE(ext.out.find("Mbytes/sec = 2^20 bytes per second (IMB 3.1)"), std::string::npos);
  EXPECT_NE(ext.out.find("# Rules: IMB 3.1's (-imb_rules 3.1)"), std::string::npos);
  auto tables = parse_imb(ext.out);
  ASSERT_EQ(tables.size(), 2u) << ext.out;
  EXPECT_EQ(tables[0].mode, "NON-AGGREGATE");
  EXPECT_EQ(tables[1].mode, "AGGREGATE");
  std::vector<std::string> lengths;
  for (const auto& row : tables[1].cells) lengths.push_back(row[0]);
  EXPECT_EQ(lengths, (std::vector<std::string>{"0", "1", "2", "4"}));
  // IMB 3.1: MSGS_NONAGGR (100) whatever -iter's MSGSPERSAMPLE; current IMB: at most 5.
  for (const auto& row : tables[0].cells) EXPECT_EQ(row[1], "100");
  // The current rules: 0, 4 (the reduction type's size), AGGREGATE first, 10^6 bytes.
  const auto now =
      run_mpi(2, {"Unidir_Put", "-msglog", "0:2", "-iter", "5", "--no-db"}, "", 120, "IMB-EXT");
  ASSERT_EQ(now.exit_code, 0) << now.out << now.err;
  EXPECT_NE(now.out.find("IMB 2021 compatible tables"), std::string::npos);
  EXPECT_NE(now.out.find("Mbytes/sec = 10^6 bytes per second (current IMB)"), std::string::npos);
  tables = parse_imb(now.out);
  ASSERT_EQ(tables.size(), 2u) << now.out;
  EXPECT_EQ(tables[0].mode, "AGGREGATE");
  lengths.clear();
  for (const auto& row : tables[0].cells) lengths.push_back(row[0]);
  EXPECT_EQ(lengths, (std::vector<std::string>{"0", "4"}));
  for (const auto& row : tables[1].cells) EXPECT_EQ(row[1], "5");

  const auto io = run_mpi(2,
                          {"S_Write_indv", "S_IWrite_indv", "S_Read_indv", "-msglog", "0:1",
                           "--cpu-target", "0.001", "-imb_rules", "3.1", "--no-db"},
                          "", 240, "IMB-IO");
  ASSERT_EQ(io.exit_code, 0) << io.out << io.err;
  tables = parse_imb(io.out);
  ASSERT_EQ(tables.size(), 4u) << io.out;
  EXPECT_EQ(tables[0].name, "S_Write_indv");
  EXPECT_EQ(tables[0].mode, "NON-AGGREGATE");
  EXPECT_EQ(tables[0].cells[0][1], "10");  // MSGS_NONAGGR
  EXPECT_EQ(tables[1].mode, "AGGREGATE");
  EXPECT_EQ(tables[1].cells[0][1], "50");  // MSGSPERSAMPLE
  EXPECT_EQ(tables[2].name, "S_IWrite_indv");
  EXPECT_EQ(tables[2].mode, "NON-AGGREGATE");
  EXPECT_EQ(tables[3].name, "S_Read_indv");
  EXPECT_EQ(tables[3].mode, "");

  const auto bad =
      run_mpi(2, {"PingPong", "NoSuchBench", "-imb_rules", "3.1", "--no-db"}, "", 60, "IMB-MPI1");
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("unknown benchmark 'NoSuchBench'"), std::string::npos) << bad.err;
}

// The help lists the options the program takes, not the others', with both rule sets' defaults.
// IMB-MPI1 has no -aggregate_mode: Intel's takes the option and its value for two unknown
// benchmark names (mpi1_aggregate_mode.txt); mpiscope refuses it as an unknown option.
TEST(ImbRules, HelpListsEachProgramsOwnOptionsAndBothRuleSets) {
  // The help as one line of words: its text is wrapped.
  auto help = [](const std::string& program) {
    // Under the launcher, as every test of an MPI program: the harness turns LeakSanitizer off
    // there (it reports the MPI library's own allocations, and -help starts MPI).
    Result r = run_mpi(1, {"-help"}, "", 60, program);
    r.out = std::regex_replace(r.out, std::regex(R"(\s+)"), " ");
    return r;
  };
  const auto mpi1 = help("IMB-MPI1");
  EXPECT_EQ(mpi1.exit_code, 0);
  EXPECT_EQ(mpi1.out.find("-aggregate_mode"), std::string::npos) << mpi1.out;
  EXPECT_NE(mpi1.out.find("-root_shift"), std::string::npos);
  EXPECT_NE(mpi1.out.find("(default dynamic; -imb_rules 3.1: imb3.1)"), std::string::npos)
      << mpi1.out;
  const auto ext = help("IMB-EXT");
  EXPECT_NE(ext.out.find("-aggregate_mode"), std::string::npos);
  EXPECT_EQ(ext.out.find("-root_shift"), std::string::npos);
  const auto io = help("IMB-IO");
  EXPECT_NE(io.out.find("(default 1000,40,100; -imb_rules 3.1: 50,16,10)"), std::string::npos)
      << io.out;
  const auto refused =
      run_mpi(2, {"PingPong", "-aggregate_mode", "aggregate", "--no-db"}, "", 60, "IMB-MPI1");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("unknown option '-aggregate_mode'"), std::string::npos) << refused.err;
}

}  // namespace

namespace {

// Import and compare know both rule sets: mpiscope's own text under current IMB's rules is read
// in 10^6-byte megabytes (its "# Units:" line), and compare names the change of rules.
TEST(ImbRules, ImportReadsTheMegabyteAndCompareNamesTheRules) {
  const auto dir = temp_dir();
  const std::string db = dir + "/r.db";
  // -time 600: no time-out row on a crowded machine (AsIntelsImb above).
  const auto now =
      run_mpi(2, {"PingPong", "-msglog", "16:17", "-time", "600", "--db", db}, "", 120, "IMB-MPI1");
  ASSERT_EQ(now.exit_code, 0) << now.err;
  const auto old = run_mpi(2, {"PingPong", "-msglog", "16:17", "-imb_rules", "3.1", "--db", db}, "",
                           120, "IMB-MPI1");
  ASSERT_EQ(old.exit_code, 0) << old.err;
  const auto c = run_plain({"compare", "1", "2", "--db", db});
  EXPECT_NE(c.out.find("#   IMB rules: A current IMB's; B IMB 3.1's"), std::string::npos)
      << c.out << c.err;

  // The text of the current-rules run, imported: its bandwidths are the live run's (MiB/s).
  const std::string text = write_file(dir, "now.txt", now.out);
  const std::string imported = dir + "/i.db";
  ASSERT_EQ(run_plain({"import", text, "--db", imported}).exit_code, 0);
  const auto live = run_plain({"export", "--format", "json", "1", "--db", db});
  const auto back = run_plain({"export", "--format", "json", "1", "--db", imported});
  // The tidy export: one object per quantity.
  const auto bandwidth_at = [](const std::string& json_text, int bytes) {
    for (const auto& q : nlohmann::json::parse(json_text))
      if (q["bytes"] == bytes && q["quantity"] == "mbytes_per_sec") return q["value"].get<double>();
    return -1.0;
  };
  const double live_mib = bandwidth_at(live.out, 65536),
               imported_mib = bandwidth_at(back.out, 65536);
  ASSERT_GT(live_mib, 0) << live.out;
  // The text prints 2 decimals of 10^6-byte megabytes; 2^20 would be 4.9 % off.
  EXPECT_NEAR(imported_mib, live_mib, live_mib * 0.001 + 0.01) << back.out;
}

}  // namespace
