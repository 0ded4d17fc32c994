// The data side of the results database as a user calls it: `mpiscope export` (long, tidy rows),
// the per-run CSV file in the same layout, `mpiscope runs` (100 columns, filters), --label on
// every suite, `mpiscope label` and `mpiscope delete`. Real runs, real SQLite files in fresh
// folders (never the user's database).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "harness.hpp"

using namespace harness;
using nlohmann::json;

namespace {

// RFC 4180 cells of one line (quotes around cells, "" for a quote inside one).
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') {
      cell += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(cell);
  return cells;
}

// The data lines of a CSV text ('#' lines skipped), each as column name -> cell.
std::vector<std::map<std::string, std::string>> records_of(const std::string& text) {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> records;
  for (const auto& line : lines_of(text)) {
    if (line.empty() || line[0] == '#') continue;
    const auto cells = cells_of(line);
    if (header.empty()) {
      header = cells;
      continue;
    }
    EXPECT_EQ(cells.size(), header.size()) << line;
    std::map<std::string, std::string> r;
    for (std::size_t c = 0; c < std::min(cells.size(), header.size()); ++c) r[header[c]] = cells[c];
    records.push_back(std::move(r));
  }
  return records;
}

// Lines of the text without the '#' lines.
std::string without_comments(const std::string& text) {
  std::string out;
  for (const auto& line : lines_of(text))
    if (line.empty() || line[0] != '#') out += line + "\n";
  return out;
}

