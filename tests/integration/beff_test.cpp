// b_eff end to end on 2 to 4 processes with short loops and a small L_max: the protocol is
// complete, b_eff and the Table 1 columns recomputed from the protocol equal the printed ones,
// the random patterns are reproducible from the printed seed, and bad input is one clear error;
// in accurate mode the bandwidths come from the median iteration and b_eff from them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "accurate_checks.hpp"
#include "harness.hpp"

using namespace harness;
using nlohmann::json;

namespace {

// L_max = 1 MiB / 128 = 8 kB; 0.1 ms loops; two random patterns: a few seconds per run.
// Two repetitions: MPICH oversubscribed on a loaded 2-core machine is slow per collective.
const std::vector<std::string> kShort = {"--memory-per-process", "1", "--loop-time",   "0.1",
                                         "--random-patterns",    "2", "--repetitions", "2"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

double value_of(const json& row, const std::string& name) {
  return row.at("values").at(name).at("value").get<double>();
}

std::map<std::string, double> summary_of(const json& doc) {
  std::map<std::string, double> s;
  for (const auto& v : doc.at("summary")) s[v.at("name").get<std::string>()] = v.at("value");
  return s;
}

double logavg(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += std::log(x);
  return std::exp(sum / static_cast<double>(v.size()));
}

// The printed figure "  name = value unit" of the text summary.
double printed(const std::string& out, const std::string& name) {
  std::smatch m;
  const std::regex re("\n  " + name + " += ([0-9.]+) ");
  if (!std::regex_search(out, m, re)) return -1;
  return std::stod(m[1]);
}

void expect_relative(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-9 * std::fabs(want)) << what;
}

// MPICH (ch4:ucx) oversubscribed on this 2-core machine spends tens of milliseconds in every
// collective once 3 or more ranks share the cores: a b_eff run on 3-4 ranks takes minutes
// there. The runs that measure use 4 (3) ranks with Open MPI and 2 with MPICH.
int ranks(int wanted) {
  return is_openmpi() ? wanted : 2;
}

}  // namespace

