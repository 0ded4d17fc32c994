// The measurement-method switch every suite offers (--method classic|accurate, imb being
// classic's other name, and the accurate mode's knobs), declared once as an option table
// (cli/option_table.hpp), checked in one place and turned into the core's settings.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/option_table.hpp"
#include "core/accurate.hpp"

namespace mpiscope::cli {

struct MethodOptions {
  std::string method =
      "classic";  // --method: classic (alias imb: the suite's own methodology) | accurate
  std::string sync = "window";    // --sync: mpi-barrier | own-barrier | window
  std::string time_def = "auto";  // --time-def: max-local | global | auto (global with window)
  double target_ci_percent = 2;   // --target-ci: relative half-width of the median's 95 % CI
  int min_repetitions = 20;       // --min-reps
  int max_repetitions = 100000;   // --max-reps
  double budget_s = 1.0;          // --budget: seconds of repetitions per point
  std::string reps_per_sample = "auto";  // --reps-per-sample: auto | N

  bool accurate() const { return method == "accurate"; }
  // Throws std::invalid_argument with a message naming the option.
  void validate() const;
  core::AccurateSettings settings() const;
  int requested_reps_per_sample() const;  // --reps-per-sample N; 0 for auto or garbage
  // One line for headers and metadata, e.g. "accurate: window sync, global time, ...".
  std::string describe() const;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MethodOptions, method, sync, time_def, target_ci_percent,
                                   min_repetitions, max_repetitions, budget_s, reps_per_sample)

// The options as data: CLI11 (add_method_options), IMB's parser (take_option) and the
// hand-written help screens (method_options_help) all read this table.
const std::vector<OptionSpec<MethodOptions>>& method_option_table();
void add_method_options(CLI::App& app, MethodOptions& o);
std::string method_options_help(const MethodOptions& defaults = {});

// What a run records of its method in its settings (JSON run.settings, CSV, database), the one
// writer of them for every suite: `method` and `method_description` (`describe()`, followed by
// `accurate_note` in accurate mode, or `classic_description` in classic mode when given) and, in
// accurate mode, the synchronisation, the time definition and the stopping rule, numbers as
// cli::number_text() writes them.
std::map<std::string, std::string> method_settings(const MethodOptions& o,
                                                   const std::string& classic_description = "",
                                                   const std::string& accurate_note = "");

}  // namespace mpiscope::cli
