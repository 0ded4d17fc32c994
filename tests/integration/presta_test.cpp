// PRESTA end to end: the five tests through the real launcher at 2, 4 and 8 processes; the
// figures in the JSON are recomputed from the measured times they are derived from, in classic
// mode from the longest sample and in accurate mode from the median repetition.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <numeric>
#include <regex>
#include <sstream>

#include "accurate_checks.hpp"
#include "harness.hpp"

using namespace harness;
using nlohmann::json;

namespace {

struct Run {
  Result result;
  json doc;
};

// Runs `program` (an alias, or mpiscope with "presta <test>") with --json and reads the JSON.
Run run_json(int np, std::vector<std::string> args, const std::string& program = "mpiscope") {
  const auto path = temp_dir() + "/r.json";
  args.push_back("--json");
  args.push_back(path);
  Run r{run_mpi(np, args, "", 90, program), {}};
  if (r.result.exit_code == 0) r.doc = json::parse(read_file(path));
  return r;
}

double value(const json& row, const std::string& name) {
  return row.at("values").at(name).at("value").get<double>();
}

void expect_close(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, std::fabs(want))) << what;
}

double wtick_us(const json& doc) {
  return std::stod(doc.at("run").at("settings").at("wtick_s").get<std::string>()) * 1e6;
}

// The printed line of a table row whose first cells are `first_cells` (compared blank-separated
// word by word, so that a cell may hold blanks), or "".
std::string printed_row(const std::string& out, const std::vector<std::string>& first_cells) {
  std::vector<std::string> words;
  for (const auto& c : first_cells) {
    std::istringstream in(c);
    for (std::string w; in >> w;) words.push_back(w);
  }
  for (const auto& line : lines_of(out)) {
    std::istringstream in(line);
    std::size_t i = 0;
    for (std::string w; i < words.size() && in >> w && w == words[i];) ++i;
    if (i == words.size()) return line;
  }
  return "";
}

std::string fixed3(double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", x);
  return text;
}

// PRESTA 1.1's closing lines of com, laten and rma, in its order: the best bandwidths (as
// `best`, its spelling), the "Test Parameters" block with `parameters`, then the timer lines,
// whose Wtime overhead is the run's one timer cost (`timer_cost_s`); mpiscope's figures after.
void expect_presta_lines(const Run& r, const std::vector<std::string>& best,
                         const std::vector<std::string>& parameters) {
  const auto& out = r.result.out;
  std::size_t at = 0;
  for (const auto& label : best) {
    const auto line = out.find("\n" + label + " :  ", at);
    ASSERT_NE(line, std::string::npos) << label << out;
    EXPECT_NE(out.find(" for message size of ", line), std::string::npos);
    at = line + 1;
  }
  const auto block = out.find("\nTest Parameters\n---------------\n", at);
  ASSERT_NE(block, std::string::npos) << out;
  for (const auto& p : parameters)
    EXPECT_NE(out.find("\n" + p + "\n", block), std::string::npos) << p;
  const auto& settings = r.doc.at("run").at("settings");
  EXPECT_FALSE(settings.contains("wtime_overhead_s")) << "one timer cost, not two";
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m,
                                std::regex("\nMPI_Wtick returns +([0-9.]+)\nMPI_Wtime overhead "
                                           "+([0-9.]+)\nTicks for minimum sample +([0-9]+)\n")))
      << out;
  EXPECT_GT(static_cast<std::size_t>(m.position(0)), block);
  const double cost = std::stod(settings.at("timer_cost_s").get<std::string>());
  EXPECT_NEAR(std::stod(m[2]), cost, 5e-10 + 1e-3 * cost) << "the settings' timer cost";
  EXPECT_NEAR(std::stod(m[1]), wtick_us(r.doc) * 1e-6, 5e-10);
}

// The pairs of every table of a pair test, by process count.
std::map<int, json> groups_by_count(const json& doc, const std::string& name) {
  std::map<int, json> out;
  for (const auto& b : doc.at("benchmarks"))
    if (b.at("name") == name) out[b.at("nprocs").get<int>()] = b.at("groups");
  return out;
}

}  // namespace