TEST(Beff, RecomputedBeffEqualsPrinted) {
  const auto dir = temp_dir();
  const auto path = dir + "/beff.json";
  const auto r = run_mpi(
      ranks(4), with(with({"beff"}, kShort), {"--seed", "42", "--rmax", "250", "--json", path}), "",
      300);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const json doc = json::parse(read_file(path));
  EXPECT_TRUE(doc.at("complete").get<bool>());
  const auto& settings = doc.at("run").at("settings");
  EXPECT_EQ(settings.at("L_max_bytes"), "8192");
  EXPECT_EQ(settings.at("message_lengths"),
            "1 2 4 8 16 32 64 128 256 512 1024 2048 4096 4467 4871 5312 5793 6317 6889 7512 8192");
  EXPECT_NE(r.out.find("# seed: 42 "), std::string::npos);
  EXPECT_NE(r.out.find("# L_max: 8192 bytes"), std::string::npos);

  // Protocol: every pattern with its methods, 21 lengths each; recompute every bandwidth.
  std::map<std::string, std::string> kind;
  std::map<std::string, std::vector<double>> best;  // pattern -> per length, max of methods
  std::map<std::string, int> methods;
  for (const auto& b : doc.at("benchmarks")) {
    const auto& par = b.at("parameters");
    const std::string pattern = par.at("pattern");
    kind[pattern] = par.at("kind");
    ++methods[pattern];
    const int messages = std::stoi(par.at("messages_per_iteration").get<std::string>());
    const auto& rows = b.at("rows");
    ASSERT_EQ(rows.size(), 21u) << pattern;
    auto& best_of = best[pattern];
    best_of.resize(21, 0.0);
    for (std::size_t li = 0; li < 21; ++li) {
      const auto& row = rows[li];
      const auto bytes = row.at("bytes").get<double>();
      double top = 0;
      int top_loops = 0;
      EXPECT_FALSE(row.at("values").contains("bandwidth_rep3"));
      for (int rep = 1; rep <= 2; ++rep) {
        const std::string n = "_rep" + std::to_string(rep);
        const double loops = value_of(row, "looplength" + n);
        EXPECT_GE(loops, 1);
        EXPECT_LE(loops, 300);
        const double seconds = value_of(row, "loop_time" + n) * 1e-3;
        const double bw = bytes * messages * loops / seconds / 1e6;
        expect_relative(value_of(row, "bandwidth" + n), bw, pattern + n);
        if (bw > top) {
          top = bw;
          top_loops = static_cast<int>(loops);
        }
      }
      expect_relative(value_of(row, "bandwidth"), top, pattern + " best repetition");
      EXPECT_EQ(row.at("repetitions").get<int>(), top_loops);
      best_of[li] = std::max(best_of[li], top);
    }
  }
  // 4 processes: 2x2 and 2x2x1 grids (x, y, all each); 2: 2x1 and 2x1x1 (x, all each).
  EXPECT_EQ(methods.size(), 6u + 2u + (ranks(4) == 4 ? 10u : 8u));
  for (const auto& [pattern, n] : methods) EXPECT_EQ(n, pattern == "ping-pong" ? 1 : 3) << pattern;

  // b_eff: logavg(logavg over rings, logavg over random) of the averages over the 21 lengths.
  std::vector<double> ring_avg, random_avg, ring_lmax, random_lmax;
  for (const auto& [pattern, b] : best) {
    double sum = 0;
    for (double x : b) sum += x;
    if (kind[pattern] == "ring") {
      ring_avg.push_back(sum / 21);
      ring_lmax.push_back(b.back());
    } else if (kind[pattern] == "random") {
      random_avg.push_back(sum / 21);
      random_lmax.push_back(b.back());
    }
  }
  ASSERT_EQ(ring_avg.size(), 6u);
  ASSERT_EQ(random_avg.size(), 2u);
  const double b_eff = std::sqrt(logavg(ring_avg) * logavg(random_avg));
  const double at_lmax = std::sqrt(logavg(ring_lmax) * logavg(random_lmax));
  auto s = summary_of(doc);
  expect_relative(s.at("b_eff"), b_eff, "b_eff");
  const int n = ranks(4);
  expect_relative(s.at("b_eff_per_process"), b_eff / n, "b_eff per process");
  expect_relative(s.at("b_eff_at_lmax"), at_lmax, "b_eff at L_max");
  expect_relative(s.at("b_eff_per_process_at_lmax"), at_lmax / n, "per process at L_max");
  expect_relative(s.at("ring_per_process_at_lmax"), logavg(ring_lmax) / n, "rings at L_max");
  expect_relative(s.at("ping_pong_bandwidth_at_lmax"), best["ping-pong"].back(), "ping-pong");
  EXPECT_EQ(s.at("L_max"), 8192);
  // The text shows the same numbers (3 decimals).
  EXPECT_NEAR(printed(r.out, "b_eff"), b_eff, 6e-4) << r.out;
  EXPECT_NEAR(printed(r.out, "b_eff_at_lmax"), at_lmax, 6e-4);
  EXPECT_NE(r.out.find("# random-2 (random): ring over order"), std::string::npos);

  // The paper's balance factor: b_eff (1e6 bytes/s) over R_max (--rmax 250 Gflop/s).
  expect_relative(s.at("balance_factor"), b_eff * 1e6 / 250e9, "balance factor");
  EXPECT_EQ(s.at("R_max"), 250);
  EXPECT_NEAR(printed(r.out, "balance_factor"), b_eff * 1e6 / 250e9, 6e-7) << r.out;
  // b_eff.c's protocol summary: the log_avg rows at every length, the latencies (1 byte over
  // the per-process bandwidth at 1 byte), each pattern's average, L_max value and latency.
  for (std::size_t li = 0; li < 21; ++li) {
    std::vector<double> rings, randoms;
    for (const auto& [pattern, b] : best) {
      if (kind[pattern] == "ring") rings.push_back(b[li]);
      if (kind[pattern] == "random") randoms.push_back(b[li]);
    }
    const std::string at = "/" + doc.at("benchmarks")[0].at("rows")[li].at("bytes").dump();
    ASSERT_EQ(s.count("b_eff_at" + at), 1u) << at;
    expect_relative(s.at("ring_logavg_at" + at), logavg(rings), "rings" + at);
    expect_relative(s.at("random_logavg_at" + at), logavg(randoms), "random" + at);
    expect_relative(s.at("b_eff_at" + at), std::sqrt(logavg(rings) * logavg(randoms)),
                    "b_eff" + at);
  }
  expect_relative(s.at("latency"), n / s.at("b_eff_at/1"), "latency");
  expect_relative(s.at("ring_latency"), n / s.at("ring_logavg_at/1"), "ring latency");
  // Ping-pong: 2 messages per iteration in 2 steps: one step is one message's time.
  expect_relative(s.at("ping_pong_latency"), 1 / best["ping-pong"][0], "ping-pong latency");
  expect_relative(s.at("latency/ping-pong"), 1 / best["ping-pong"][0], "ping-pong's latency");
  for (const auto& [pattern, b] : best) {
    double sum = 0;
    for (double x : b) sum += x;
    expect_relative(s.at("average/" + pattern), sum / 21, pattern + " average");
    expect_relative(s.at("at_lmax/" + pattern), b.back(), pattern + " at L_max");
    EXPECT_GT(s.at("latency/" + pattern), 0) << pattern;
  }
  // The printed protocol summary: a row per pattern and the three log_avg rows (the table's
  // cells are right-aligned).
  const auto lines = lines_of(r.out);
  for (const std::string row : {"ring-1 ", "random-2 ", "ping-pong ", "log_avg of all rings ",
                                "log_avg of all random ", "log_avg(ring,random) "})
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(),
                            [&](const std::string& l) {
                              const auto text = l.find_first_not_of(' ');
                              return text != std::string::npos &&
                                     l.compare(text, row.size(), row) == 0;
                            }))
        << row << r.out;
  EXPECT_NE(r.out.find("latency us"), std::string::npos);
}

