#include "output/json_reporter.hpp"

#include <cerrno>

#include "core/convergence.hpp"
#include "core/curve_model.hpp"
#include "core/run_info.hpp"
#include "output/registry.hpp"

namespace mpiscope::output {

using nlohmann::json;

namespace {
const char* base_name(core::OverlapBase base) {
  switch (base) {
    case core::OverlapBase::Smaller:
      return "min(t_pure, t_CPU)";
    case core::OverlapBase::Larger:
      return "max(t_pure, t_CPU)";
    default:
      return "t_pure";
  }
}
}  // namespace

JsonReporter::JsonReporter(std::string path) : file_(std::move(path)) {}

JsonReporter::~JsonReporter() = default;

json JsonReporter::units() {
  return {{"bytes", "bytes"},
          {"t_min_us", "microseconds"},
          {"t_max_us", "microseconds"},
          {"t_avg_us", "microseconds"},
          {"rank_times_us", "microseconds"},
          {"samples_us", "microseconds"},
          {"mbytes_per_sec", "MiB/s (2^20 bytes per second, IMB's Mbytes/sec)"},
          {"overlap.t_ovrl_us", "microseconds"},
          {"overlap.t_pure_us", "microseconds"},
          {"overlap.t_cpu_us", "microseconds"},
          {"overlap.overlap_percent",
           "percent: 100 (t_pure + t_CPU - t_ovrl) / overlap.base, clamped to [0, 100]"},
          {"overlap.base",
           "min(t_pure, t_CPU) (IMB-IO), max(t_pure, t_CPU) (IMB-NBC) or t_pure (OSU): the "
           "overlap's divisor"},
          {"overlap.raw_overlap_percent", "percent: the same before clamping"},
          {"overlap.overlap_error_percent",
           "percent: plausible error of raw_overlap_percent (timer and CPU speed at the point)"},
          {"overlap.t_cpu_spread", "fraction: (slowest - fastest) / fastest CPU_Exploit call"},
          {"defects",
           "count of received bytes (floats for reductions) that differ from what was sent"}};
}

json JsonReporter::run_info(const core::RunInfo& i) {
  json j = {{"suite", i.suite},
            {"label", i.label},
            {"date", i.date},
            {"date_iso", i.date_iso},
            {"machine", i.machine},
            {"system", i.system},
            {"release", i.release},
            {"version", i.version},
            {"world_size", i.world_size},
            {"ranks_per_host", i.ranks_per_host},
            {"mpi_version", i.mpi_version},
            {"mpi_library", i.mpi_library},
            {"thread_level", i.thread_level},
            {"mpiscope_version", i.mpiscope_version},
            {"mpiscope_commit", i.mpiscope_commit},
            {"command_line", i.command_line},
            {"settings", i.settings},
            {"benchmarks", i.benchmarks}};
  // Absent when not read (an import, a test's made-up run): a run always has some.
  if (!i.control_variables.empty()) j["control_variables"] = i.control_variables;
  return j;
}

json JsonReporter::measurement(const core::Measurement& m) {
  json r = {{"bytes", m.bytes}, {"measured", m.measured}};
  if (!m.note.empty()) r["note"] = m.note;
  if (!m.measured) return r;
  r["repetitions"] = m.repetitions;
  r["t_min_us"] = m.t_min_us;
  r["t_max_us"] = m.t_max_us;
  r["t_avg_us"] = m.t_avg_us;
  if (m.mbytes_per_sec) r["mbytes_per_sec"] = *m.mbytes_per_sec;
  if (m.defects) r["defects"] = *m.defects;
  if (m.overlap)
    r["overlap"] = {{"t_ovrl_us", m.overlap->t_ovrl_us.value_or(m.headline_us())},
                    {"t_pure_us", m.overlap->t_pure_us},
                    {"t_cpu_us", m.overlap->t_cpu_us},
                    {"overlap_percent", m.overlap->overlap_percent},
                    {"raw_overlap_percent", m.overlap->raw_percent},
                    {"overlap_error_percent", m.overlap->error_percent},
                    {"t_cpu_spread", m.overlap->cpu_spread},
                    {"doubtful", m.overlap->doubtful},
                    {"base", base_name(m.overlap->base)}};
  if (!m.accurate) r["rank_times_us"] = m.rank_times_us;
  json groups = json::array();
  for (const auto& g : m.groups) {
    json gj = {{"t_min_us", g.t_min_us}, {"t_max_us", g.t_max_us}, {"t_avg_us", g.t_avg_us}};
    if (g.mbytes_per_sec) gj["mbytes_per_sec"] = *g.mbytes_per_sec;
    groups.push_back(gj);
  }
  r["groups"] = groups;
  if (!m.values.empty()) {
    json values = json::object();
    for (const auto& v : m.values) values[v.name] = {{"value", v.value}, {"unit", v.unit}};
    r["values"] = values;
  }
  if (m.accurate) {
    const auto& a = *m.accurate;
    const auto& s = a.summary_us;
    r["accurate"] = {{"sync", a.sync},
                     {"time_definition", a.time_definition},
                     {"stop_reason", a.stop_reason},
                     {"attempted", a.attempted},
                     {"valid", a.valid},
                     {"late", a.late},
                     {"overrun", a.overrun},
                     {"fell_back", a.fell_back},
                     {"window_us", a.window_us},
                     {"clock_offset_max_us", a.clock_offset_max_us},
                     {"clock_drift_max", a.clock_drift_max},
                     {"repetitions_per_sample", a.repetitions_per_sample},
                     {"timer_floor_us", a.timer_floor_us},
                     {"level_shift", a.level_shift.detected},
                     {"first_half_median_us", a.level_shift.first_median},
                     {"second_half_median_us", a.level_shift.second_median},
                     {"median_us", s.median},
                     {"ci95_low_us", s.median_ci.lower},
                     {"ci95_high_us", s.median_ci.upper},
                     {"ci_confidence", s.median_ci.confidence},
                     {"ci_relative_half_width", s.median_ci.relative_half_width(s.median)},
                     {"mean_us", s.mean},
                     {"min_us", s.min},
                     {"max_us", s.max},
                     {"p05_us", s.p05},
                     {"p25_us", s.p25},
                     {"p75_us", s.p75},
                     {"p95_us", s.p95},
                     {"p99_us", s.p99},
                     {"outliers", s.outliers}};
    const auto not_converged = core::not_converged_reason(m);
    r["accurate"]["converged"] = !not_converged;
    r["accurate"]["not_converged_reason"] = not_converged ? json(*not_converged) : json(nullptr);
  }
  if (m.samples_us) {
    const auto& s = *m.samples_us;
    r["samples_us"] = {{"n", s.n},
                       {"min", s.min},
                       {"max", s.max},
                       {"mean", s.mean},
                       {"median", s.median},
                       {"p05", s.p05},
                       {"p25", s.p25},
                       {"p75", s.p75},
                       {"p95", s.p95},
                       {"p99", s.p99},
                       {"values", m.raw_samples_us}};
  }
  return r;
}

void JsonReporter::run_started(const core::RunInfo& info) {
  const json head = {{"format", "mpiscope-results"},
                     {"format_version", 1},
                     {"run", run_info(info)},
                     {"units", units()}};
  std::string text = head.dump();
  text.pop_back();  // the closing brace: the benchmarks array follows
  append(text + ",\n\"benchmarks\": [");
}

void JsonReporter::benchmark_started(const core::BenchmarkRun& b) {
  json j = {{"name", b.name},         {"family", b.family},
            {"mode", b.mode},         {"method", b.accurate ? "accurate" : "classic"},
            {"overlap", b.overlap},   {"nprocs", b.nprocs},
            {"multi", b.multi},       {"groups", b.groups},
            {"inactive", b.inactive}, {"sized", b.sized},
            {"check", b.check}};
  if (!b.parameters.empty()) j["parameters"] = b.parameters;
  if (!b.map_order.empty())
    j["map"] = {{"rows", b.map_rows}, {"cols", b.map_cols}, {"order", b.map_order}};
  std::string text = j.dump();
  text.pop_back();
  if (benchmark_open_)
    text = "]}" + std::string(first_benchmark_ ? "" : ",") + "\n" + text;
  else
    text = (first_benchmark_ ? "\n" : ",\n") + text;
  first_benchmark_ = false;
  benchmark_open_ = true;
  first_row_ = true;
  append(text + ", \"rows\": [");
}

void JsonReporter::row(const core::BenchmarkRun&, const core::Measurement& m) {
  append((first_row_ ? "\n  " : ",\n  ") + measurement(m).dump());
  first_row_ = false;
}

void JsonReporter::benchmark_finished(const core::BenchmarkRun& b) {
  if (!benchmark_open_) return;
  benchmark_open_ = false;
  const std::string model = b.model ? ", \"model\": " + core::model_to_json(*b.model) : "";
  append("]" + model + "}");
}

void JsonReporter::note(const std::string& text) {
  notes_.push_back(text);
  append("");
}

void JsonReporter::summary(const core::NamedValue& v) {
  summary_.push_back({{"name", v.name}, {"value", v.value}, {"unit", v.unit}});
  append("");
}

void JsonReporter::run_finished(const core::RunInfo& info, bool ok) {
  if (benchmark_open_) benchmark_finished({});
  for (const char* name : core::kEndOfRunSettings)
    if (const auto it = info.settings.find(name); it != info.settings.end())
      settings_at_end_[name] = it->second;
  complete_ = true;
  all_points_ran_ = ok;
  append("");
}

void JsonReporter::append(const std::string& body) {
  std::string tail = std::string(benchmark_open_ ? "]}" : "") +
                     "\n],\n\"notes\": " + notes_.dump() + ",\n\"summary\": " + summary_.dump() +
                     ",\n\"complete\": " + (complete_ ? "true" : "false");
  if (complete_) {
    tail += std::string(", \"all_points_ran\": ") + (all_points_ran_ ? "true" : "false");
    tail += ",\n\"settings_at_end\": " + settings_at_end_.dump();
  }
  tail += "}\n";
  const std::string text = body + tail;
  // One positioned write of the new body and the tail: the file is never half a document.
  if (!file_.write_at(text, body_end_)) {
    const int error = errno;
    // The old tail goes back where it was (space the file already has), then the length.
    file_.write_at(tail_, body_end_);
    file_.truncate(body_end_ + static_cast<long>(tail_.size()));
    file_.fail(error);
  }
  body_end_ += static_cast<long>(body.size());
  tail_ = tail;
  if (!file_.truncate(body_end_ + static_cast<long>(tail.size()))) file_.fail(errno);
  file_.commit();  // the first complete document replaces the file; later ones update it
}

MPISCOPE_REGISTER_OUTPUT_FORMAT(OutputFormat{
    "json", "Write the results as mpiscope JSON to FILE (a complete document after every row)", 10,
    [](const std::string& path) { return std::make_unique<JsonReporter>(path); }});

}  // namespace mpiscope::output
