// The result model's machine-readable outputs: JSON and CSV, checked against the text tables.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness.hpp"

using namespace harness;
using nlohmann::json;

namespace {

std::vector<std::vector<std::string>> read_csv(const std::string& text,
                                               std::vector<std::string>& comments) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& line : lines_of(text)) {
    if (line.rfind("#", 0) == 0) {
      comments.push_back(line);
      continue;
    }
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (char c : line) {
      if (c == '"')
        quoted = !quoted;
      else if (c == ',' && !quoted)
        cells.push_back(cell), cell.clear();
      else
        cell += c;
    }
    cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(Outputs, JsonAndCsvCarryMetadataAndTheSameNumbersAsTheTables) {
  const auto dir = temp_dir();
  const auto lengths = write_file(dir, "l", "0\n1024\n65536\n");
  const auto r =
      run_mpi(3, {"imb-mpi1", "PingPong", "Allreduce", "Barrier", "-iter", "20", "-msglen", lengths,
                  "--json", dir + "/r.json", "--csv", dir + "/r.csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto tables = parse_imb(r.out);

  const json j = json::parse(read_file(dir + "/r.json"));
  EXPECT_EQ(j["format"], "mpiscope-results");
  EXPECT_EQ(j["complete"], true);
  const auto& run = j["run"];
  EXPECT_EQ(run["suite"], "imb-mpi1");
  EXPECT_EQ(run["world_size"], 3);
  int ranks = 0;
  for (const auto& [host, n] : run["ranks_per_host"].items()) ranks += n.get<int>();
  EXPECT_EQ(ranks, 3);
  EXPECT_NE(run["mpi_library"].get<std::string>().find(mpi_library_name()), std::string::npos);
  EXPECT_FALSE(run["mpiscope_version"].get<std::string>().empty());
  EXPECT_FALSE(run["mpiscope_commit"].get<std::string>().empty());
  EXPECT_FALSE(run["date_iso"].get<std::string>().empty());
  EXPECT_EQ(run["command_line"].back(), dir + "/r.csv");
  EXPECT_EQ(run["settings"]["msgs_per_sample"], "20");
  EXPECT_EQ(j["units"]["t_max_us"], "microseconds");
  EXPECT_NE(j["units"]["mbytes_per_sec"].get<std::string>().find("2^20"), std::string::npos);

  ASSERT_EQ(j["benchmarks"].size(), tables.size());
  for (std::size_t b = 0; b < tables.size(); ++b) {
    const auto& jb = j["benchmarks"][b];
    const auto& t = tables[b];
    EXPECT_EQ(jb["name"], t.name);
    EXPECT_EQ(jb["nprocs"], t.nprocs);
    ASSERT_EQ(jb["rows"].size(), t.cells.size()) << t.name;
    for (std::size_t i = 0; i < t.cells.size(); ++i) {
      const auto& row = jb["rows"][i];
      EXPECT_EQ(row["repetitions"].get<int>(), std::stoi(t.cells[i][t.name == "Barrier" ? 0 : 1]));
      EXPECT_EQ(row["rank_times_us"].size(), static_cast<std::size_t>(t.nprocs));
      const double tmax = row["t_max_us"];
      // The table prints t_max rounded to 2 decimals (single transfer: t[usec] is t_max).
      const std::size_t tmax_col = t.name == "PingPong" ? 2 : (t.name == "Barrier" ? 2 : 3);
      EXPECT_NEAR(tmax, std::stod(t.cells[i][tmax_col]), 0.0051) << t.rows[i];
      double worst = 0;
      for (double x : row["rank_times_us"]) worst = std::max(worst, x);
      EXPECT_DOUBLE_EQ(worst, tmax);
    }
  }

  // CSV: the long layout (one quantity per line, docs/output.md), t_max_us as in the JSON.
  std::vector<std::string> comments;
  const auto csv = read_csv(read_file(dir + "/r.csv"), comments);
  ASSERT_FALSE(csv.empty());
  EXPECT_EQ(csv[0][0], "run");
  std::map<std::string, std::size_t> column;
  for (std::size_t c = 0; c < csv[0].size(); ++c) column[csv[0][c]] = c;
  for (const char* name :
       {"suite", "benchmark", "method", "processes", "bytes", "quantity", "value", "unit"})
    ASSERT_TRUE(column.count(name)) << name;
  bool has_library = false;
  for (const auto& c : comments) has_library |= c.find("# mpi_library:") == 0;
  EXPECT_TRUE(has_library);
  std::size_t table_rows = 0;
  for (const auto& t : tables) table_rows += t.cells.size();
  std::size_t t_max_lines = 0;
  std::map<std::string, std::size_t> row_of;  // benchmark and processes -> t_max lines seen
  for (std::size_t i = 1; i < csv.size(); ++i) {
    const auto& line = csv[i];
    ASSERT_EQ(line.size(), csv[0].size());
    EXPECT_EQ(line[column["suite"]], "imb-mpi1");
    EXPECT_EQ(line[column["method"]], "classic");
    if (line[column["quantity"]] != "t_max_us") continue;
    ++t_max_lines;
    const auto& name = line[column["benchmark"]];
    const auto& processes = line[column["processes"]];
    std::size_t b = 0;
    while (b < tables.size() &&
           (tables[b].name != name || std::to_string(tables[b].nprocs) != processes))
      ++b;
    ASSERT_LT(b, tables.size()) << name;
    const double tmax = j["benchmarks"][b]["rows"][row_of[name + processes]++]["t_max_us"];
    EXPECT_NEAR(std::stod(line[column["value"]]), tmax, 1e-5 * tmax + 1e-9) << name;
    EXPECT_EQ(line[column["unit"]], "microseconds");
  }
  EXPECT_EQ(t_max_lines, table_rows);
}

// Accurate rows: t_max_us is the slowest repetition, so the CSV carries the median and its
// interval as the JSON does, and says which method measured the row.
TEST(Outputs, AccurateCsvRowsCarryTheMedianAndItsInterval) {
  const auto dir = temp_dir();
  const auto r = run_mpi(
      2, {"imb-mpi1", "PingPong", "-msglen", write_file(dir, "l", "0\n1024\n"), "--method",
          "accurate", "--budget", "0.2", "--json", dir + "/r.json", "--csv", dir + "/r.csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> comments;
  const auto csv = read_csv(read_file(dir + "/r.csv"), comments);
  ASSERT_GT(csv.size(), 1u);
  std::map<std::string, std::size_t> column;
  for (std::size_t c = 0; c < csv[0].size(); ++c) column[csv[0][c]] = c;
  // bytes -> quantity -> value, from the long layout's lines.
  std::map<std::string, std::map<std::string, std::string>> value;
  for (std::size_t i = 1; i < csv.size(); ++i) {
    EXPECT_EQ(csv[i][column["method"]], "accurate");
    value[csv[i][column["bytes"]]][csv[i][column["quantity"]]] = csv[i][column["value"]];
  }
  const json j = json::parse(read_file(dir + "/r.json"));
  const auto& rows = j["benchmarks"][0]["rows"];
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(value.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    auto& line = value[std::to_string(rows[i]["bytes"].get<int>())];
    const auto& a = rows[i]["accurate"];
    SCOPED_TRACE(rows[i].dump());
    for (const char* name : {"median_us", "ci95_low_us", "ci95_high_us", "ci_confidence"})
      ASSERT_TRUE(line.count(name)) << name;
    const double median = std::stod(line["median_us"]);
    const double low = std::stod(line["ci95_low_us"]);
    const double high = std::stod(line["ci95_high_us"]);
    // %.6g in the CSV, full precision in the JSON.
    EXPECT_NEAR(median, a["median_us"].get<double>(), 1e-5 * median + 1e-9);
    EXPECT_NEAR(low, a["ci95_low_us"].get<double>(), 1e-5 * low + 1e-9);
    EXPECT_NEAR(high, a["ci95_high_us"].get<double>(), 1e-5 * high + 1e-9);
    EXPECT_LE(low, median);
    EXPECT_LE(median, high);
    // The interval's coverage: >= 0.95, or 0 with fewer than 6 valid repetitions (the
    // interval is then min..max).
    EXPECT_NEAR(std::stod(line["ci_confidence"]), a["ci_confidence"].get<double>(), 1e-5);
  }
}

TEST(Outputs, SamplesAreKeptOnRequest) {
  const auto dir = temp_dir();
  const auto r =
      run_mpi(2, {"imb-mpi1", "PingPong", "-iter", "50", "-msglen",
                  write_file(dir, "l", "0\n4096\n"), "--samples", "--json", dir + "/r.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(read_file(dir + "/r.json"));
  for (const auto& row : j["benchmarks"][0]["rows"]) {
    const auto& s = row["samples_us"];
    ASSERT_EQ(s["n"], 50);
    ASSERT_EQ(s["values"].size(), 50u);
    EXPECT_LE(s["min"].get<double>(), s["median"].get<double>());
    EXPECT_LE(s["median"].get<double>(), s["max"].get<double>());
    EXPECT_LE(s["p25"].get<double>(), s["p75"].get<double>());
  }
}

TEST(Outputs, SkippedRowsAreRecordedWithoutNumbers) {
  const auto dir = temp_dir();
  const auto r = run_mpi(2, {"imb-mpi1", "PingPong", "-mem", "0.001", "-iter", "5", "-msglen",
                             write_file(dir, "l", "16\n4194304\n"), "--json", dir + "/r.json",
                             "--csv", dir + "/r.csv"});
  ASSERT_EQ(r.exit_code, 5) << r.err;  // incomplete: a length was skipped
  const json j = json::parse(read_file(dir + "/r.json"));
  EXPECT_EQ(j["all_points_ran"], false);
  const auto& rows = j["benchmarks"][0]["rows"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["measured"], true);
  EXPECT_EQ(rows[1]["measured"], false);
  EXPECT_FALSE(rows[1].contains("t_max_us"));
  EXPECT_NE(rows[1]["note"].get<std::string>().find("memory limit"), std::string::npos);
  // CSV: the skipped length is one line without quantity or value, with the note.
  std::vector<std::string> comments;
  const auto csv = read_csv(read_file(dir + "/r.csv"), comments);
  std::map<std::string, std::size_t> column;
  for (std::size_t c = 0; c < csv[0].size(); ++c) column[csv[0][c]] = c;
  std::size_t skipped = 0;
  for (std::size_t i = 1; i < csv.size(); ++i) {
    if (csv[i][column["bytes"]] != "4194304") continue;
    ++skipped;
    EXPECT_EQ(csv[i][column["quantity"]], "");
    EXPECT_EQ(csv[i][column["value"]], "");
    EXPECT_NE(csv[i][column["note"]].find("memory limit"), std::string::npos);
  }
  EXPECT_EQ(skipped, 1u);
}

}  // namespace

// The progress line appears on rank 0's terminal during long points (one that cannot reach its
// minimum repetitions runs to its 2.5 s budget): Open MPI ranks can open their controlling
// terminal, which `script` provides. It never appears in the results.
TEST(Progress, ShownOnATerminalDuringLongPointsAndNeverInTheResults) {
  const auto dir = temp_dir();
  const std::vector<std::string> args = {
      "imb-mpi1",   "PingPong",  "-msglen",    write_file(dir, "l", "1024\n"),
      "--method",   "accurate",  "--sync",     "own-barrier",
      "--min-reps", "100000000", "--max-reps", "100000000",
      "--budget",   "2.5",       "--json",     dir + "/r.json"};
  // Without a terminal (this test process has none): quiet.
  const auto plain = run_mpi(2, args);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("elapsed"), std::string::npos);
  EXPECT_EQ(plain.err.find("elapsed"), std::string::npos);
  if (!is_openmpi()) GTEST_SKIP() << "MPICH's ranks have no controlling terminal to draw on";
  std::string cmd =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "ASAN_OPTIONS=detect_leaks=0 " +
      mpiscope_launch(2);
  for (const auto& a : args) cmd += " " + a;
  const std::string log = dir + "/terminal.log";
  const std::string script = "timeout 120 script -qec '" + cmd + " > " + dir + "/out.txt' " + log;
  ASSERT_EQ(std::system(script.c_str()), 0);
  const std::string terminal = read_file(log);
  EXPECT_NE(terminal.find("mpiscope imb-mpi1: PingPong at 1024 bytes on 2 processes"),
            std::string::npos)
      << terminal;
  EXPECT_NE(terminal.find("elapsed 0:0"), std::string::npos) << terminal;
  EXPECT_EQ(read_file(dir + "/out.txt").find("elapsed"), std::string::npos);
}