class BeffSizes : public ::testing::TestWithParam<int> {};

TEST_P(BeffSizes, AliasPrintsProtocolAndSummary) {
  const int np = GetParam();
  if (np > ranks(np)) GTEST_SKIP() << "3 ranks take minutes with MPICH on this machine";
  const auto dir = temp_dir();
  const auto csv = dir + "/beff.csv";
  const auto r = run_mpi(np, with(kShort, {"--csv", csv}), "", 300, "b_eff");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // Ring pattern 1 on 2 or 3 processes is a single ring; ping-pong exists at any size.
  EXPECT_NE(r.out.find("# ring-1 (ring): standard size 2: rings 1*" + std::to_string(np)),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("# ping-pong (analysis): ranks 0 and 1; 2 processes, 2 messages"),
            std::string::npos);
  EXPECT_GT(printed(r.out, "b_eff"), 0);
  EXPECT_EQ(printed(r.out, "processes"), np);
  EXPECT_NE(r.out.find("# seed: "), std::string::npos);
  // CSV: one line per length for every pattern and method.
  const auto text = read_file(csv);
  // CSV (long layout): one t_max_us line per length for every pattern and method, the pattern
  // and method as columns, the summary figures as lines of their own.
  auto lines_with = [&](const std::string& a, const std::string& b) {
    const auto lines = lines_of(text);
    return std::count_if(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.find(a) != std::string::npos && l.find(b) != std::string::npos;
    });
  };
  EXPECT_EQ(lines_with(",\"ring-6\",", ",\"t_max_us\","), 63);
  EXPECT_EQ(lines_with(",\"ping-pong\",", ",\"t_max_us\","), 21);
  EXPECT_EQ(lines_with(",\"b_eff\",", "MB/s"), 1);
}

INSTANTIATE_TEST_SUITE_P(Beff, BeffSizes, ::testing::Values(2, 3));

TEST(Beff, PrintedSeedReproducesTheRandomPatterns) {
  const auto dir = temp_dir();
  const std::vector<std::string> kSeedRun = {
      "beff", "--memory-per-process", "1", "--loop-time", "0.1", "--repetitions",
      "1",    "--random-patterns",    "3"};
  auto layouts = [](const json& doc) {
    std::vector<std::string> out;
    for (const auto& b : doc.at("benchmarks"))
      if (b.at("parameters").at("kind") == "random") out.push_back(b.at("parameters").at("layout"));
    return out;
  };
  // 3 processes: 6 possible orders, so equal layouts by chance are unlikely over 3 patterns.
  const auto first = run_mpi(ranks(3), with(kSeedRun, {"--json", dir + "/a.json"}), "", 300);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const json a = json::parse(read_file(dir + "/a.json"));
  std::string seed = a.at("run").at("settings").at("seed");
  seed = seed.substr(0, seed.find(' '));
  const auto second =
      run_mpi(ranks(3), with(kSeedRun, {"--seed", seed, "--json", dir + "/b.json"}), "", 300);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const json b = json::parse(read_file(dir + "/b.json"));
  EXPECT_EQ(layouts(a), layouts(b));
  EXPECT_EQ(layouts(a).size(), 9u);  // 3 random patterns x 3 methods
}

