// mpiscope skampi --method accurate on real runs: every accurate row's statistics consistent, the
// point's value (and the refinement of the length axis) taken from the median, the output file
// holding the median and its interval, resume after a crash, master-worker kept on SKaMPI's method
// with a note, a planted delay measured within its interval, and bad options rejected.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness.hpp"

using namespace harness;
using nlohmann::json;

namespace {

std::vector<std::string> accurate_args(const std::string& config, const std::string& dir,
                                       const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {
      "skampi", config,          "--outfile", dir + "/skampi.out", "--logfile", dir + "/skampi.log",
      "--json", dir + "/r.json", "--method",  "accurate"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string suite(const std::string& name, const std::string& fields) {
  return name + "\n{\n" + fields + "}\n";
}

double value(const json& row, const std::string& name) {
  return row.at("values").at(name).at("value").get<double>();
}

// What every accurate row must satisfy, whatever the machine's noise.
void expect_consistent(const json& row, const std::string& where) {
  ASSERT_TRUE(row.contains("accurate")) << where;
  const json& a = row["accurate"];
  EXPECT_TRUE(row["measured"].get<bool>()) << where;
  EXPECT_EQ(a["valid"].get<int>(), row["repetitions"].get<int>()) << where;
  EXPECT_EQ(a["attempted"].get<int>(),
            a["valid"].get<int>() + a["late"].get<int>() + a["overrun"].get<int>())
      << where;
  EXPECT_GE(a["valid"].get<int>(), 1) << where;
  EXPECT_LE(a["ci95_low_us"].get<double>(), a["median_us"].get<double>()) << where;
  EXPECT_GE(a["ci95_high_us"].get<double>(), a["median_us"].get<double>()) << where;
  EXPECT_LE(a["min_us"].get<double>(), a["median_us"].get<double>()) << where;
  EXPECT_LE(a["median_us"].get<double>(), a["max_us"].get<double>()) << where;
  const std::string stop = a["stop_reason"];
  EXPECT_TRUE(stop == "converged" || stop == "time-budget" || stop == "max-repetitions")
      << where << " " << stop;
  // The point's value is the median; SKaMPI's empty measurement is not subtracted.
  EXPECT_DOUBLE_EQ(value(row, "t"), a["median_us"].get<double>()) << where;
  EXPECT_EQ(row.count("rank_times_us"), 0u) << where;
}

// The output file's rows of each suite, read independently of the suite's reader: the 13 classic
// columns, then (accurate suites) the columns named on @COLUMNS.
struct FileRow {
  std::map<std::string, std::string> cells;
  double number(const std::string& c) const { return std::stod(cells.at(c)); }
};
struct FileSuite {
  std::map<std::string, std::string> params;
  std::vector<FileRow> rows;
};
std::map<std::string, FileSuite> read_output(const std::string& text, bool* complete = nullptr) {
  std::map<std::string, FileSuite> suites;
  std::istringstream in(text);
  std::string line, name;
  std::vector<std::string> columns;
  if (complete) *complete = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("@BEGIN_SUITE ", 0) == 0) {
      name = line.substr(13);
      suites[name] = {};
    } else if (line.rfind("@PARAM ", 0) == 0) {
      const auto sp = line.find(' ', 7);
      suites[name].params[line.substr(7, sp - 7)] = line.substr(sp + 1);
    } else if (line.rfind("@COLUMNS ", 0) == 0) {
      std::istringstream c(line.substr(9));
      columns.clear();
      for (std::string w; c >> w;) columns.push_back(w);
    } else if (line == "@END_RUN") {
      if (complete) *complete = true;
    } else if (line[0] != '@') {
      std::istringstream r(line);
      FileRow row;
      for (const auto& c : columns) r >> row.cells[c];
      suites[name].rows.push_back(row);
    }
  }
  return suites;
}

const json* benchmark(const json& doc, const std::string& name) {
  for (const auto& b : doc["benchmarks"])
    if (b["name"] == name) return &b;
  return nullptr;
}

// Section 4.2 written again from the paper: the error of not splitting segment i.
double segment_error(const std::vector<std::pair<double, double>>& p, std::size_t i) {
  const auto [mb, tb] = p[i];
  const auto [mc, tc] = p[i + 1];
  double e = std::numeric_limits<double>::infinity();
  if (mb > 0) e = (mc - mb) / mb;
  if (i + 2 < p.size()) {
    const auto [md, td] = p[i + 2];
    e = std::min(e, std::abs(tb - (tc - (td - tc) / (md - mc) * (mc - mb))) / std::abs(tb));
  }
  if (i >= 1) {
    const auto [ma, ta] = p[i - 1];
    e = std::min(e, std::abs(tc - (tb + (tb - ta) / (mb - ma) * (mc - mb))) / std::abs(tc));
  }
  return e;
}

}  // namespace