TEST(PrestaCom, UnidirectionalThenBidirectionalOverSizesAndPairs) {
  const auto r = run_json(4, {"-o", "5", "-e", "128"}, "com");
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err << r.result.out;
  const auto& out = r.result.out;
  const auto uni = out.find("Unidirectional, 2 processes (1 pair)");
  const auto uni4 = out.find("Unidirectional, 4 processes (2 pairs)");
  const auto bi = out.find("Bidirectional, 2 processes (1 pair)");
  ASSERT_NE(uni, std::string::npos) << out;
  ASSERT_NE(uni4, std::string::npos);
  ASSERT_NE(bi, std::string::npos);
  EXPECT_LT(uni, uni4);
  EXPECT_LT(uni4, bi);  // the whole unidirectional iteration first (README)
  EXPECT_NE(out.find("Ticks"), std::string::npos);

  const auto& benchmarks = r.doc.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 4u);
  const double tick = wtick_us(r.doc);
  for (const auto& b : benchmarks) {
    const int processes = b.at("nprocs");
    const bool bidirectional = b.at("name") == "Bidirectional";
    EXPECT_EQ(b.at("groups").size(), static_cast<std::size_t>(processes / 2));
    const auto& rows = b.at("rows");
    ASSERT_EQ(rows.size(), 3u);  // 32, 64, 128
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& row = rows[i];
      ASSERT_TRUE(row.at("measured").get<bool>());
      EXPECT_EQ(row.at("bytes").get<int>(), 32 << i);
      const double t_max = row.at("t_max_us");
      const auto times = row.at("rank_times_us").get<std::vector<double>>();
      ASSERT_EQ(times.size(), static_cast<std::size_t>(processes));
      expect_close(*std::max_element(times.begin(), times.end()), t_max, "t_max is the longest");
      const double senders = bidirectional ? processes : processes / 2;
      const double volume = senders * 5 * row.at("bytes").get<double>();
      expect_close(value(row, "bandwidth"), volume / t_max, "bandwidth from the longest sample");
      expect_close(row.at("mbytes_per_sec"), volume / t_max * 1e6 / 1048576, "MiB/s");
      expect_close(value(row, "op_time_us"), t_max / 5, "operation time");
      expect_close(value(row, "wtime_ticks"), t_max / tick, "ticks");
    }
  }
  // The pairs: default partner (rank + size/2) % size.
  EXPECT_EQ(groups_by_count(r.doc, "Unidirectional")[4], json::parse("[[0,2],[1,3]]"));
  double best = 0;
  for (const auto& b : benchmarks)
    if (b.at("name") == "Unidirectional")
      for (const auto& row : b.at("rows")) best = std::max(best, value(row, "bandwidth"));
  for (const auto& s : r.doc.at("summary"))
    if (s.at("name") == "max_unidirectional_bandwidth") expect_close(s.at("value"), best, "max");
  // PRESTA's columns first, in its order: Test, Processes, size, Bandwidth, Op time.
  const auto& row = benchmarks[0].at("rows")[0];
  EXPECT_FALSE(printed_row(out, {"Unidirectional", "2", "32", fixed3(value(row, "bandwidth")),
                                 fixed3(value(row, "op_time_us")), "5"})
                   .empty())
      << out;
  expect_presta_lines(
      r, {"Max Unidirectional Bandwith", "Max  Bidirectional Bandwith"},
      {"Operations per measurement :        5", "Process pair allocation    :    block"});
}

// PRESTA's laten prints one table, a row per process count: 4 processes give 2 rows.
TEST(PrestaLaten, HalfTheRoundTripOfTheLongestPairInOneTable) {
  const auto r = run_json(4, {"presta", "laten", "-o", "20", "-t", "1"});
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err;
  const auto& out = r.result.out;
  ASSERT_EQ(r.doc.at("benchmarks").size(), 2u);
  EXPECT_EQ(count_of(out, "MPI Bidirectional latency test (Send/Recv)"), 1) << out;
  EXPECT_EQ(count_of(out, "Max Latency (us)"), 1) << out;
  for (const auto& b : r.doc.at("benchmarks")) {
    const auto& row = b.at("rows")[0];
    EXPECT_EQ(row.at("bytes"), 0);
    EXPECT_EQ(row.at("repetitions"), 20);
    expect_close(value(row, "latency_us"), row.at("t_max_us").get<double>() / 20 / 2, "latency");
    // Processes, Max Latency (us), then mpiscope's Ops.
    EXPECT_FALSE(
        printed_row(out, {b.at("nprocs").dump(), fixed3(value(row, "latency_us")), "20"}).empty())
        << out;
  }
  // The heading line starts with Processes, then Max Latency (us).
  const auto heading = out.find("Max Latency (us)");
  ASSERT_NE(heading, std::string::npos);
  const auto line_start = out.rfind('\n', heading) + 1;
  std::istringstream words(out.substr(line_start, heading - line_start));
  std::string first, second;
  words >> first >> second;
  EXPECT_EQ(first, "Processes");
  EXPECT_EQ(second, "");
  expect_presta_lines(
      r, {}, {"Operations per measurement :       20", "Processes per SMP          :        1"});
}