// ---- Accurate mode (--method accurate): each pattern, length and method one point ----

namespace {

// L_max = 8 kB, two random patterns, and short points.
std::vector<std::string> accurate_beff(const std::vector<std::string>& more) {
  return with({"beff", "--memory-per-process", "1", "--random-patterns", "2", "--seed", "11",
               "--method", "accurate"},
              more);
}

// Every row consistent and its bandwidth that of the median iteration; b_eff and the Table 1
// columns recomputed from those bandwidths; the text says which method measured.
void expect_accurate_beff(const Result& r, const json& doc, int n, int min_reps) {
  EXPECT_TRUE(doc.at("complete").get<bool>());
  const auto& settings = doc.at("run").at("settings");
  EXPECT_EQ(settings.at("method"), "accurate");
  EXPECT_EQ(settings.at("repetitions"), "decided by the stopping rule (accurate mode)");
  EXPECT_NE(r.out.find("# method: accurate: "), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("Sendrecv MB/s +\\+-ci% +reps +inv"))) << r.out;
  std::map<std::string, std::string> kind;
  std::map<std::string, std::vector<double>> best;  // pattern -> per length, max of methods
  for (const auto& b : doc.at("benchmarks")) {
    EXPECT_EQ(b.at("method"), "accurate");
    const auto& par = b.at("parameters");
    const std::string pattern = par.at("pattern");
    kind[pattern] = par.at("kind");
    const int messages = std::stoi(par.at("messages_per_iteration").get<std::string>());
    const auto& rows = b.at("rows");
    EXPECT_EQ(rows.size(), 21u) << pattern;
    auto& best_of = best[pattern];
    best_of.resize(21, 0.0);
    for (std::size_t li = 0; li < rows.size() && li < 21; ++li) {
      const auto& row = rows[li];
      const std::string where =
          pattern + " " + par.at("method").get<std::string>() + " " + row.at("bytes").dump();
      expect_consistent_accurate_row(row, where, min_reps);
      const double median_s = row.at("accurate").at("median_us").get<double>() * 1e-6;
      const double bw = row.at("bytes").get<double>() * messages / median_s / 1e6;
      expect_relative(value_of(row, "bandwidth"), bw, where + ": bandwidth of the median");
      EXPECT_FALSE(row.at("values").contains("bandwidth_rep1")) << where;
      best_of[li] = std::max(best_of[li], bw);
    }
  }
  std::vector<double> ring_avg, random_avg, ring_lmax, random_lmax;
  for (const auto& [pattern, b] : best) {
    double sum = 0;
    for (double x : b) sum += x;
    auto& avg = kind[pattern] == "ring" ? ring_avg : random_avg;
    auto& lmax = kind[pattern] == "ring" ? ring_lmax : random_lmax;
    if (kind[pattern] == "analysis") continue;
    avg.push_back(sum / 21);
    lmax.push_back(b.back());
  }
  ASSERT_EQ(ring_avg.size(), 6u);
  ASSERT_EQ(random_avg.size(), 2u);
  const double b_eff = std::sqrt(logavg(ring_avg) * logavg(random_avg));
  const auto s = summary_of(doc);
  expect_relative(s.at("b_eff"), b_eff, "b_eff from the medians");
  expect_relative(s.at("b_eff_per_process"), b_eff / n, "b_eff per process");
  expect_relative(s.at("b_eff_at_lmax"), std::sqrt(logavg(ring_lmax) * logavg(random_lmax)),
                  "b_eff at L_max");
  expect_relative(s.at("ping_pong_bandwidth_at_lmax"), best["ping-pong"].back(), "ping-pong");
  EXPECT_NEAR(printed(r.out, "b_eff"), b_eff, 6e-4) << r.out;
}

}  // namespace