// Two processes: ping-pong with the refinement of the length axis, a collective, Comm_split over
// the Nodes axis, a simple call, and a master-worker suite that keeps SKaMPI's method.
TEST(SkampiAccurate, RowsCarryTheMedianAndItsIntervalAtTwoProcesses) {
  const auto dir = temp_dir();
  const std::string cfg = write_file(
      dir, "a.skampi",
      "@MEMORY 256\n@MEASUREMENTS\n" +
          suite("PP",
                "  Type = 1;\n  Start_Argument = 0;\n  End_Argument = 4096;\n"
                "  Stepwidth = 8;\n  Max_Steps = 8;\n") +
          suite("AR",
                "  Type = 36;\n  Basetype_Number = 1;\n  Scale = Fixed_log;\n"
                "  Start_Argument = 8;\n  End_Argument = 512;\n  Stepwidth = 8;\n") +
          suite("SPLIT", "  Type = 22;\n  Variation = Nodes;\n") + suite("RANK", "  Type = 25;\n") +
          suite("MW",
                "  Type = 12;\n  Variation = Nodes;\n  Max_Repetition = 3;\n"
                "  Min_Repetition = 2;\n"));
  const auto r = run_mpi(2, accurate_args(cfg, dir, {"--budget", "0.1"}), "", 120);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("# Method: accurate: window sync"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("t_med [us]"), std::string::npos) << r.out;
  const json doc = json::parse(read_file(dir + "/r.json"));
  EXPECT_EQ(doc["run"]["settings"]["method"], "accurate");
  bool complete = false;
  const auto file = read_output(read_file(dir + "/skampi.out"), &complete);
  EXPECT_TRUE(complete);

  for (const char* name : {"PP", "AR", "SPLIT", "RANK"}) {
    SCOPED_TRACE(name);
    const json* b = benchmark(doc, name);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ((*b)["method"], "accurate");
    EXPECT_EQ((*b)["parameters"]["method"], "accurate");
    const auto& rows = (*b)["rows"];
    ASSERT_FALSE(rows.empty());
    const auto& f = file.at(name);
    EXPECT_EQ(f.params.at("method"), "accurate");
    ASSERT_EQ(f.rows.size(), rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const json& row = rows[i];
      const std::string where = std::string(name) + " " + row["values"]["argument"].dump();
      expect_consistent(row, where);
      // The output file holds the median (t_us, raw_us), nothing subtracted, and its interval.
      const json& a = row["accurate"];
      const FileRow& fr = f.rows[i];
      auto close = [](double x, double y) { return std::abs(x - y) <= 1e-5 * std::abs(y) + 1e-9; };
      EXPECT_TRUE(close(fr.number("t_us"), a["median_us"])) << where;
      EXPECT_TRUE(close(fr.number("raw_us"), a["median_us"])) << where;
      EXPECT_EQ(fr.number("empty_us"), 0) << where;
      EXPECT_TRUE(close(fr.number("ci95_low_us"), a["ci95_low_us"])) << where;
      EXPECT_TRUE(close(fr.number("ci95_high_us"), a["ci95_high_us"])) << where;
      EXPECT_EQ(fr.number("repetitions"), a["attempted"].get<double>()) << where;
      EXPECT_EQ(fr.number("used"), a["valid"].get<double>()) << where;
      EXPECT_EQ(fr.cells.at("stop_reason"), a["stop_reason"]) << where;
      // Converged as core::not_converged_reason() decides (the stopping rule met, and no level
      // shift, negative median or median below the timer's resolution), as the JSON says.
      EXPECT_EQ(fr.number("converged"), a["converged"].get<bool>() ? 1 : 0) << where;
      EXPECT_EQ(fr.number("defects"), 0) << where;
    }
  }
  // The refinement worked on the medians: its remaining error, recomputed from them, is the one
  // the suite reports.
  {
    std::vector<std::pair<double, double>> curve;
    for (const auto& row : (*benchmark(doc, "PP"))["rows"])
      curve.emplace_back(value(row, "argument"), row["accurate"]["median_us"].get<double>());
    std::sort(curve.begin(), curve.end());
    EXPECT_LE(curve.size(), 8u);  // Max_Steps
    EXPECT_GE(curve.size(), 6u);  // the grid 0, 1, 8, 64, 512, 4096
    double max_error = 0;
    for (std::size_t i = 0; i + 1 < curve.size(); ++i)
      if (curve[i + 1].first - curve[i].first >= 2)
        max_error = std::max(max_error, segment_error(curve, i));
    const double reported =
        std::stod((*benchmark(doc, "PP"))["parameters"]["refinement_max_error"].get<std::string>());
    EXPECT_NEAR(reported, max_error, 1e-4 + 1e-3 * max_error);
    if (curve.size() < 8) {
      EXPECT_LT(max_error, 0.05);  // the refinement ended below Standard_error
    }
  }
  // Comm_split varies the processes; every point on its own communicator.
  const auto& split = (*benchmark(doc, "SPLIT"))["rows"];
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(value(split[1], "nprocs"), 2);
  // Master-worker keeps SKaMPI's method, and says so.
  const json* mw = benchmark(doc, "MW");
  ASSERT_NE(mw, nullptr);
  EXPECT_EQ((*mw)["method"], "classic");
  EXPECT_EQ(file.at("MW").params.at("method"), "classic");
  for (const auto& row : (*mw)["rows"]) EXPECT_FALSE(row.contains("accurate"));
  EXPECT_NE(r.out.find("master-worker pattern is measured with SKaMPI's method"), std::string::npos)
      << r.out;
  bool noted = false;
  for (const auto& n : doc["notes"])
    noted |= n.get<std::string>().find("suite MW: the master-worker pattern") != std::string::npos;
  EXPECT_TRUE(noted) << doc["notes"].dump();
  // The table prints what the JSON holds.
  const auto& ar = (*benchmark(doc, "AR"))["rows"];
  char median[32];
  std::snprintf(median, sizeof median, "%.3f", ar[0]["accurate"]["median_us"].get<double>());
  EXPECT_NE(r.out.find(median), std::string::npos) << median << "\n" << r.out;
}

