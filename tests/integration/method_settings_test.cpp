// Issue 31, item 3: one writer of the method settings. Every suite run with the same accurate-mode
// options records the same settings for them (run.settings in the JSON, as in the database and
// the CSV), numbers written alike ("2", not "2.000000").
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "harness.hpp"

using namespace harness;
using nlohmann::json;

namespace {

const std::vector<std::string> kMethodKeys = {
    "method",          "synchronisation", "time_definition",        "target_ci_percent",
    "min_repetitions", "max_repetitions", "repetitions_per_sample", "budget_s"};

// The settings of the method, as the JSON of a run with these arguments records them.
json method_settings_of(const std::vector<std::string>& suite_args, const std::string& dir,
                        const std::string& name) {
  auto args = suite_args;
  const std::string path = dir + "/" + name + ".json";
  for (const char* a : {"--method", "accurate", "--sync", "own-barrier", "--time-def", "max-local",
                        "--target-ci", "5", "--min-reps", "8", "--max-reps", "40", "--budget",
                        "0.02", "--reps-per-sample", "1", "--no-db", "--json"})
    args.emplace_back(a);
  args.push_back(path);
  const auto r = run_mpi(2, args, "", 120);
  EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err << r.out.substr(0, 2000);
  json settings = json::object();
  if (r.exit_code != 0) return settings;
  const json run = json::parse(read_file(path))["run"]["settings"];
  for (const auto& key : kMethodKeys)
    settings[key] = run.contains(key) ? run[key] : json("(not recorded)");
  return settings;
}

}  // namespace

TEST(MethodSettings, EverySuiteRecordsTheSameAccurateSettings) {
  const auto dir = temp_dir();
  const std::string cfg =
      write_file(dir, "a.skampi",
                 "@MEMORY 256\n@MEASUREMENTS\nPP\n{\n  Type = 1;\n  Start_Argument = 0;\n"
                 "  End_Argument = 8;\n  Stepwidth = 8;\n  Max_Steps = 2;\n}\n");
  const auto work = dir + "/io";
  ASSERT_TRUE(std::filesystem::create_directory(work));
  const json imb = method_settings_of({"imb-mpi1", "PingPong", "-msglog", "0:1"}, dir, "imb");
  EXPECT_EQ(imb["target_ci_percent"], "5");
  EXPECT_EQ(imb["budget_s"], "0.02");
  EXPECT_EQ(imb["repetitions_per_sample"], "1");
  const std::vector<std::pair<std::string, std::vector<std::string>>> others = {
      {"osu", {"osu", "osu_latency", "-m", "1:2"}},
      {"skampi", {"skampi", cfg, "--outfile", dir + "/s.out", "--logfile", dir + "/s.log"}},
      {"beffio", {"beffio", "-T", "1", "--memory-per-node", "64M", "--io-dir", work}},
      {"presta", {"presta", "com", "-o", "5", "-e", "256", "-s", "8"}}};
  for (const auto& [name, args] : others) {
    SCOPED_TRACE(name);
    EXPECT_EQ(method_settings_of(args, dir, name).dump(1), imb.dump(1));
  }
}
