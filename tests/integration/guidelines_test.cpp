// Issue 32 item 3: `mpiscope guidelines` times each collective beside its mock-up and names the
// guidelines the library violates. A PMPI shim (tests/pmpi) that slows one collective makes
// exactly the guidelines of that collective fail, and no other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace harness;
using json = nlohmann::json;

namespace {

// Each printed guideline's verdicts, by guideline: "holds", "VIOLATED", "cannot tell".
std::map<std::string, std::vector<std::string>> verdicts_of(const std::string& out) {
  std::map<std::string, std::vector<std::string>> verdicts;
  std::string current;
  for (const auto& line : lines_of(out)) {
    if (line.rfind("# ", 0) == 0 && line.find(" processes): medians") != std::string::npos) {
      current = line.substr(2, line.find(" (") - 2);
      verdicts[current];
    } else if (!current.empty() && !line.empty() && line[0] != '#') {
      for (const char* v : {"VIOLATED", "cannot tell", "holds"})
        if (line.find(v) != std::string::npos) {
          verdicts[current].push_back(v);
          break;
        }
    }
  }
  return verdicts;
}

}  // namespace

TEST(Guidelines, SlowingOneCollectiveViolatesExactlyItsGuidelines) {
  const auto dir = temp_dir();
  const std::string wrapper = with_pmpi_library(dir);
  const std::vector<std::string> args = {"guidelines", "--guidelines", "Allreduce,Reduce,Bcast",
                                         "--lengths",  "4,64,1024",    "--fail-on-violation"};
  int last_violations = 0;
  for (const std::string slowed : {"Allreduce", "Bcast"}) {
    SCOPED_TRACE(slowed);
    // The slowed collective's own guidelines (it on the left) are violated and those whose
    // mock-up calls it hold. A guideline it has no part in compares the library's own
    // collectives, whose relation is the library's: any verdict (MPICH 4.0.2's Reduce at 4 bytes
    // once measured 1.62 times its Allreduce, [0.761, 0.789] against [0.471, 0.483] us, in CI).
    const auto expected = [&](const std::string& guideline) -> std::string {
      if (guideline.rfind(slowed + " <= ", 0) == 0) return "VIOLATED";
      if (guideline.find(slowed, guideline.find("<=")) != std::string::npos) return "holds";
      return "";  // any
    };
    auto with_files = args;
    const std::string json_path = dir + "/" + slowed + ".json";
    with_files.insert(with_files.end(), {"--json", json_path, "--db", dir + "/r.sqlite"});
    // 200 us before each call: the collective takes over 100 times its mock-up's time.
    const auto measure = [&] {
      return run_mpi(2, with_files, "MPISCOPE_DELAY=MPI_" + slowed + "=200", 180, wrapper);
    };
    auto r = measure();
    // "cannot tell" where the test expects "holds" is an honest verdict when a time slice lands
    // inside a 2-rank MPICH point (once in CI, alone, stop 47): the run is repeated once. A wrong
    // verdict ("VIOLATED" on another collective's guideline, "holds" on the slowed one) is never
    // repeated: a run is repeated only when something could not tell and everything decided was
    // right. A tool that could only say "cannot tell" fails both runs.
    const auto undecided_but_never_wrong = [&](const std::string& out) {
      bool undecided = false;
      for (const auto& [guideline, points] : verdicts_of(out)) {
        const std::string want = expected(guideline);
        for (const auto& v : points) {
          if (want.empty()) continue;
          if (v == "cannot tell")
            undecided = true;
          else if (v != want)
            return false;
        }
      }
      return undecided;
    };
    if (undecided_but_never_wrong(r.out)) {
      std::fprintf(stderr, "[ repeated ] %s: some verdict could not tell\n%s", slowed.c_str(),
                   r.out.c_str());
      r = measure();
    }
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;  // --fail-on-violation
    const auto verdicts = verdicts_of(r.out);
    ASSERT_EQ(verdicts.size(), 3u) << r.out;
    int violations = 0;
    for (const auto& [guideline, points] : verdicts) {
      EXPECT_EQ(points.size(), 3u) << guideline << "\n" << r.out;
      const std::string want = expected(guideline);
      for (const auto& v : points) {
        violations += v == "VIOLATED";
        if (!want.empty()) {
          EXPECT_EQ(v, want) << guideline;
        }
      }
    }
    EXPECT_GE(violations, 3) << r.out;
    last_violations = violations;
    EXPECT_NE(
        r.out.find("# " + std::to_string(violations) + " of 9 points violate their guideline"),
        std::string::npos)
        << r.out;
    // The JSON (and the database) keep both tables of each guideline, a note per violation and
    // the counts.
    const auto j = json::parse(read_file(json_path));
    int notes = 0;
    for (const auto& n : j.at("notes"))
      notes += n.get<std::string>().find("guideline " + slowed + " <= ") != std::string::npos;
    EXPECT_EQ(notes, 3) << j.at("notes").dump();
    std::map<std::string, double> figures;
    for (const auto& f : j.at("summary")) figures[f.at("name")] = f.at("value").get<double>();
    EXPECT_EQ(figures["guideline_violations"], violations);
    EXPECT_EQ(figures["guideline_points"], 9);
    EXPECT_EQ(j.at("benchmarks").size(), 5u);  // Allreduce, Reduce + Bcast, Reduce, Bcast, ...
    // Every median's interval at 1 - 0.05 / 9 at least (the order statistics' own level), so that
    // the 9 verdicts together are wrong with a chance of at most 5 %; the run says so.
    for (const auto& b : j.at("benchmarks"))
      for (const auto& row : b.at("rows")) {
        ASSERT_TRUE(row.contains("accurate")) << row.dump();
        EXPECT_GE(row.at("accurate").at("ci_confidence").get<double>(), 1 - 0.05 / 9)
            << b.at("name") << row.dump();
      }
    EXPECT_NE(j.at("run")
                  .at("settings")
                  .at("interval_confidence")
                  .get<std::string>()
                  .find("1 - 0.05 / 9 points"),
              std::string::npos)
        << j.at("run").at("settings").dump();
    EXPECT_NE(r.out.find("medians [99.44 % intervals]"), std::string::npos) << r.out;
  }
  // The summary names the newest run's violations.
  const auto s = run_plain({"summary", "--db", dir + "/r.sqlite"});
  EXPECT_NE(s.out.find(std::to_string(last_violations) + " of 9 points"), std::string::npos)
      << s.out;
}

TEST(Guidelines, BadInputIsOneErrorAndExitTwo) {
  for (const auto& bad : std::vector<std::vector<std::string>>{
           {"--method", "classic"}, {"--lengths", "6"}, {"--guidelines", "Barrier"}}) {
    auto args = bad;
    args.insert(args.begin(), "guidelines");
    args.push_back("--no-db");
    const auto r = run_mpi(2, args);
    EXPECT_EQ(r.exit_code, 2) << bad[0] << ": " << r.err;
    EXPECT_EQ(count_of(r.err, "error"), 1) << r.err;
  }
}