// Three processes, a crash in the second suite, and the resumed run: the finished suite is taken
// from the output file with its median and interval, not measured again.
TEST(SkampiAccurate, ResumesAfterACrashAtThreeProcesses) {
  const auto dir = temp_dir();
  const std::string body =
      "  Type = 36;\n  Scale = Fixed_log;\n  Start_Argument = 16;\n  End_Argument = 256;\n"
      "  Stepwidth = 4;\n";
  const auto cfg = write_file(
      dir, "c.skampi",
      "@METHOD accurate\n@MEASUREMENTS\n" + suite("A", body) + suite("B", body) + suite("C", body));
  // @METHOD accurate in the configuration: no --method on this command line. Three ranks on two
  // cores: own-barrier, as windows of microseconds are missed and a 0.1 s budget may end before
  // the window scheme's fall-back.
  const std::vector<std::string> args = {
      "skampi",   cfg,   "--outfile", dir + "/skampi.out", "--logfile", dir + "/skampi.log",
      "--budget", "0.1", "--json",    dir + "/r.json",     "--sync",    "own-barrier"};
  auto crashing = args;
  crashing.insert(crashing.end(), {"--timeout", "3"});
  const auto crashed = run_mpi(3, crashing, "MPISCOPE_FAULT=hang:B:64:0", 60);
  // Exit 4 from the watchdog; MPICH's launcher may report the signal that ended the other ranks.
  ASSERT_NE(crashed.exit_code, 0) << crashed.err;
  ASSERT_NE(crashed.exit_code, 124) << "the harness had to kill the run";
  EXPECT_NE(crashed.err.find("B argument 64 did not finish within 3 s"), std::string::npos)
      << crashed.err;
  bool complete = true;
  const auto before = read_output(read_file(dir + "/skampi.out"), &complete);
  EXPECT_FALSE(complete);
  ASSERT_EQ(before.count("A"), 1u);
  ASSERT_EQ(before.at("A").rows.size(), 3u);

  const auto resumed = run_mpi(3, args, "", 60);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const auto after = read_output(read_file(dir + "/skampi.out"), &complete);
  EXPECT_TRUE(complete);
  ASSERT_EQ(after.size(), 3u);
  // A's rows are the first run's, to the digit, interval included.
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(after.at("A").rows[k].cells, before.at("A").rows[k].cells);
    EXPECT_EQ(after.at("A").rows[k].number("nprocs"), 3);
  }
  const auto log = read_file(dir + "/skampi.log");
  EXPECT_EQ(count_of(log, "START A"), 1);
  EXPECT_EQ(count_of(log, "START B"), 2);
  // The resumed run's JSON has every suite, A's rows with the statistics the file kept.
  const json doc = json::parse(read_file(dir + "/r.json"));
  for (const char* name : {"A", "B", "C"}) {
    const json* b = benchmark(doc, name);
    ASSERT_NE(b, nullptr) << name;
    EXPECT_EQ((*b)["method"], "accurate") << name;
    for (const auto& row : (*b)["rows"]) expect_consistent(row, name);
  }
  const auto& a0 = (*benchmark(doc, "A"))["rows"][0]["accurate"];
  EXPECT_NEAR(a0["median_us"].get<double>(), before.at("A").rows[0].number("t_us"), 1e-9);
  EXPECT_NEAR(a0["ci95_high_us"].get<double>(), before.at("A").rows[0].number("ci95_high_us"),
              1e-9);
  EXPECT_NE(resumed.out.find("# Method: accurate"), std::string::npos);
}