TEST(PrestaRma, PutAndGetInBothDirectionsPerEpoch) {
  const auto r = run_json(4, {"-o", "3", "-c", "2", "-e", "512", "-s", "4", "-n"}, "rma");
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err << r.result.out;
  const auto& benchmarks = r.doc.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 8u);  // 4 variants x 2 process counts
  std::vector<std::string> names;
  for (const auto& b : benchmarks) names.push_back(b.at("name"));
  EXPECT_EQ(names, (std::vector<std::string>{"Put Unidirectional", "Put Unidirectional",
                                             "Get Unidirectional", "Get Unidirectional",
                                             "Put Bidirectional", "Put Bidirectional",
                                             "Get Bidirectional", "Get Bidirectional"}));
  // PRESTA's best-bandwidth lines over Put and Get of each direction; each variant's best is
  // mpiscope's, in its own section after PRESTA's lines.
  double best_unidirectional = 0;
  for (const auto& b : benchmarks)
    if (b.at("parameters").at("direction") == "unidirectional")
      for (const auto& row : b.at("rows"))
        best_unidirectional = std::max(best_unidirectional, value(row, "bandwidth"));
  std::map<std::string, double> summary;
  for (const auto& s : r.doc.at("summary")) summary[s.at("name")] = s.at("value");
  expect_close(summary.at("max_unidirectional_bandwidth"), best_unidirectional, "max");
  EXPECT_GT(summary.at("max_get_bidirectional_bandwidth"), 0);
  expect_presta_lines(
      r, {"Max Unidirectional Bandwith", "Max  Bidirectional Bandwith"},
      {"Operations per epoch       :        3", "Epochs per measurement     :        2",
       "Barrier not included in measurement."});
  const auto further = r.result.out.find("mpiscope's further figures");
  ASSERT_NE(further, std::string::npos) << r.result.out;
  EXPECT_GT(r.result.out.find("max_put_unidirectional_bandwidth", further), further);
  EXPECT_GT(further, r.result.out.find("Ticks for minimum sample"));
  for (const auto& b : benchmarks) {
    EXPECT_EQ(b.at("parameters").at("barrier_in_sample"), "none");
    const int processes = b.at("nprocs");
    const bool bidirectional = b.at("parameters").at("direction") == "bidirectional";
    ASSERT_EQ(b.at("rows").size(), 3u);  // 32, 128, 512
    for (const auto& row : b.at("rows")) {
      ASSERT_TRUE(row.at("measured").get<bool>());
      const double t_max = row.at("t_max_us");
      const double initiators = bidirectional ? processes : processes / 2;
      expect_close(value(row, "bandwidth"),
                   initiators * 2 * 3 * row.at("bytes").get<double>() / t_max, "bandwidth");
      expect_close(value(row, "epoch_time_us"), t_max / 2, "epoch time");
      expect_close(value(row, "op_time_us"), t_max / 6, "op time");
    }
  }
}