// About 1000 points (16 patterns, 21 lengths, 3 methods): barrier-started repetitions and 20 ms
// per point at most keep the run to seconds. The window scheme's per-batch start-up and its
// invalid repetitions on a loaded machine would make it long, and a point could end by its
// budget before its first valid repetition (docs/beff.md); the PRESTA tests cover windows.
TEST(BeffAccurate, BandwidthOfTheMedianIterationAndBeffFromIt) {
  const auto path = temp_dir() + "/beff.json";
  const auto r = run_mpi(
      2, accurate_beff({"--sync", "mpi-barrier", "--budget", "0.02", "--json", path}), "", 300);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const json doc = json::parse(read_file(path));
  expect_accurate_beff(r, doc, 2, 20);
  for (const auto& b : doc.at("benchmarks"))
    for (const auto& row : b.at("rows")) {
      EXPECT_EQ(row.at("accurate").at("sync"), "mpi-barrier");
      EXPECT_EQ(row.at("accurate").at("time_definition"), "max-local");
    }
}

// 4 processes (MPICH: 2, see ranks()): patterns with processes outside them, and rings of 2
// and 4; a point stops after at most 12 repetitions.
TEST(BeffAccurate, FourProcessesEveryPatternFromItsMedians) {
  const auto path = temp_dir() + "/beff.json";
  const int n = ranks(4);
  const auto r = run_mpi(n,
                         accurate_beff({"--min-reps", "6", "--max-reps", "12", "--budget", "0.02",
                                        "--sync", "own-barrier", "--json", path}),
                         "", 300);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const json doc = json::parse(read_file(path));
  expect_accurate_beff(r, doc, n, 6);
  for (const auto& b : doc.at("benchmarks"))
    for (const auto& row : b.at("rows")) {
      EXPECT_EQ(row.at("accurate").at("sync"), "own-barrier");
      EXPECT_LE(row.at("accurate").at("attempted").get<int>(), 12);
    }
}

TEST(BeffAccurate, HelpListsTheMethodOptions) {
  const auto r = run_mpi(2, {"beff", "--help"}, "", 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* option :
       {"--method", "--sync", "--time-def", "--target-ci", "--min-reps", "--max-reps", "--budget"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option << r.out;
}

struct BeffBadInput {
  const char* label;
  int np;
  std::vector<std::string> args;
  const char* message;
};

std::ostream& operator<<(std::ostream& os, const BeffBadInput& b) {
  return os << b.label;
}

class BeffRejects : public ::testing::TestWithParam<BeffBadInput> {};

TEST_P(BeffRejects, OneMessageFromRankZeroAndExitTwo) {
  const auto& c = GetParam();
  const auto r = run_mpi(c.np, with({"beff"}, c.args), "", 60);
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_LT(r.seconds, 30) << "a rank was left waiting";
  EXPECT_EQ(count_of(r.err, "error: "), 1) << r.err;
  EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("# ring-1"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Beff, BeffRejects,
    ::testing::Values(
        BeffBadInput{"UnknownOption", 2, {"--lmax", "5"}, "--lmax"},
        BeffBadInput{"MemoryTooSmall", 2, {"--memory-per-process", "0.1"}, "--memory-per-process"},
        BeffBadInput{
            "MemoryNotANumber", 2, {"--memory-per-process", "lots"}, "--memory-per-process"},
        BeffBadInput{"SeedNotANumber", 2, {"--seed", "abc"}, "--seed"},
        BeffBadInput{"NoRandomPatterns", 2, {"--random-patterns", "0"}, "--random-patterns"},
        BeffBadInput{"NegativeLoopTime", 2, {"--loop-time", "-1"}, "--loop-time"},
        BeffBadInput{"ZeroRmax", 2, {"--rmax", "0"}, "--rmax"},
        BeffBadInput{"UnwritableJson",
                     2,
                     {"--json", "/nonexistent-dir/r.json"},
                     "cannot write '/nonexistent-dir/r.json'"},
        BeffBadInput{"OneProcess", 1, {}, "b_eff needs at least 2 processes"},
        BeffBadInput{"UnknownMethod", 2, {"--method", "foo"}, "--method"},
        BeffBadInput{
            "TooFewMinReps", 2, {"--method", "accurate", "--min-reps", "3"}, "--min-reps must be"},
        BeffBadInput{"UnknownSync", 2, {"--method", "accurate", "--sync", "foo"}, "--sync"},
        BeffBadInput{"LoopTimeInAccurateMode",
                     2,
                     {"--method", "accurate", "--loop-time", "0.1"},
                     "--loop-time belongs to b_eff's classic method"}),
    [](const auto& test) { return std::string(test.param.label); });
