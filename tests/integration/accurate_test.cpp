// Accurate mode (--method accurate) on real runs: window synchronisation, validity, the median's
// interval, the fallback on an oversubscribed node, and a planted delay measured within its
// interval.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "accurate_checks.hpp"
#include "harness.hpp"

using namespace harness;
using nlohmann::json;

namespace {

json run_accurate(int np, const std::vector<std::string>& extra, Result& r,
                  const std::string& program = "mpiscope", const std::string& env = "") {
  const auto dir = temp_dir();
  std::vector<std::string> args = {"imb-mpi1", "--method", "accurate", "--json", dir + "/r.json"};
  args.insert(args.end(), extra.begin(), extra.end());
  r = run_mpi(np, args, env, 240, program);
  return json::parse(read_file(dir + "/r.json"));
}

}  // namespace

TEST(Accurate, WindowSchemeMarksRepetitionsValidAtTwoProcesses) {
  Result r;
  const auto dir = temp_dir();
  const json doc = run_accurate(
      // Not 0 bytes: a 0-byte Allreduce is a no-op of 6 ns, below the timer's step even in
      // samples of 75, which never converges and gives the window scheme nothing to time.
      2, {"PingPong", "Allreduce", "-msglen", write_file(dir, "l", "1\n1024\n65536\n")}, r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(doc["run"]["settings"]["method"], "accurate");
  EXPECT_EQ(doc["run"]["settings"]["synchronisation"], "window");
  EXPECT_GT(std::stod(doc["run"]["settings"]["timer_cost_s"].get<std::string>()), 0);
  EXPECT_NE(r.out.find("# Method: accurate: window sync"), std::string::npos);
  int window_rows = 0;
  for (const auto& b : doc["benchmarks"]) {
    EXPECT_EQ(b["method"], "accurate");
    bool fell_back = false;  // the table's later rows keep the barrier
    for (const auto& row : b["rows"]) {
      const std::string where = b["name"].get<std::string>() + " " + row["bytes"].dump();
      expect_consistent_accurate_row(row, where);
      const json& a = row["accurate"];
      if (a["sync"] != "window") {
        // A loaded machine may make a point fall back; it must say so.
        if (!fell_back) {
          EXPECT_NE(row.value("note", "").find("window sync: too many repetitions started late"),
                    std::string::npos)
              << where << ": " << row.dump();
        }
        fell_back = true;
        continue;
      }
      ++window_rows;
      EXPECT_EQ(a["time_definition"], "global") << where;
      EXPECT_GT(a["window_us"].get<double>(), 0) << where;
      // Two ranks on two cores: most repetitions start in their windows.
      EXPECT_GE(a["valid"].get<double>(), 0.5 * a["attempted"].get<double>()) << where;
    }
  }
  // Six points; under the load of a busy CI machine one or two have fallen back.
  EXPECT_GE(window_rows, 4) << r.out;
  // The table prints what the JSON holds: the median and its interval.
  const auto tables = parse_imb(r.out);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].columns[2], "#invalid");
  EXPECT_EQ(tables[0].columns[3], "t_med[usec]");
  for (std::size_t i = 0; i < tables[0].cells.size(); ++i) {
    const json& a = doc["benchmarks"][0]["rows"][i]["accurate"];
    EXPECT_NEAR(std::stod(tables[0].cells[i][3]), a["median_us"].get<double>(), 0.0051);
    EXPECT_NEAR(std::stod(tables[0].cells[i][4]), a["ci95_low_us"].get<double>(), 0.0051);
    EXPECT_NEAR(std::stod(tables[0].cells[i][5]), a["ci95_high_us"].get<double>(), 0.0051);
  }
}