// The PMPI library delays every MPI_Allreduce by 400 us; the median of SKaMPI's Allreduce
// (Type 36) moves by that much, within the two intervals.
TEST(SkampiAccurate, MeasuresAPlantedDelayWithinItsInterval) {
  const auto dir = temp_dir();
  const std::string wrapper = with_pmpi_library(dir);
  const auto cfg = write_file(dir, "d.skampi",
                              "@MEASUREMENTS\n" + suite("AR",
                                                        "  Type = 36;\n  Scale = Fixed_log;\n"
                                                        "  Start_Argument = 8;\n"
                                                        "  End_Argument = 8;\n"));
  auto run = [&](const std::string& program, const std::string& env) {
    const std::string d = temp_dir();
    const auto r = run_mpi(2, accurate_args(cfg, d, {"--sync", "own-barrier", "--budget", "0.5"}),
                           env, 60, program);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(read_file(d + "/r.json"))["benchmarks"][0]["rows"][0];
  };
  const json plain = run("mpiscope", "");
  const json slow = run(wrapper, "MPISCOPE_DELAY=MPI_Allreduce=400");
  expect_consistent(plain, "plain");
  expect_consistent(slow, "delayed");
  const json& a = plain["accurate"];
  const json& b = slow["accurate"];
  EXPECT_GE(b["median_us"].get<double>(), 400.0);
  auto half = [](const json& x) {
    return (x["ci95_high_us"].get<double>() - x["ci95_low_us"].get<double>()) / 2;
  };
  const double shift = b["median_us"].get<double>() - a["median_us"].get<double>();
  EXPECT_NEAR(shift, 400.0, half(a) + half(b) + 20.0) << a.dump() << "\n" << b.dump();
}

// A point of MPI_Comm_split (Type 22) times many repetitions under a budget that does not
// converge early; each sample's communicators are freed after it, untimed. Held to the point's
// end, they piled up and, on a crowded machine where a point ran long, exhausted MPICH's 2,048
// communicators ("Too many communicators": the run aborted).
TEST(SkampiAccurate, CommSplitFreesItsCommunicatorsAfterEverySample) {
  const auto dir = temp_dir();
  const std::string wrapper = with_pmpi_library(dir);
  const auto cfg = write_file(
      dir, "split.skampi",
      "@CACHEWARMUP 0\n@MEASUREMENTS\n" + suite("SPLIT", "  Type = 22;\n  Variation = Nodes;\n"));
  const auto r = run_mpi(2,
                         accurate_args(cfg, dir,
                                       {"--budget", "1", "--target-ci", "0.01", "--reps-per-sample",
                                        "1", "--sync", "own-barrier"}),
                         "MPISCOPE_TRACE=" + dir, 60, wrapper);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  int splits = 0, held = 0, most_held = 0;
  for (const auto& line : lines_of(read_file(dir + "/trace.0"))) {
    if (line.rfind("MPI_Comm_split ", 0) == 0) ++splits, most_held = std::max(most_held, ++held);
    if (line.rfind("MPI_Comm_free ", 0) == 0) --held;
  }
  EXPECT_GE(splits, 50) << "too few repetitions to show a pile-up";
  // The run's own communicators (one per process count) stay for the run: a handful.
  EXPECT_LE(most_held, 4) << splits << " splits";
}

TEST(SkampiAccurate, BadMethodOptionsAreOneClearError) {
  const auto dir = temp_dir();
  const auto cfg = write_file(dir, "ok.skampi", "@MEASUREMENTS\n" + suite("R", "  Type = 25;\n"));
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--method", "foo"}, {"--method", "accurate", "--min-reps", "3"}}) {
    std::vector<std::string> args = {"skampi",   cfg,         "--outfile",
                                     dir + "/o", "--logfile", dir + "/l"};
    args.insert(args.end(), bad.begin(), bad.end());
    const auto r = run_mpi(2, args, "", 60);
    EXPECT_EQ(r.exit_code, 2) << bad[1] << r.err;
    EXPECT_EQ(count_of(r.err, "error:"), 1) << r.err;
    EXPECT_NE(r.err.find(bad[bad.size() - 2]), std::string::npos) << r.err;
  }
  // The help lists the method options.
  const auto help = run_mpi(1, {"skampi", "--help"}, "", 60);
  EXPECT_EQ(help.exit_code, 0);
  for (const char* option :
       {"--method", "--sync", "--time-def", "--target-ci", "--min-reps", "--max-reps", "--budget"})
    EXPECT_NE(help.out.find(option), std::string::npos) << option;
}