TEST(PrestaRma, RefusesWhatTheMemoryFormulaSaysWouldPage) {
  const auto r = run_mpi(2, {"-o", "100000000", "-c", "1", "-e", "1073741824"}, "", 60, "rma");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(count_of(r.err, "error: "), 1) << r.err;
  EXPECT_NE(r.err.find("README's memory formula"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("Put Unidirectional"), std::string::npos);
}

TEST(PrestaAllred, OperationTimeIsTheDifferenceOfTheTwoMeasuredLoops) {
  const auto r = run_json(4, {"200", "10", "4"}, "allred");
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err;
  const auto& benchmarks = r.doc.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 2u);
  const auto compute = benchmarks[0].at("rows")[0].at("samples_us").at("values");
  const auto with_op = benchmarks[1].at("rows")[0].at("samples_us").at("values");
  ASSERT_EQ(compute.size(), 4u);
  ASSERT_EQ(with_op.size(), 4u);
  const auto sum = [](const json& v) {
    double s = 0;
    for (double x : v) s += x;
    return s;
  };
  std::map<std::string, double> summary;
  for (const auto& s : r.doc.at("summary")) summary[s.at("name")] = s.at("value");
  expect_close(summary.at("op_mean_us"), (sum(with_op) - sum(compute)) / (4 * 10), "op mean");
  expect_close(summary.at("mean_compute_loop_us"), sum(compute) / 4, "compute loop mean");
  expect_close(summary.at("mean_op_loop_us"), sum(with_op) / 4, "op loop mean");
  EXPECT_GT(summary.at("time_between_allreduce_us"), 0);
  // stddev/mean of each loop, recomputed from its samples (population deviation, as PRESTA).
  for (const auto& b : benchmarks) {
    const auto& row = b.at("rows")[0];
    const auto v = row.at("samples_us").at("values").get<std::vector<double>>();
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / 4;
    double var = 0;
    for (double x : v) var += (x - mean) * (x - mean);
    expect_close(value(row, "stddev_over_mean"), std::sqrt(var / 4) / mean, "stddev/mean");
    EXPECT_EQ(value(row, "samples"), 4);
  }
  // The README's fields as PRESTA prints them, with the JSON's values.
  const auto& out = r.result.out;
  for (const auto& [label, name] :
       {std::pair{"Op mean", "op_mean_us"},
        std::pair{"Time between Allreduce", "time_between_allreduce_us"},
        std::pair{"Mean Compute Loop Time", "mean_compute_loop_us"},
        std::pair{"Mean Op Loop Time", "mean_op_loop_us"}}) {
    char line[128];
    std::snprintf(line, sizeof line, "\n  %-27s: %11.3f us\n", label, summary.at(name));
    EXPECT_NE(out.find(line), std::string::npos) << line << out;
  }
  EXPECT_NE(out.find("\nMPI Allreduce test\n  for 4 MPI processes, message size 32 bytes,\n"
                     "  10 operations per sample, 4 samples\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("stddev/mean"), std::string::npos);
  EXPECT_EQ(out.find("op_mean_us"), std::string::npos) << "printed under PRESTA's name only";
}

TEST(PrestaGlobalop, FiveOperationsWithAndWithoutComputePhase) {
  const auto r =
      run_json(2, {"presta", "globalop", "--iterations", "50", "--compute-iterations", "100"});
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err;
  const auto& benchmarks = r.doc.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 11u);
  const std::vector<std::string> ops = {"MPI_Barrier", "MPI_Reduce", "MPI_Bcast", "MPI_Allreduce",
                                        "MPI_Reduce+MPI_Bcast"};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(benchmarks[i].at("name"), ops[i]);
    EXPECT_EQ(benchmarks[i].at("parameters").at("compute_phase"), "none");
    EXPECT_EQ(benchmarks[6 + i].at("name"), ops[i]);
    EXPECT_EQ(benchmarks[6 + i].at("parameters").at("compute_phase"), "100 iterations");
  }
  EXPECT_EQ(benchmarks[5].at("name"), "Compute only");
  const double compute_loop = benchmarks[5].at("rows")[0].at("t_max_us");
  for (const auto& b : benchmarks) {
    const auto& row = b.at("rows")[0];
    const double loop = row.at("t_max_us");
    EXPECT_EQ(row.at("repetitions"), 50);
    expect_close(value(row, "loop_time_us"), loop, "loop");
    expect_close(value(row, "time_per_iteration_us"), loop / 50, "per iteration");
    if (b.at("parameters").at("compute_phase") != "none" && b.at("name") != "Compute only")
      expect_close(value(row, "op_time_without_compute_us"), (loop - compute_loop) / 50,
                   "op time without the compute phase");
  }
  EXPECT_NE(r.result.out.find("Global-Op loops"), std::string::npos);
}

// README's allocation rules on 8 oversubscribed processes, 2 per "SMP".
TEST(PrestaPairs, BlockCyclicAndNearbyOnEightProcesses) {
  const auto cyclic = run_json(8, {"-o", "2", "-t", "2", "-p", "c", "-i"}, "laten");
  ASSERT_EQ(cyclic.result.exit_code, 0) << cyclic.result.err;
  auto g = groups_by_count(cyclic.doc, "Latency");
  ASSERT_EQ(g.size(), 2u);  // configuration 4: 4 processes (one per SMP), then 8
  EXPECT_EQ(g[4], json::parse("[[0,4],[2,6]]"));
  EXPECT_EQ(g[8], json::parse("[[0,4],[2,6],[1,5],[3,7]]"));
  EXPECT_NE(
      cyclic.result.out.find("Current pairs, cyclic allocation\n      0:    4\n      2:    6\n"),
      std::string::npos)
      << cyclic.result.out;

  const auto nearby = run_json(8, {"-o", "2", "-t", "2", "-r", "-i"}, "laten");
  ASSERT_EQ(nearby.result.exit_code, 0) << nearby.result.err;
  g = groups_by_count(nearby.doc, "Latency");
  ASSERT_EQ(g.size(), 2u);  // configuration 3: 2 x 2 processes, then two SMPs more
  EXPECT_EQ(g[4], json::parse("[[0,2],[1,3]]"));
  EXPECT_EQ(g[8], json::parse("[[0,2],[1,3],[4,6],[5,7]]"));
  EXPECT_NE(nearby.result.out.find("Current pairs, block allocation"), std::string::npos);

  const auto counts = write_file(temp_dir(), "counts", "# pairs to run\n6\n2\n");
  const auto file = run_json(8, {"-o", "2", "-f", counts}, "laten");
  ASSERT_EQ(file.result.exit_code, 0) << file.result.err;
  g = groups_by_count(file.doc, "Latency");
  EXPECT_EQ(g[6], json::parse("[[0,4],[1,5],[2,6]]"));
  EXPECT_EQ(g[2], json::parse("[[0,4]]"));
  EXPECT_EQ(file.doc.at("benchmarks")[0].at("nprocs"), 6);  // in the file's order
  // Every active rank reported, inactive ones not.
  EXPECT_EQ(file.doc.at("benchmarks")[1].at("rows")[0].at("rank_times_us").size(), 2u);
}