// Four busy ranks on two cores: ranks are descheduled for whole time slices, so windows of
// microseconds are missed. mpiscope must count that, widen the window, and fall back with a note
// rather than print the few repetitions that happened to fit.
TEST(Accurate, OversubscriptionIsDetectedAndReported) {
  Result r;
  const auto dir = temp_dir();
  const json doc = run_accurate(
      4,
      {"Allreduce", "-npmin", "4", "--budget", "0.3", "-msglen", write_file(dir, "l", "0\n1024\n")},
      r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int invalid = 0, fell_back = 0;
  for (const auto& b : doc["benchmarks"])
    for (const auto& row : b["rows"]) {
      expect_consistent_accurate_row(row, b["name"].get<std::string>() + " " + row["bytes"].dump());
      invalid += row["accurate"]["late"].get<int>() + row["accurate"]["overrun"].get<int>();
      if (row["accurate"]["fell_back"].get<bool>()) {
        ++fell_back;
        EXPECT_EQ(row["accurate"]["sync"], "own-barrier");
        EXPECT_NE(row["note"].get<std::string>().find("window sync"), std::string::npos);
      }
    }
  // Windows sized from a pilot that already suffered the time-slicing may all be met (MPICH's
  // ranks yield); the run must then still say that the node is oversubscribed.
  const std::string oversubscribed = doc["run"]["settings"]["oversubscribed"];
  EXPECT_EQ(oversubscribed.rfind("yes", 0), 0u) << oversubscribed;
  EXPECT_TRUE(invalid + fell_back > 0 || oversubscribed.rfind("yes", 0) == 0) << r.out;
  if (fell_back > 0) {
    EXPECT_NE(r.out.find("window sync: too many repetitions"), std::string::npos);
  }
}

// The PMPI library delays every MPI_Allreduce by 400 us on every rank; accurate mode's median must
// move by that much, within the two intervals (plus 5 % for the busy-wait's own granularity).
TEST(Accurate, MeasuresAPlantedDelayWithinItsInterval) {
  const auto dir = temp_dir();
  const std::string wrapper = with_pmpi_library(dir);
  const std::vector<std::string> args = {"Allreduce", "-msglen",     write_file(dir, "l", "4\n"),
                                         "--sync",    "own-barrier", "--budget",
                                         "2"};
  Result plain, delayed;
  const json base = run_accurate(2, args, plain);
  const json slow = run_accurate(2, args, delayed, wrapper, "MPISCOPE_DELAY=MPI_Allreduce=400");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(delayed.exit_code, 0) << delayed.err;
  const json& a = base["benchmarks"][0]["rows"][0]["accurate"];
  const json& b = slow["benchmarks"][0]["rows"][0]["accurate"];
  const double shift = b["median_us"].get<double>() - a["median_us"].get<double>();
  auto half = [](const json& x) {
    return (x["ci95_high_us"].get<double>() - x["ci95_low_us"].get<double>()) / 2;
  };
  EXPECT_NEAR(shift, 400.0, half(a) + half(b) + 20.0) << plain.out << delayed.out;
}

// The machine changes speed in the middle of a point (the PMPI library delays every
// MPI_Allreduce from the 60th on by 300 us; 100 samples): the row must say so, with the medians
// of both halves, rather than offer one median as if it described the point.
TEST(Accurate, ReportsAMachineThatChangedSpeedDuringAPoint) {
  const auto dir = temp_dir();
  const std::string wrapper = with_pmpi_library(dir);
  Result r;
  const json doc = run_accurate(
      2,
      {"Allreduce", "-msglen", write_file(dir, "l", "4\n"), "--sync", "own-barrier",
       "--reps-per-sample", "1", "--min-reps", "100", "--max-reps", "100", "--target-ci", "0.001"},
      r, wrapper, "MPISCOPE_DELAY=MPI_Allreduce=300 MPISCOPE_DELAY_AFTER=60");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json& row = doc["benchmarks"][0]["rows"][0];
  const json& a = row["accurate"];
  EXPECT_EQ(a["attempted"].get<int>(), 100);
  EXPECT_EQ(a["repetitions_per_sample"].get<int>(), 1);
  EXPECT_TRUE(a["level_shift"].get<bool>()) << r.out;
  EXPECT_LT(a["first_half_median_us"].get<double>(), 100.0);
  EXPECT_GT(a["second_half_median_us"].get<double>(), 290.0);
  // A point whose machine changed speed has not converged, whatever its interval.
  EXPECT_FALSE(a["converged"].get<bool>());
  EXPECT_NE(row["note"].get<std::string>().find("changed speed"), std::string::npos);
  EXPECT_NE(r.out.find("# not converged: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the machine changed speed during the point (median "), std::string::npos)
      << r.out;
}

namespace {

// The first column of every row a query returns, as text.
std::vector<std::string> column(const std::string& db_path, const std::string& sql) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK)
      while (sqlite3_step(st) == SQLITE_ROW) {
        const auto* text = sqlite3_column_text(st, 0);
        out.emplace_back(text ? reinterpret_cast<const char*>(text) : "NULL");
      }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

// The CSV lines of one quantity.
std::vector<std::string> csv_lines_of(const std::string& csv, const std::string& quantity) {
  std::vector<std::string> out;
  for (const auto& line : lines_of(csv))
    if (line.find(",\"" + quantity + "\",") != std::string::npos) out.push_back(line);
  return out;
}

}  // namespace

