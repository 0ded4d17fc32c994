// b_eff_io --method accurate on real MPI-IO: every pattern's row carries consistent statistics,
// every bandwidth is recomputed from the medians (pattern, type, access method, partition, the
// single number), rewrite and read cycle through what the write covered, a small disk limit makes
// the calls wrap around within it, and bad options are rejected.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "beffio_checks.hpp"
#include "harness.hpp"

using namespace harness;
using nlohmann::json;
using namespace beffio_checks;

namespace {

bool near(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

// rows[method][type] in pattern order, of one partition.
using Rows = std::map<std::string, std::map<int, std::vector<json>>>;

Rows rows_of(const json& doc, int partition) {
  Rows rows;
  for (const auto& b : doc.at("benchmarks")) {
    const auto& p = b.at("parameters");
    if (std::stoi(p.at("partition").get<std::string>()) != partition) continue;
    EXPECT_EQ(b.at("method"), "accurate");
    json row = b.at("rows").at(0);
    row["pattern"] = std::stoi(p.at("pattern").get<std::string>());
    rows[p.at("access_method")][std::stoi(p.at("pattern_type").get<std::string>())].push_back(row);
  }
  return rows;
}

// Checks one accurate run of one partition of np processes with T seconds; returns its b_eff_io
// recomputed from the medians. A pattern without a valid repetition (window sync whose every
// repetition in a short budget started late or overran) is unmeasured, says why, and is left out
// of its type's bandwidth; `unmeasured` counts them.
double check_partition(const json& doc, int np, double T, double budget, int& unmeasured) {
  SCOPED_TRACE("partition " + std::to_string(np));
  const Rows rows = rows_of(doc, np);
  const std::string part = "np" + std::to_string(np) + ".";
  std::map<std::string, double> method_bw;
  for (const char* m : kMethods) {
    SCOPED_TRACE(m);
    const auto& types = rows.at(m);
    EXPECT_EQ(types.size(), 5u);
    double type_bw[5] = {};
    for (int t = 0; t < 5; ++t) {
      double scheduled_bytes = 0, scheduled_seconds = 0, accessed = 0;
      int left_out = 0;
      const std::string fig = part + m + ".type" + std::to_string(t) + ".";
      for (const json& row : types.at(t)) {
        const std::string where = "pattern " + row["pattern"].dump();
        if (!row.at("measured").get<bool>()) {
          EXPECT_NE(row.at("note").get<std::string>().find("no valid repetition"),
                    std::string::npos)
              << where;
          ++left_out;
          continue;
        }
        if (!row.contains("accurate")) {
          ADD_FAILURE() << where << ": no accurate object";
          continue;
        }
        const json& a = row["accurate"];
        EXPECT_EQ(a["valid"].get<int>(), row["repetitions"].get<int>()) << where;
        EXPECT_EQ(a["attempted"].get<int>(),
                  a["valid"].get<int>() + a["late"].get<int>() + a["overrun"].get<int>())
            << where;
        EXPECT_GE(a["valid"].get<int>(), 1) << where;
        const double median = a["median_us"].get<double>();
        EXPECT_LE(a["ci95_low_us"].get<double>(), median) << where;
        EXPECT_GE(a["ci95_high_us"].get<double>(), median) << where;
        const std::string stop = a["stop_reason"];
        EXPECT_TRUE(stop == "converged" || stop == "time-budget" || stop == "max-repetitions")
            << where << " " << stop;
        EXPECT_FALSE(row.contains("rank_times_us")) << where;
        // A repetition is one call of every process; the bandwidth comes from the median.
        const double units = value(row, "time_units");
        const double per_repetition = value(row, "bytes_per_repetition");
        EXPECT_EQ(per_repetition, value(row, "memory_chunk") * np) << where;
        EXPECT_TRUE(near(value(row, "bandwidth"), per_repetition / (median * 1e-6) / kMiB))
            << where;
        EXPECT_TRUE(near(row["mbytes_per_sec"].get<double>(), value(row, "bandwidth"))) << where;
        EXPECT_EQ(value(row, "t_med"), median) << where;
        // Every call moved real data: the calls include the pilot and any invalid repetition.
        EXPECT_GE(value(row, "calls"), a["attempted"].get<double>()) << where;
        EXPECT_EQ(value(row, "bytes_accessed"), value(row, "calls") * per_repetition) << where;
        accessed += value(row, "bytes_accessed");
        // The pattern's budget: the smaller of --budget and its share of T (U = 0: one unit).
        const double share = T / 3 * std::max(1.0, units) / 64;
        EXPECT_TRUE(near(value(row, "budget"), std::min(budget, share))) << where;
        if (std::string(m) != "read") {
          EXPECT_GE(value(row, "sync_time"), 0) << where;
        }
        // The type's bandwidth: T_pattern at the median bandwidth, U = 0 patterns one call.
        if (units > 0) {
          const double scheduled = T / 3 * units / 64;
          EXPECT_TRUE(near(value(row, "scheduled_time"), scheduled)) << where;
          scheduled_bytes += per_repetition / (median * 1e-6) * scheduled;
          scheduled_seconds += scheduled;
        } else {
          scheduled_bytes += per_repetition;
          scheduled_seconds += median * 1e-6;
        }
      }
      EXPECT_EQ(summary(doc, fig + "patterns_left_out"), left_out);
      unmeasured += left_out;
      if (left_out > 0) {  // the unmeasured pattern's calls count, but are not in its row
        EXPECT_GE(summary(doc, fig + "bytes"), accessed);
      } else {
        EXPECT_DOUBLE_EQ(summary(doc, fig + "bytes"), accessed);
      }
      EXPECT_TRUE(near(summary(doc, fig + "scheduled_bytes"), scheduled_bytes));
      EXPECT_TRUE(near(summary(doc, fig + "scheduled_seconds"), scheduled_seconds));
      type_bw[t] = scheduled_seconds > 0 ? scheduled_bytes / scheduled_seconds / kMiB : 0;
      EXPECT_TRUE(near(summary(doc, fig + "b_eff_io"), type_bw[t]))
          << summary(doc, fig + "b_eff_io") << " vs " << type_bw[t];
      EXPECT_GT(summary(doc, fig + "seconds"), 0);
    }
    method_bw[m] = (2 * type_bw[0] + type_bw[1] + type_bw[2] + type_bw[3] + type_bw[4]) / 6.0;
    EXPECT_TRUE(near(summary(doc, part + m + ".b_eff_io"), method_bw[m]));
  }
  // Rewrite and read cycle through the call positions the initial write covered.
  for (const char* m : {"rewrite", "read"})
    for (int t = 0; t < 5; ++t)
      for (std::size_t i = 0; i < rows.at("write").at(t).size(); ++i) {
        const json& w = rows.at("write").at(t)[i];
        const json& x = rows.at(m).at(t)[i];
        if (w.at("measured").get<bool>() && x.at("measured").get<bool>()) {
          EXPECT_LE(value(x, "slots"), value(w, "slots")) << m << " type " << t << " pattern " << i;
        }
      }
  const double partition =
      0.25 * method_bw["write"] + 0.25 * method_bw["rewrite"] + 0.5 * method_bw["read"];
  EXPECT_TRUE(near(summary(doc, part + "b_eff_io"), partition));
  return partition;
}

double printed_b_eff_io(const std::string& out) {
  double found = std::nan("");
  for (const auto& line : lines_of(out)) {
    double v = 0;
    if (std::sscanf(line.c_str(), "# b_eff_io = %lf MiB/s", &v) == 1) found = v;
  }
  return found;
}

}  // namespace

// M_PART = 2 MiB (--memory-per-node 256M), T = 10 s and --budget 0.01: every pattern has 10 ms
// of repetitions (T's shares are 52 ms and more). own-barrier: I/O calls are long and heavy-tailed,
// and on a loaded machine window sync's short budgets may end before its fall-back (patterns then
// left out, which check_partition allows for), and its clock estimates cost seconds with MPICH.
TEST(BeffioAccurate, BandwidthsComeFromTheMediansAtTwoProcesses) {
  const auto work = fresh_dir("io");
  const auto json_path = temp_dir() + "/a.json";
  const auto r =
      run_mpi(2,
              {"beffio", "-T", "10", "--memory-per-node", "256M", "--io-dir", work, "--json",
               json_path, "--method", "accurate", "--budget", "0.01", "--sync", "own-barrier"},
              "", 120);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out.substr(0, 3000);
  EXPECT_TRUE(files_in(work).empty()) << "left behind: " << files_in(work).front();
  EXPECT_NE(r.out.find("# Method: accurate: own-barrier sync"), std::string::npos);
  EXPECT_NE(r.out.find("t_med[us]"), std::string::npos);
  EXPECT_NE(r.out.find("at the median bandwidths"), std::string::npos);
  const json doc = json::parse(read_file(json_path));
  EXPECT_TRUE(doc.at("complete").get<bool>());
  EXPECT_EQ(doc["run"]["settings"]["method"], "accurate");
  EXPECT_EQ(doc.at("benchmarks").size(), 3u * 43u);
  int unmeasured = 0;
  const double b = check_partition(doc, 2, 10.0, 0.01, unmeasured);
  EXPECT_EQ(unmeasured, 0) << "own-barrier repetitions are never invalid";
  EXPECT_TRUE(near(summary(doc, "b_eff_io"), b));
  EXPECT_NEAR(printed_b_eff_io(r.out), b, 0.0005 + 1e-9 * b);
}

// Three processes, T = 1 s (the budgets are T's shares, 5–21 ms, below --budget) and a disk limit
// 6 MiB above one call of every pattern: each pattern's share of those 6 MiB (6 MiB / 43) is
// below one call of most patterns, so their repetitions cycle through one call position, placed
// again inside the repetition; the data the write leaves stays within one call plus the share. With
// MPICH, whose three ranks on the two cores of a CI machine make every collective I/O call take
// tens of milliseconds (25 s for the run instead of 4), two processes.
TEST(BeffioAccurate, CallsWrapAroundWithinTheDiskLimitAtThreeProcesses) {
  const int np = is_openmpi() ? 3 : 2;
  const auto work = fresh_dir("io");
  const auto json_path = temp_dir() + "/w.json";
  // Accurate mode writes one call of every pattern whatever the limit: per process, with M_PART =
  // 2 MiB, 22163768 bytes of types 0-2 and two smallest segments of 6 MiB. The limit leaves 6 MiB
  // beyond that, shared by the 43 patterns.
  const double least = np * (22163768.0 + 2 * 6 * kMiB);
  const auto r = run_mpi(np,
                         {"beffio", "-T", "1", "--memory-per-node", "256M", "--io-dir", work,
                          "--json", json_path, "--method", "accurate", "--budget", "0.1",
                          "--disk-limit", std::to_string(static_cast<long long>(least + 6 * kMiB)),
                          "--sync", "own-barrier", "--fs-cache-size", "0"},
                         "", 120);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out.substr(0, 3000);
  EXPECT_TRUE(files_in(work).empty()) << "left behind: " << files_in(work).front();
  const json doc = json::parse(read_file(json_path));
  int unmeasured = 0;
  check_partition(doc, np, 1.0, 0.1, unmeasured);
  EXPECT_EQ(unmeasured, 0) << "own-barrier repetitions are never invalid";
  const Rows rows = rows_of(doc, np);
  const double share = 6 * kMiB / 43;
  int wrapped = 0;
  for (int t = 0; t < 3; ++t)
    for (const json& row : rows.at("write").at(t)) {
      const double per_call = value(row, "bytes_per_repetition");
      const double slots = value(row, "slots");
      EXPECT_LE(slots * per_call, per_call + share) << row["pattern"];
      if (value(row, "calls") > slots) {
        ++wrapped;
        EXPECT_NE(row.at("note").get<std::string>().find("cycled through"), std::string::npos);
      }
      EXPECT_EQ(row["accurate"]["sync"], "own-barrier");
    }
  EXPECT_GT(wrapped, 10);
}

TEST(BeffioAccurate, BadMethodOptionsAreOneClearErrorAndHelpListsThem) {
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--method", "foo"}, {"--method", "accurate", "--min-reps", "3"}}) {
    const auto dir = temp_dir();
    std::vector<std::string> args = {"beffio", "-T", "1", "--io-dir", dir};
    args.insert(args.end(), bad.begin(), bad.end());
    const auto r = run_mpi(2, args, "", 60);
    EXPECT_EQ(r.exit_code, 2) << bad[bad.size() - 1] << r.err;
    EXPECT_EQ(count_of(r.err, "error: "), 1) << r.err;
    EXPECT_NE(r.err.find(bad[bad.size() - 2]), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("## "), std::string::npos);
  }
  const auto help = run_mpi(1, {"beffio", "--help"}, "", 60);
  EXPECT_EQ(help.exit_code, 0);
  for (const char* option :
       {"--method", "--sync", "--time-def", "--target-ci", "--min-reps", "--max-reps", "--budget"})
    EXPECT_NE(help.out.find(option), std::string::npos) << option;
}