// ---- Accurate mode (--method accurate): repetitions until the median is known ----

namespace {

// Short accurate runs: a point stops after 0.2 s of repetitions at the latest.
std::vector<std::string> accurate(std::vector<std::string> args,
                                  const std::string& budget = "0.2") {
  args.insert(args.end(), {"--method", "accurate", "--budget", budget});
  return args;
}

double median_us(const json& row) {
  return row.at("accurate").at("median_us").get<double>();
}

// Every benchmark of an accurate run says so, and every row is consistent.
void expect_accurate_run(const Run& r) {
  const auto& settings = r.doc.at("run").at("settings");
  EXPECT_EQ(settings.at("method"), "accurate");
  EXPECT_EQ(settings.at("method_description").get<std::string>().rfind("accurate: ", 0), 0u);
  EXPECT_NE(r.result.out.find("  Method: accurate: "), std::string::npos) << r.result.out;
  for (const auto& b : r.doc.at("benchmarks")) {
    EXPECT_EQ(b.at("method"), "accurate");
    for (const auto& row : b.at("rows"))
      expect_consistent_accurate_row(row, b.at("name").get<std::string>() + " " +
                                              std::to_string(b.at("nprocs").get<int>()) +
                                              " processes, " + row.at("bytes").dump() + " bytes");
  }
}

}  // namespace

TEST(PrestaAccurate, ComFiguresComeFromTheMedianRepetition) {
  const auto r = run_json(2, accurate({"presta", "com", "-o", "5", "-e", "256", "-s", "8"}));
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err << r.result.out;
  expect_accurate_run(r);
  const auto& benchmarks = r.doc.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 2u);  // unidirectional, bidirectional; 2 processes
  const double tick = wtick_us(r.doc);
  for (const auto& b : benchmarks) {
    const bool bidirectional = b.at("name") == "Bidirectional";
    ASSERT_EQ(b.at("rows").size(), 2u);  // 32, 256
    for (const auto& row : b.at("rows")) {
      const double t = median_us(row);
      const double volume = (bidirectional ? 2 : 1) * 5 * row.at("bytes").get<double>();
      expect_close(value(row, "bandwidth"), volume / t, "bandwidth from the median");
      expect_close(row.at("mbytes_per_sec"), volume / t * 1e6 / 1048576, "MiB/s from the median");
      expect_close(value(row, "op_time_us"), t / 5, "operation time from the median");
      expect_close(value(row, "wtime_ticks"), t / tick, "ticks of the median");
      // The table prints PRESTA's figures, then the sample's operations, the counts, the median
      // and its interval.
      const auto& a = row.at("accurate");
      const std::string line = printed_row(
          r.result.out, {b.at("name").get<std::string>(), "2", row.at("bytes").dump(),
                         fixed3(value(row, "bandwidth")), fixed3(value(row, "op_time_us")), "5",
                         a.at("valid").dump(),
                         std::to_string(a.at("attempted").get<int>() - a.at("valid").get<int>()),
                         fixed3(t), fixed3(a.at("ci95_low_us")), fixed3(a.at("ci95_high_us"))});
      EXPECT_FALSE(line.empty()) << r.result.out;
    }
  }
  EXPECT_NE(r.result.out.find("t_med (us)"), std::string::npos);
  EXPECT_NE(r.result.out.find("ci95 low (us)"), std::string::npos);
  // The run's figures come from the medians too.
  double best = 0;
  for (const auto& row : benchmarks[0].at("rows")) best = std::max(best, value(row, "bandwidth"));
  for (const auto& s : r.doc.at("summary"))
    if (s.at("name") == "max_unidirectional_bandwidth") expect_close(s.at("value"), best, "max");
}

