#include "cli/method_options.hpp"

#include <fmt/format.h>

#include <charconv>
#include <climits>
#include <stdexcept>

#include "cli/numbers.hpp"

namespace mpiscope::cli {

namespace {
constexpr NumberRange kTargetCiRange{0, 100, true};
}  // namespace

void MethodOptions::validate() const {
  if (method != "classic" && method != "imb" && method != "accurate")
    throw std::invalid_argument("--method takes classic (or imb) or accurate, got '" + method +
                                "'");
  if (!core::parse_sync_method(sync))
    throw std::invalid_argument("--sync takes mpi-barrier, own-barrier or window, got '" + sync +
                                "'");
  if (time_def != "auto" && time_def != "max-local" && time_def != "global")
    throw std::invalid_argument("--time-def takes max-local, global or auto, got '" + time_def +
                                "'");
  if (time_def == "global" && sync != "window")
    throw std::invalid_argument("--time-def global needs synchronised clocks: --sync window");
  check_number(target_ci_percent, "--target-ci", kTargetCiRange);
  if (min_repetitions < 6)
    throw std::invalid_argument(
        "--min-reps must be at least 6 (fewer samples give no 95 % interval of the median)");
  if (max_repetitions < min_repetitions)
    throw std::invalid_argument("--max-reps must be at least --min-reps");
  check_number(budget_s, "--budget", kPositiveSeconds);
  if (reps_per_sample != "auto" && requested_reps_per_sample() <= 0)
    throw std::invalid_argument("--reps-per-sample takes auto or a count from 1 to 1000000, got '" +
                                reps_per_sample + "'");
}

core::AccurateSettings MethodOptions::settings() const {
  core::AccurateSettings s;
  s.sync = *core::parse_sync_method(sync);
  s.global_time =
      time_def == "global" || (time_def == "auto" && s.sync == core::SyncMethod::Window);
  s.stopping.target_relative_half_width = target_ci_percent / 100;
  s.stopping.min_repetitions = min_repetitions;
  s.stopping.max_repetitions = max_repetitions;
  s.stopping.budget_s = budget_s;
  s.repetitions_per_sample = reps_per_sample == "auto" ? 0 : requested_reps_per_sample();
  return s;
}

int MethodOptions::requested_reps_per_sample() const {
  int n = 0;
  const char* end = reps_per_sample.data() + reps_per_sample.size();
  const auto [ptr, ec] = std::from_chars(reps_per_sample.data(), end, n);
  return ec == std::errc() && ptr == end && n >= 1 && n <= 1000000 ? n : 0;
}

std::string MethodOptions::describe() const {
  if (!accurate()) return method;
  const auto s = settings();
  return fmt::format(
      "accurate: {} sync, {} time per repetition, until the 95% CI of the median is within "
      "+-{}% ({}..{} samples, {} s per point, {} repetitions per sample)",
      sync, s.global_time ? "global" : "max-local", target_ci_percent, min_repetitions,
      max_repetitions, budget_s, reps_per_sample);
}

const std::vector<OptionSpec<MethodOptions>>& method_option_table() {
  using O = MethodOptions;
  auto text = [](std::string O::*field) {
    return [field](O& o, const std::string& v) { o.*field = v; };
  };
  auto shown_text = [](std::string O::*field) { return [field](const O& o) { return o.*field; }; };
  static const std::vector<OptionSpec<O>> table = {
      {"--method", "classic|accurate",
       "classic (imb is the same): the suite's own methodology, comparable with the original "
       "tool's tables; accurate: every repetition is started together and timed on its own, "
       "until the 95% confidence interval of the median is within --target-ci (the table then "
       "shows the median, its interval and the valid/invalid counts)",
       text(&O::method), shown_text(&O::method)},
      {"--sync", "window|own-barrier|mpi-barrier",
       "accurate mode: how repetitions start together (window: at the same instant on clocks "
       "synchronised by ping-pong; falls back to own-barrier, with a note, when too many "
       "repetitions miss their window)",
       text(&O::sync), shown_text(&O::sync)},
      {"--time-def", "auto|max-local|global",
       "accurate mode: a repetition's time is the slowest rank's (max-local) or last exit minus "
       "first start on synchronised clocks (global); auto: global with window sync",
       text(&O::time_def), shown_text(&O::time_def)},
      {"--target-ci", "PERCENT",
       "accurate mode: stop when the 95% CI of the median is within +-PERCENT",
       [](O& o, const std::string& v) {
         o.target_ci_percent = parse_number(v, "--target-ci", kTargetCiRange);
       },
       [](const O& o) { return number_text(o.target_ci_percent); }},
      {"--min-reps", "N", "accurate mode: valid repetitions at least",
       [](O& o, const std::string& v) {
         o.min_repetitions = parse_integer<int>(v, "--min-reps", 1, INT_MAX);
       },
       [](const O& o) { return std::to_string(o.min_repetitions); }},
      {"--max-reps", "N", "accurate mode: repetitions at most",
       [](O& o, const std::string& v) {
         o.max_repetitions = parse_integer<int>(v, "--max-reps", 1, INT_MAX);
       },
       [](const O& o) { return std::to_string(o.max_repetitions); }},
      {"--budget", "SECONDS", "accurate mode: seconds of repetitions per point at most",
       [](O& o, const std::string& v) {
         o.budget_s = parse_number(v, "--budget", kPositiveSeconds);
       },
       [](const O& o) { return number_text(o.budget_s); }},
      {"--reps-per-sample", "auto|N",
       "accurate mode: repetitions timed back to back as one sample; auto: 1, or enough that a "
       "sample lasts 100 timer resolutions (a note says so)",
       text(&O::reps_per_sample), shown_text(&O::reps_per_sample)},
  };
  return table;
}

void add_method_options(CLI::App& app, MethodOptions& o) {
  add_option_table(app, o, method_option_table());
}

std::map<std::string, std::string> method_settings(const MethodOptions& o,
                                                   const std::string& classic_description,
                                                   const std::string& accurate_note) {
  std::map<std::string, std::string> s = {{"method", o.method}};
  if (!o.accurate()) {
    s["method_description"] = classic_description.empty() ? o.describe() : classic_description;
    return s;
  }
  s["method_description"] = o.describe() + (accurate_note.empty() ? "" : "; " + accurate_note);
  const auto a = o.settings();
  s["synchronisation"] = core::sync_method_name(a.sync);
  s["time_definition"] = a.global_time ? "global" : "max-local";
  s["target_ci_percent"] = number_text(o.target_ci_percent);
  s["min_repetitions"] = std::to_string(a.stopping.min_repetitions);
  s["max_repetitions"] = std::to_string(a.stopping.max_repetitions);
  s["budget_s"] = number_text(a.stopping.budget_s);
  s["repetitions_per_sample"] = o.reps_per_sample;
  return s;
}

std::string method_options_help(const MethodOptions& defaults) {
  return option_table_help(method_option_table(), defaults);
}

}  // namespace mpiscope::cli