const std::vector<std::string> kPingPong = {"imb-mpi1", "PingPong", "-iter", "10"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

// The per-run CSV and `mpiscope export --format csv` of the same run are the same rows; every row
// is one quantity with its unit, every parameter a column; the JSON export has the same records.
TEST(DataCli, ExportAndThePerRunCsvAreTheSameTidyRows) {
  const auto dir = temp_dir();
  const auto db = dir + "/r.db";
  const auto lengths = write_file(dir, "l", "0\n1024\n");
  const auto r = run_mpi(2, with(kPingPong, {"Allreduce", "-msglen", lengths, "--db", db, "--label",
                                             "base, \"quoted\"", "--csv", dir + "/r.csv"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto exported = run_plain({"export", "--db", db, "--format", "csv", "last"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_EQ(without_comments(read_file(dir + "/r.csv")), exported.out);

  const auto rows = records_of(exported.out);
  ASSERT_FALSE(rows.empty());
  std::set<std::string> benchmarks;
  int t_max_rows = 0;
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("run"), "1");
    EXPECT_EQ(row.at("label"), "base, \"quoted\"");
    EXPECT_EQ(row.at("suite"), "imb-mpi1");
    EXPECT_EQ(row.at("method"), "classic");
    EXPECT_EQ(row.at("processes"), "2");
    EXPECT_FALSE(row.at("unit").empty()) << row.at("quantity");
    EXPECT_NO_THROW((void)std::stod(row.at("value"))) << row.at("quantity");
    benchmarks.insert(row.at("benchmark"));
    if (row.at("quantity") == "t_max_us") {
      ++t_max_rows;
      EXPECT_EQ(row.at("unit"), "microseconds");
    }
  }
  EXPECT_EQ(benchmarks, (std::set<std::string>{"PingPong", "Allreduce"}));
  EXPECT_EQ(t_max_rows, 4);  // 2 benchmarks x 2 lengths

  const auto as_json = run_plain({"export", "--db", db, "--format", "json"});
  ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
  const json records = json::parse(as_json.out);
  ASSERT_EQ(records.size(), rows.size());
  for (const auto& [key, value] : rows.front()) EXPECT_TRUE(records.front().contains(key)) << key;
  EXPECT_EQ(records.front()["run"], 1);
  EXPECT_EQ(records.front()["bytes"], 0);

  // Imported runs (no run of the database names their parameters alike): one header, parameter
  // columns from every run, and -o writes a file.
  ASSERT_EQ(run_plain({"import", "--db", db, sample("osu_mixed.txt")}).exit_code, 0);
  const auto both = run_plain({"export", "--db", db, "-o", dir + "/all.csv"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  const auto all = records_of(read_file(dir + "/all.csv"));
  EXPECT_GT(all.size(), rows.size());
  EXPECT_EQ(run_plain({"export", "--db", db, "7"}).exit_code, 2);
  EXPECT_EQ(run_plain({"export", "--db", db, "--format", "xml"}).exit_code, 2);
}

// Issue 32: a point-to-point curve's model is in the tidy rows too (group "model"), in the per-run
// CSV as in the export, one row per figure of each region at its first length.
TEST(DataCli, TheCurveModelIsInTheTidyRows) {
  const auto dir = temp_dir();
  const auto db = dir + "/r.db";
  const auto r = run_mpi(2, with(kPingPong, {"-msglog", "0:12", "--db", db, "--csv", dir + "/r.csv",
                                             "--json", dir + "/r.json"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto exported = run_plain({"export", "--db", db, "--format", "csv", "last"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_EQ(without_comments(read_file(dir + "/r.csv")), exported.out);
  const auto model = json::parse(read_file(dir + "/r.json")).at("benchmarks").at(0).at("model");
  const auto& regions = model.at("regions");
  std::vector<std::map<std::string, std::string>> alphas;
  for (const auto& row : records_of(exported.out))
    if (row.at("group") == "model" && row.at("quantity") == "model_alpha_us") alphas.push_back(row);
  ASSERT_EQ(alphas.size(), regions.size()) << exported.out;
  for (std::size_t k = 0; k < alphas.size(); ++k) {
    EXPECT_EQ(alphas[k].at("bytes"), std::to_string(regions[k].at("first_bytes").get<long>()));
    EXPECT_NEAR(std::stod(alphas[k].at("value")), regions[k].at("alpha_us").get<double>(),
                1e-5 * std::abs(regions[k].at("alpha_us").get<double>()) + 1e-9);
    EXPECT_EQ(alphas[k].at("unit"), "microseconds");
    EXPECT_EQ(alphas[k].at("note"), "piecewise Hockney model of t_max");
  }
}

// Accurate mode's median and interval are quantities like the others.
TEST(DataCli, AccurateRowsCarryTheMedianAndItsIntervalAsQuantities) {
  const auto dir = temp_dir();
  const auto r =
      run_mpi(2, {"imb-mpi1", "PingPong", "-msglen", write_file(dir, "l", "64\n"), "--method",
                  "accurate", "--budget", "0.2", "--db", dir + "/a.db", "--csv", dir + "/a.csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, double> value;
  for (const auto& row : records_of(read_file(dir + "/a.csv"))) {
    EXPECT_EQ(row.at("method"), "accurate");
    EXPECT_EQ(row.at("measurement"), "accurate");
    value[row.at("quantity")] = std::stod(row.at("value"));
  }
  for (const char* q : {"median_us", "ci95_low_us", "ci95_high_us", "valid_repetitions"})
    ASSERT_TRUE(value.count(q)) << q;
  EXPECT_LE(value["ci95_low_us"], value["median_us"]);
  EXPECT_LE(value["median_us"], value["ci95_high_us"]);
}

// `mpiscope runs`: within 100 columns, imported runs with their date and real suite, the method
// marked, filters by suite, label and date; the source path only with --long.
TEST(DataCli, RunsFitsOneHundredColumnsShowsMethodsAndFilters) {
  const auto dir = temp_dir();
  const auto db = dir + "/runs.db";
  const auto lengths = write_file(dir, "l", "0\n");
  ASSERT_EQ(run_mpi(2, with(kPingPong, {"-msglen", lengths, "--db", db, "--label",
                                        "a rather long label that will not fit"}))
                .exit_code,
            0);
  ASSERT_EQ(run_mpi(2, {"imb-mpi1", "PingPong", "-msglen", lengths, "--method", "accurate",
                        "--budget", "0.1", "--db", db})
                .exit_code,
            0);
  ASSERT_EQ(run_plain({"import", "--db", db, sample("imb_mpi1_openmpi.txt")}).exit_code, 0);
  const auto runs = run_plain({"runs", "--db", db});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  for (const auto& line : lines_of(runs.out)) {
    if (line.rfind("# ", 0) != 0) {
      EXPECT_LE(line.size(), 100u) << line;
    }
  }
  EXPECT_EQ(runs.out.find(sample("imb_mpi1_openmpi.txt")), std::string::npos) << runs.out;
  EXPECT_EQ(count_of(runs.out, " classic "), 1) << runs.out;
  EXPECT_EQ(count_of(runs.out, " accurate "), 1) << runs.out;
  EXPECT_EQ(count_of(runs.out, " imported "), 1) << runs.out;
  EXPECT_EQ(count_of(runs.out, "a rather long..."), 1) << runs.out;
  // The imported file's own date (IMB's "Date" header line), not "-".
  const auto imported = lines_of(runs.out).at(5);
  EXPECT_NE(imported.find(" 2024-03-05 14:02 "), std::string::npos) << imported;
  EXPECT_EQ(count_of(runs.out, "imb-mpi1"), 3) << runs.out;

  const auto long_listing = run_plain({"runs", "--db", db, "--long"});
  EXPECT_EQ(count_of(long_listing.out, sample("imb_mpi1_openmpi.txt")), 1) << long_listing.out;
  const auto labelled =
      run_plain({"runs", "--db", db, "--label", "a rather long label that will not fit"});
  EXPECT_EQ(lines_of(labelled.out).size(), 4u) << labelled.out;  // path, headings, dashes, the run
  EXPECT_EQ(lines_of(run_plain({"runs", "--db", db, "--suite", "osu"}).out).size(), 3u);
  EXPECT_EQ(lines_of(run_plain({"runs", "--db", db, "--since", "2999-01-01"}).out).size(), 3u);
  EXPECT_EQ(lines_of(run_plain({"runs", "--db", db, "--since", "2000-01-01"}).out).size(), 6u);
  EXPECT_EQ(run_plain({"runs", "--db", db, "--since", "yesterday"}).exit_code, 2);
}

// label and delete: changes in one transaction, unknown runs refused with exit 2 and nothing
// changed.
TEST(DataCli, LabelAndDeleteChangeTheDatabaseOrNothing) {
  const auto dir = temp_dir();
  const auto db = dir + "/d.db";
  for (const char* file : {"osu_latency_a.txt", "osu_latency_b.txt", "osu_mixed.txt"})
    ASSERT_EQ(run_plain({"import", "--db", db, sample(file)}).exit_code, 0);
  ASSERT_EQ(run_plain({"label", "--db", db, "2", "second"}).exit_code, 0);
  EXPECT_EQ(count_of(run_plain({"runs", "--db", db, "--label", "second"}).out, "second"), 1);
  const auto unknown_label = run_plain({"label", "--db", db, "9", "x"});
  EXPECT_EQ(unknown_label.exit_code, 2);
  EXPECT_EQ(count_of(unknown_label.err, "no run 9"), 1) << unknown_label.err;

  const auto refused = run_plain({"delete", "--db", db, "1", "9"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(lines_of(run_plain({"runs", "--db", db}).out).size(), 6u);  // all three remain
  const auto deleted = run_plain({"delete", "--db", db, "1", "last"});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(count_of(deleted.out, "deleted runs 1, 3"), 1) << deleted.out;
  const auto left = run_plain({"runs", "--db", db}).out;
  EXPECT_EQ(lines_of(left).size(), 4u) << left;
  EXPECT_EQ(count_of(left, "second"), 1) << left;
  EXPECT_EQ(run_plain({"delete", "--db", dir + "/missing.db", "1"}).exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir + "/missing.db"));
}

// Every suite takes --label (stored in the database) and -h; --timeout 0 is refused by each.
TEST(DataCli, EverySuiteTakesLabelHelpAndRefusesTimeoutZero) {
  const auto dir = temp_dir();
  const auto db = dir + "/l.db";
  const auto skampi = write_file(dir, "c.skampi",
                                 "@OUTFILE " + dir + "/s.out\n@LOGFILE " + dir +
                                     "/s.log\n@MEASUREMENTS\nA\n{\n  Type = 1;\n  Scale = "
                                     "Fixed_log;\n  Start_Argument = 16;\n  End_Argument = 16;\n  "
                                     "Stepwidth = 2;\n}\n");
  const std::vector<std::vector<std::string>> runs = {
      with(kPingPong, {"-msglen", write_file(dir, "l", "0\n")}),
      {"beff", "--memory-per-process", "1", "--loop-time", "0.1", "--random-patterns", "1",
       "--repetitions", "1"},
      {"beffio", "-T", "1", "--memory-per-node", "256M", "--io-dir", dir},
      {"skampi", skampi},
      {"presta", "com", "-o", "3", "-e", "64"},
      {"osu", "osu_latency", "-m", "8", "-i", "10", "-x", "1"}};
  for (const auto& args : runs) {
    SCOPED_TRACE(args[0]);
    const auto r = run_mpi(2, with(args, {"--db", db, "--label", "suite " + args[0]}), "", 120);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out.substr(0, 2000);
    EXPECT_EQ(count_of(run_plain({"runs", "--db", db, "--label", "suite " + args[0]}).out,
                       "suite " + args[0]),
              1);
    const bool program_named = args[0] == "presta" || args[0] == "osu";
    const auto help = run_mpi(
        1,
        program_named ? std::vector<std::string>{args[0], args[1], "-h"} : with({args[0]}, {"-h"}),
        "", 60);
    EXPECT_EQ(help.exit_code, 0) << help.err;
    EXPECT_NE(help.out.find("--label"), std::string::npos) << help.out.substr(0, 500);
    const auto zero = run_mpi(2, with(args, {"--timeout", "0", "--no-db"}), "", 60);
    EXPECT_EQ(zero.exit_code, 2) << zero.err;
    EXPECT_EQ(count_of(zero.err, "--timeout must be a number above 0"), 1) << zero.err;
  }
}