TEST(PrestaAccurate, RmaFiguresComeFromTheMedianRepetition) {
  const auto r = run_json(2, accurate({"presta", "rma", "-o", "3", "-c", "2", "-e", "64", "-n",
                                       "--sync", "own-barrier"},
                                      "0.1"));
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err << r.result.out;
  expect_accurate_run(r);
  const auto& benchmarks = r.doc.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 4u);  // Put/Get, uni/bidirectional
  for (const auto& b : benchmarks) {
    const bool bidirectional = b.at("parameters").at("direction") == "bidirectional";
    ASSERT_EQ(b.at("rows").size(), 2u);  // 32, 64
    for (const auto& row : b.at("rows")) {
      const double t = median_us(row);
      expect_close(value(row, "bandwidth"),
                   (bidirectional ? 2 : 1) * 2 * 3 * row.at("bytes").get<double>() / t,
                   "bandwidth from the median");
      expect_close(value(row, "epoch_time_us"), t / 2, "epoch time");
      EXPECT_EQ(row.at("accurate").at("sync"), "own-barrier");
      expect_close(value(row, "op_time_us"), t / 6, "op time");
    }
  }
}

// 4 processes: two steps (2 and 4 active), each a point of repetitions over its active ranks.
TEST(PrestaAccurate, LatenOnEveryStepOfFourProcesses) {
  const auto r = run_json(4, accurate({"presta", "laten", "-o", "10"}));
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err << r.result.out;
  expect_accurate_run(r);
  const auto g = groups_by_count(r.doc, "Latency");
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g.at(4), json::parse("[[0,2],[1,3]]"));
  for (const auto& b : r.doc.at("benchmarks")) {
    const auto& row = b.at("rows")[0];
    expect_close(value(row, "latency_us"), median_us(row) / 10 / 2, "latency from the median");
    EXPECT_FALSE(printed_row(r.result.out, {std::to_string(b.at("nprocs").get<int>()),
                                            fixed3(value(row, "latency_us")), "10",
                                            row.at("accurate").at("valid").dump()})
                     .empty())
        << r.result.out;
  }
}

TEST(PrestaAccurate, AllredStatisticsComeFromTheRepetitions) {
  const auto r = run_json(2, accurate({"presta", "allred", "50", "10"}));
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err << r.result.out;
  expect_accurate_run(r);
  EXPECT_EQ(r.doc.at("run").at("settings").at("samples"),
            "decided by the stopping rule (accurate mode)");
  const auto& benchmarks = r.doc.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 2u);
  std::vector<double> medians;
  for (const auto& b : benchmarks) {
    const auto& row = b.at("rows")[0];
    // The statistics PRESTA prints, over the valid repetitions (every one in the JSON).
    const auto v = row.at("samples_us").at("values").get<std::vector<double>>();
    ASSERT_EQ(v.size(), row.at("accurate").at("valid").get<std::size_t>());
    const double n = static_cast<double>(v.size());
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
    double var = 0;
    for (double x : v) var += (x - mean) * (x - mean);
    expect_close(value(row, "mean_us"), mean, "mean over the repetitions");
    EXPECT_NEAR(value(row, "stddev_us"), std::sqrt(var / n), 1e-6 * mean) << "stddev";
    EXPECT_EQ(value(row, "samples"), n);
    expect_close(value(row, "ticks_per_loop"), median_us(row) / wtick_us(r.doc), "ticks");
    medians.push_back(median_us(row));
    EXPECT_NE(r.result.out.find(fixed3(median_us(row)) + " us (median loop)"), std::string::npos)
        << r.result.out;
  }
  std::map<std::string, double> summary;
  for (const auto& s : r.doc.at("summary")) summary[s.at("name")] = s.at("value");
  expect_close(summary.at("median_compute_loop_us"), medians[0], "compute loop");
  expect_close(summary.at("median_op_loop_us"), medians[1], "op loop");
  expect_close(summary.at("op_time_us"), (medians[1] - medians[0]) / 10, "op time from medians");
  EXPECT_EQ(summary.count("op_mean_us"), 0u) << "classic mode's figure";
  // PRESTA's closing block, its figures labelled as medians.
  for (const char* label :
       {"\n  Time between Allreduce     : ", "\n  Median Op Loop Time        : ",
        "\n  Op time from the medians   : "})
    EXPECT_NE(r.result.out.find(label), std::string::npos) << label << r.result.out;
  EXPECT_EQ(r.result.out.find("Op mean"), std::string::npos) << "not a mean in accurate mode";
}