// Issue 36: a point stopped by its budget with the interval wider than its target is not a
// converged figure, and every output says so (the text table's note line, the JSON, the CSV, the
// database, the report); a point that met its rule says nothing of the kind. A target of
// 0.0001 % cannot be met in 0.05 s by transfers of 64 KiB and 1 MiB (at 0 bytes, samples of
// repetitions timed back to back can all fall on one tick of the timer on a quiet machine, and
// their interval is then rightly of no width); one of 50 % is met by the first 20 repetitions.
TEST(Accurate, NonConvergedRowsAreFlaggedInEveryOutput) {
  const auto dir = temp_dir();
  const std::string db = dir + "/results.sqlite";
  auto run = [&](const std::string& name, const std::string& target, const std::string& budget) {
    Result r = run_mpi(
        2,
        {"imb-mpi1", "PingPong", "-msglen", write_file(dir, "l", "65536\n1048576\n"), "--method",
         "accurate", "--sync", "own-barrier", "--target-ci", target, "--budget", budget, "--json",
         dir + "/" + name + ".json", "--csv", dir + "/" + name + ".csv", "--db", db},
        "", 240);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r;
  };
  const Result loose = run("loose", "0.0001", "0.05");
  const Result met = run("met", "50", "10");

  // Text: a "# not converged: <reason>" line under each row of the first run, none in the second.
  // Under load a point may end before --min-reps (a 28 ms pilot of a 1 KiB PingPong was seen):
  // the reason then says that instead of the interval's width.
  EXPECT_EQ(count_of(loose.out, "\n# not converged: stopped by the time budget (--budget) "), 2)
      << loose.out;
  EXPECT_EQ(count_of(met.out, "not converged"), 0) << met.out;
  // The tables stay IMB's: every row has as many cells as headings.
  const auto tables = parse_imb(loose.out);
  ASSERT_EQ(tables_named(tables, "PingPong").size(), 1u) << loose.out;
  for (const auto* t : tables_named(tables, "PingPong")) {
    ASSERT_EQ(t->cells.size(), 2u) << loose.out;
    for (const auto& cells : t->cells) EXPECT_EQ(cells.size(), t->columns.size()) << loose.out;
  }

  // JSON.
  for (const auto& [name, converged] : {std::pair{"loose", false}, std::pair{"met", true}}) {
    const json doc = json::parse(read_file(dir + "/" + name + ".json"));
    for (const auto& row : doc["benchmarks"][0]["rows"]) {
      expect_consistent_accurate_row(row, name, 20, std::string(name) == "met" ? 0.5 : 1e-6);
      EXPECT_EQ(row["accurate"]["converged"].get<bool>(), converged) << name << row.dump();
      if (!converged) {
        EXPECT_NE(row["accurate"]["not_converged_reason"].get<std::string>().find("time budget"),
                  std::string::npos);
      }
    }
  }

  // CSV: the quantity `converged` (0 or 1) on each row, the reason in the note.
  const auto loose_csv = csv_lines_of(read_file(dir + "/loose.csv"), "converged");
  ASSERT_EQ(loose_csv.size(), 2u) << read_file(dir + "/loose.csv");
  for (const auto& line : loose_csv) {
    EXPECT_NE(line.find(",\"converged\",0,\"bool\",\"not converged: stopped by the time budget"),
              std::string::npos)
        << line;
  }
  const auto met_csv = csv_lines_of(read_file(dir + "/met.csv"), "converged");
  ASSERT_EQ(met_csv.size(), 2u);
  for (const auto& line : met_csv)
    EXPECT_NE(line.find(",\"converged\",1,\"bool\","), std::string::npos) << line;
  EXPECT_EQ(read_file(dir + "/met.csv").find("not converged"), std::string::npos);

  // The database: the value and the note, per run.
  const std::string per_run =
      "SELECT v.value FROM measurement_values v JOIN measurements m ON m.id = v.measurement_id "
      "JOIN benchmarks b ON b.id = m.benchmark_id WHERE v.name = 'converged' AND b.run_id = ";
  EXPECT_EQ(column(db, per_run + "1"), (std::vector<std::string>{"0.0", "0.0"}));
  EXPECT_EQ(column(db, per_run + "2"), (std::vector<std::string>{"1.0", "1.0"}));
  EXPECT_EQ(column(db,
                   "SELECT count(*) FROM measurements m JOIN benchmarks b ON b.id = "
                   "m.benchmark_id WHERE m.note LIKE 'not converged: stopped by the time "
                   "budget%' AND b.run_id = 1"),
            std::vector<std::string>{"2"});

  // The report carries the reason for the points it draws hollow.
  const auto report = run_plain({"report", "--db", db, "-o", dir + "/r.html"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string html = read_file(dir + "/r.html");
  EXPECT_EQ(count_of(html, "\"not_converged\":\"stopped by the time budget"), 2);
}

// A 0-byte PingPong lasts a fraction of a microsecond, a few timer readings: automatically,
// samples time several repetitions back to back, and the row says so; --reps-per-sample 1
// times them one by one.
TEST(Accurate, ShortRepetitionsAreTimedInLongerSamples) {
  const auto dir = temp_dir();
  const std::string lengths = write_file(dir, "l", "0\n");
  Result automatic, single;
  const json a = run_accurate(2, {"PingPong", "-msglen", lengths, "--budget", "0.3"}, automatic);
  const json b = run_accurate(
      2, {"PingPong", "-msglen", lengths, "--budget", "0.3", "--reps-per-sample", "1"}, single);
  ASSERT_EQ(automatic.exit_code, 0) << automatic.err;
  ASSERT_EQ(single.exit_code, 0) << single.err;
  const json& ra = a["benchmarks"][0]["rows"][0];
  const json& rb = b["benchmarks"][0]["rows"][0];
  const int k = ra["accurate"]["repetitions_per_sample"].get<int>();
  EXPECT_GT(ra["accurate"]["timer_floor_us"].get<double>(), 0);
  // One repetition is below 100 timer floors, so a sample holds several (allowing a pilot
  // slowed 3-fold by the machine).
  EXPECT_GE(k, 2) << automatic.out;
  EXPECT_NE(ra["note"].get<std::string>().find("repetitions timed back to back"),
            std::string::npos);
  EXPECT_EQ(rb["accurate"]["repetitions_per_sample"].get<int>(), 1);
  EXPECT_FALSE(rb.contains("note") &&
               rb["note"].get<std::string>().find("back to back") != std::string::npos);
}

TEST(Accurate, BadMethodOptionsAreOneClearError) {
  // One case per path (the shared method options, an IMB conflict, a count); every value is
  // checked by tests/unit/options_test.cpp.
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--method", "fast"},
        {"--method", "accurate", "-multi", "0"},
        {"--method", "accurate", "--reps-per-sample", "many"}}) {
    std::vector<std::string> args = {"imb-mpi1", "PingPong"};
    args.insert(args.end(), bad.begin(), bad.end());
    const auto r = run_mpi(2, args, "", 60);
    EXPECT_EQ(r.exit_code, 2) << bad[bad.size() - 1] << r.err;
    EXPECT_EQ(count_of(r.err, "error:"), 1) << r.err;
  }
}

