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

void add_method_options(CLI::App& app, MethodOptions& o) {
  app.add_option("--method", o.method,
                 "classic (alias imb): the suite's own methodology; accurate: synchronised "
                 "repetitions timed one by one until the median is known to --target-ci")
      ->check(CLI::IsMember({"classic", "imb", "accurate"}))
      ->capture_default_str();
  app.add_option("--sync", o.sync, "accurate mode: how repetitions start together")
      ->check(CLI::IsMember({"mpi-barrier", "own-barrier", "window"}))
      ->capture_default_str();
  app.add_option("--time-def", o.time_def,
                 "accurate mode: a repetition's time is the slowest rank's (max-local) or last "
                 "exit minus first start on synchronised clocks (global); auto: global with "
                 "window sync")
      ->check(CLI::IsMember({"auto", "max-local", "global"}))
      ->capture_default_str();
  app.add_option("--target-ci", o.target_ci_percent,
                 "accurate mode: stop when the 95% CI of the median is within +-PERCENT")
      ->type_name("PERCENT")
      ->capture_default_str()
      ->check(number_in(kTargetCiRange));
  app.add_option("--min-reps", o.min_repetitions, "accurate mode: valid repetitions at least")
      ->capture_default_str()
      ->check(integer_in(1, INT_MAX));
  app.add_option("--max-reps", o.max_repetitions, "accurate mode: repetitions at most")
      ->capture_default_str()
      ->check(integer_in(1, INT_MAX));
  app.add_option("--budget", o.budget_s, "accurate mode: seconds of repetitions per point at most")
      ->type_name("SECONDS")
      ->capture_default_str()
      ->check(number_in(kPositiveSeconds));
  app.add_option("--reps-per-sample", o.reps_per_sample,
                 "accurate mode: repetitions timed back to back as one sample; auto: 1, or "
                 "enough that a sample lasts 100 timer resolutions")
      ->type_name("auto|N")
      ->capture_default_str();
}

std::map<std::string, std::string> method_settings(const MethodOptions& o,
                                                   const std::string& classic_description) {
  std::map<std::string, std::string> s = {
      {"method", o.method},
      {"method_description",
       o.accurate() || classic_description.empty() ? o.describe() : classic_description}};
  if (!o.accurate()) return s;
  const auto a = o.settings();
  s["synchronisation"] = core::sync_method_name(a.sync);
  s["time_definition"] = a.global_time ? "global" : "max-local";
  s["target_ci_percent"] = std::to_string(o.target_ci_percent);
  s["min_repetitions"] = std::to_string(a.stopping.min_repetitions);
  s["max_repetitions"] = std::to_string(a.stopping.max_repetitions);
  s["budget_s"] = std::to_string(a.stopping.budget_s);
  s["repetitions_per_sample"] = o.reps_per_sample;
  return s;
}

const char* method_options_help() {
  return R"(  --method classic|accurate
                classic (default; imb is the same): the suite's own methodology,
                comparable with the original tool's tables.
                accurate: every repetition is started together and timed on its own;
                repetitions continue until the 95% confidence interval of the median is
                within --target-ci; the table shows the median, its interval and the
                valid/invalid counts
  --sync window|own-barrier|mpi-barrier
                accurate mode: how repetitions start together (default window: at the
                same instant on clocks synchronised by ping-pong; falls back to
                own-barrier, with a note, when too many repetitions miss their window)
  --time-def auto|max-local|global
                accurate mode: a repetition's time is the slowest rank's (max-local) or
                last exit minus first start in global time (global; default with window)
  --target-ci P relative half-width of the median's 95% CI to reach, in percent (default 2)
  --min-reps N  valid repetitions at least (default 20)
  --max-reps N  repetitions at most (default 100000)
  --budget S    seconds of repetitions per point at most (default 1)
  --reps-per-sample auto|N
                repetitions timed back to back as one sample (default auto: 1, or
                enough that a sample lasts 100 timer resolutions; a note says so)
)";
}

}  // namespace mpiscope::cli