TEST(PrestaAccurate, GlobalopLoopTimesAreMedians) {
  const auto r = run_json(2, accurate({"presta", "globalop", "--iterations", "20",
                                       "--compute-iterations", "50", "--sync", "mpi-barrier"},
                                      "0.1"));
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err << r.result.out;
  expect_accurate_run(r);
  const auto& benchmarks = r.doc.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 11u);
  ASSERT_EQ(benchmarks[5].at("name"), "Compute only");
  const double compute_loop = median_us(benchmarks[5].at("rows")[0]);
  for (const auto& b : benchmarks) {
    const auto& row = b.at("rows")[0];
    const double loop = median_us(row);
    expect_close(value(row, "loop_time_us"), loop, "loop");
    expect_close(value(row, "time_per_iteration_us"), loop / 20, "per iteration");
    EXPECT_EQ(row.at("accurate").at("sync"), "mpi-barrier");
    if (b.at("parameters").at("compute_phase") != "none" && b.at("name") != "Compute only")
      expect_close(value(row, "op_time_without_compute_us"), (loop - compute_loop) / 20,
                   "op time without the compute phase");
    const std::string name = b.at("name");
    const auto& a = row.at("accurate");
    EXPECT_FALSE(
        printed_row(r.result.out, {name, b.at("parameters").at("compute_phase").get<std::string>(),
                                   "20", a.at("valid").dump()})
            .empty())
        << name << r.result.out;
  }
  EXPECT_NE(r.result.out.find("Loop t_med (us)"), std::string::npos) << r.result.out;
}

// The project's PMPI library delays every MPI_Allreduce by 400 us: every repetition of the
// compute+Allreduce loop holds 5 of them, so its median is at least 2 ms, and the operation time
// derived from the medians at least the delay.
TEST(PrestaAccurate, PlantedAllreduceDelayIsInTheMedianLoop) {
  const auto dir = temp_dir();
  const auto path = dir + "/r.json";
  const auto r = run_mpi(2, accurate({"presta", "allred", "100", "5", "--json", path}),
                         "MPISCOPE_DELAY=MPI_Allreduce=400", 90, with_pmpi_library(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const json doc = json::parse(read_file(path));
  const auto& op_loop = doc.at("benchmarks")[1];
  ASSERT_EQ(op_loop.at("name"), "Compute+Allreduce loop");
  const auto& row = op_loop.at("rows")[0];
  expect_consistent_accurate_row(row, "compute+Allreduce loop");
  EXPECT_GE(median_us(row), 5 * 400.0);
  EXPECT_GE(row.at("accurate").at("ci95_low_us").get<double>(), 5 * 400.0);
  EXPECT_LT(median_us(doc.at("benchmarks")[0].at("rows")[0]), 400.0) << "no Allreduce there";
  int found = 0;
  for (const auto& s : doc.at("summary")) {
    if (s.at("name") != "op_time_us") continue;
    ++found;
    EXPECT_GE(s.at("value").get<double>(), 400.0 - 1e-6);
  }
  EXPECT_EQ(found, 1);
}

TEST(PrestaAccurate, HelpListsTheMethodOptions) {
  // The suite's help, and a test's (every test adds the same options).
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"presta", "--help"}, {"presta", "allred", "--help"}}) {
    const auto r = run_mpi(2, args, "", 60);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const char* option : {"--method", "--sync", "--target-ci", "--min-reps", "--budget"})
      EXPECT_NE(r.out.find(option), std::string::npos) << args[1] << " " << option << r.out;
  }
}