// The database keeps accurate mode's median and interval, and compare compares the medians.
TEST(Accurate, RecordedMedianIsWhatCompareCompares) {
  const auto dir = temp_dir();
  const std::string db = dir + "/results.sqlite";
  const std::vector<std::string> args = {
      "PingPong", "-msglen", write_file(dir, "l", "1024\n"), "--sync", "own-barrier", "--db", db};
  Result a, b;
  const json first = run_accurate(2, args, a);
  const json second = run_accurate(2, args, b);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto compared = run_plain({"compare", "last-1", "last", "--db", db});
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  char median[2][32];
  std::snprintf(median[0], sizeof median[0], "%.2f",
                first["benchmarks"][0]["rows"][0]["accurate"]["median_us"].get<double>());
  std::snprintf(median[1], sizeof median[1], "%.2f",
                second["benchmarks"][0]["rows"][0]["accurate"]["median_us"].get<double>());
  EXPECT_NE(compared.out.find(std::string(median[0]) + " "), std::string::npos) << compared.out;
  EXPECT_NE(compared.out.find(std::string(median[1]) + " "), std::string::npos) << compared.out;
  // With one run per side, the within-run intervals decide nothing (they describe one launch's
  // repetitions, not how launches differ): the single-run bound does (the row's test column).
  bool decided_by_bound = false;
  for (const auto& line : lines_of(compared.out))
    if (line.rfind("   1024 ", 0) == 0)  // (a point that did not converge under load: nothing)
      decided_by_bound =
          line.find(" bound 10.0x ") != std::string::npos ||
          compared.out.find("did not converge or is not physical") != std::string::npos;
  EXPECT_TRUE(decided_by_bound) << compared.out;
}

// IMB's process sets grow (2, then 3 processes here): the rank that sat out the first set has no
// timer floor or clock model yet when the second starts. Every rank must still enter the same
// collectives (this hung at the second set, every time, before they agreed).
TEST(Accurate, ProcessSetsOfGrowingSizeEachGetATable) {
  Result r;
  const auto dir = temp_dir();
  const json doc = run_accurate(3,
                                {"Allreduce", "PingPong", "--budget", "0.2", "--max-reps", "60",
                                 "-msglen", write_file(dir, "l", "4\n64\n")},
                                r);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::vector<int> allreduce_sets;
  for (const auto& b : doc["benchmarks"]) {
    if (b["name"] == "Allreduce") allreduce_sets.push_back(b["nprocs"].get<int>());
    for (const auto& row : b["rows"])
      expect_consistent_accurate_row(row, b["name"].get<std::string>() + " " + row["bytes"].dump());
  }
  EXPECT_EQ(allreduce_sets, (std::vector<int>{2, 3}));
}