// On a terminal (here the pseudo-terminal of script(1)) a long point shows the progress line: the
// point, how many of how many, the time so far and, once a point is done, the estimate of the time
// left; the tables stay whole. MPI_Send is slowed by the PMPI library (3 ms a call, 500 calls)
// so that each unidirectional point lasts over a second. Without a terminal nothing is shown.
TEST(PrestaProgress, ATerminalShowsThePointAndTheTimeLeft) {
  if (std::system("command -v script > /dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1)";
  if (!is_openmpi())
    GTEST_SKIP() << "MPICH's Hydra starts the ranks without the terminal (a session of their own, "
                    "stderr a pipe): mpiscope shows no progress there (docs/results-db.md)";
  const auto dir = temp_dir();
  const std::string args = " presta com -o 500 -b 1024 -e 2048 --no-db";
  const std::string launch = mpiexec_command() + " -np 2 " + with_pmpi_library(dir) + args;
  const auto r = run_command(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=detect_leaks=0 "
      "MPISCOPE_DELAY=MPI_Send=3000 timeout -k 5 60 script -qfec " +
          quote(launch) + " /dev/null",
      true);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::string text = r.out;
  std::replace(text.begin(), text.end(), '\r', '\n');
  EXPECT_GE(count_of(text, "presta com: com Unidirectional, 2 processes, 1024 bytes | point 1/4"),
            1)
      << text;
  EXPECT_TRUE(std::regex_search(
      text, std::regex("com Unidirectional, 2 processes, 2048 bytes \\| point 2/4 \\| elapsed "
                       "0:\\d\\d \\| ~\\d+:\\d\\d left")))
      << text;
  EXPECT_EQ(count_of(text, "Unidirectional          2"), 2) << text;  // both rows, whole
  const auto quiet =
      run_mpi(2, {"presta", "com", "-o", "500", "-b", "2048", "-e", "2048", "--no-db"},
              "MPISCOPE_DELAY=MPI_Send=3000", 60, with_pmpi_library(dir));
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(count_of(quiet.err + quiet.out, "point 1/2"), 0) << quiet.err;
}

TEST(PrestaOutputs, CsvAndTimeout) {
  const auto csv = temp_dir() + "/r.csv";
  const auto r = run_mpi(2, {"-o", "3", "-e", "64", "--csv", csv}, "", 60, "com");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The long layout: one t_max_us line per row.
  const auto lines = lines_of(read_file(csv));
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& l) {
                            return l.find(",\"presta-com\",") != std::string::npos &&
                                   l.find(",\"t_max_us\",") != std::string::npos;
                          }),
            4);  // 2 sizes x 2 directions, 1 process count
  const auto slow =
      run_mpi(2, {"presta", "globalop", "--iterations", "2000000000", "--timeout", "1"}, "", 60);
  EXPECT_EQ(slow.exit_code, 4) << slow.err;
}

namespace {
struct BadInput {
  const char* label;
  const char* program;
  std::vector<std::string> args;
  const char* message;
};
std::ostream& operator<<(std::ostream& os, const BadInput& b) {
  return os << b.label;
}
class PrestaBadInput : public ::testing::TestWithParam<BadInput> {};
}  // namespace

TEST_P(PrestaBadInput, OneMessageFromRankZeroAndExitTwo) {
  const auto& p = GetParam();
  const auto r = run_mpi(3, p.args, "", 60, p.program);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_LT(r.seconds, 30) << "a rank was left waiting";
  EXPECT_EQ(count_of(r.err, "error: "), 1) << r.err;
  EXPECT_NE(r.err.find(p.message), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("processes ("), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Presta, PrestaBadInput,
    ::testing::Values(
        BadInput{"ComWithoutO", "com", {}, "com requires -o"},
        BadInput{"LatenWithoutO", "laten", {"-i"}, "laten requires -o"},
        BadInput{"RmaWithoutC", "rma", {"-o", "4"}, "rma requires -c"},
        BadInput{"AllredTwoArguments", "allred", {"10", "10"}, "allred takes 3 arguments"},
        BadInput{"UnknownOption", "com", {"-o", "4", "-x"}, "-x"},
        BadInput{"MalformedValue", "com", {"-o", "four"}, "four"},
        BadInput{"BadAllocation", "com", {"-o", "4", "-p", "z"}, "-p takes b (block) or c"},
        BadInput{"CyclicWithoutT", "laten", {"-o", "4", "-p", "c"}, "needs the processes per SMP"},
        BadInput{"CyclicTooFewProcesses",
                 "laten",
                 {"-o", "4", "-p", "c", "-t", "1"},
                 "more than 2 x 1 processes"},
        BadInput{"MissingCountFile", "laten", {"-o", "4", "-f", "/nonexistent/c"}, "cannot read"},
        BadInput{"NoTest", "mpiscope", {"presta"}, "name a PRESTA test"},
        BadInput{"UnknownTest", "mpiscope", {"presta", "pingpong"}, "unknown PRESTA test"},
        BadInput{"UnwritableJson",
                 "com",
                 {"-o", "4", "--json", "/nonexistent-dir/r.json"},
                 "cannot write '/nonexistent-dir/r.json'"},
        BadInput{"UnknownMethod", "com", {"-o", "4", "--method", "foo"}, "--method"},
        BadInput{"TooFewMinReps",
                 "laten",
                 {"-o", "4", "--method", "accurate", "--min-reps", "3"},
                 "--min-reps must be at least 6"},
        BadInput{"UnknownSync",
                 "rma",
                 {"-o", "4", "-c", "2", "--method", "accurate", "--sync", "foo"},
                 "--sync"},
        BadInput{"AllredSamplesInAccurateMode",
                 "allred",
                 {"10", "10", "4", "--method", "accurate"},
                 "the stopping rule (--min-reps, --max-reps, --budget, --target-ci) replaces"}),
    [](const auto& test) { return std::string(test.param.label); });
