#include "output/tidy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace mpiscope::output {

namespace {

// Text cells are always quoted: a '#' or ',' inside one is then data, never a comment or a split.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(const std::optional<double>& v) {
  return v ? fmt::format("{:.6g}", *v) : "";
}

std::string method_of(const core::BenchmarkRun& b) {
  const auto it = b.parameters.find("measurement");
  return b.accurate || (it != b.parameters.end() && it->second == "accurate") ? "accurate"
                                                                              : "classic";
}

// What every row of a table repeats.
TidyRow table_row(const core::BenchmarkRun& b) {
  TidyRow r;
  r.benchmark = b.name;
  r.family = b.family;
  r.mode = b.mode;
  r.method = method_of(b);
  r.processes = b.nprocs;
  r.parameters = &b.parameters;
  return r;
}

}  // namespace

TidyRun tidy_run(const core::RunInfo& info) {
  return {info.run_id > 0 ? std::to_string(info.run_id) : "", info.label,
          info.date_iso.empty() ? info.date : info.date_iso, info.suite};
}

const std::vector<std::string>& tidy_columns() {
  static const std::vector<std::string> columns = {
      "run",       "label", "date",  "suite",       "benchmark", "family", "mode", "method",
      "processes", "group", "bytes", "repetitions", "quantity",  "value",  "unit", "note"};
  return columns;
}

std::string parameter_column(const std::string& name) {
  const auto& fixed = tidy_columns();
  return std::find(fixed.begin(), fixed.end(), name) == fixed.end() ? name : "parameter_" + name;
}

std::vector<TidyRow> tidy_rows(const core::BenchmarkRun& b, const core::Measurement& m) {
  TidyRow base = table_row(b);
  if (b.sized) base.bytes = m.bytes;
  if (m.measured) base.repetitions = m.repetitions;
  base.note = m.note;
  std::vector<TidyRow> out;
  auto add = [&](const std::string& group, const std::string& quantity, double value,
                 const std::string& unit) {
    if (std::isnan(value)) return;  // not recorded by the source (an imported table)
    TidyRow r = base;
    r.group = group;
    r.quantity = quantity;
    r.value = value;
    r.unit = unit;
    out.push_back(std::move(r));
  };
  if (!m.measured) {
    out.push_back(base);
    return out;
  }
  auto times = [&](const std::string& group, const core::GroupTimes& t) {
    add(group, "t_min_us", t.t_min_us, "microseconds");
    add(group, "t_max_us", t.t_max_us, "microseconds");
    add(group, "t_avg_us", t.t_avg_us, "microseconds");
    if (t.mbytes_per_sec) add(group, "mbytes_per_sec", *t.mbytes_per_sec, "MiB/s");
  };
  times("all", {m.t_min_us, m.t_max_us, m.t_avg_us, m.mbytes_per_sec});
  if (m.defects) add("all", "defects", *m.defects, "count");
  if (m.overlap) {
    add("all", "t_pure_us", m.overlap->t_pure_us, "microseconds");
    add("all", "t_cpu_us", m.overlap->t_cpu_us, "microseconds");
    add("all", "overlap_percent", m.overlap->overlap_percent, "percent");
  }
  for (const auto& v : m.values) add("all", v.name, v.value, v.unit);
  if (b.multi && m.groups.size() > 1)
    for (std::size_t g = 0; g < m.groups.size(); ++g) times(std::to_string(g), m.groups[g]);
  return out;
}

std::vector<TidyRow> tidy_model_rows(const core::BenchmarkRun& b) {
  std::vector<TidyRow> out;
  if (!b.model) return out;
  for (const auto& region : b.model->regions) {
    TidyRow base = table_row(b);
    base.group = "model";
    base.bytes = region.first_bytes;
    base.note = "piecewise Hockney model of " + b.model->time_column;
    const auto add = [&](const char* quantity, double value, const char* unit) {
      TidyRow r = base;
      r.quantity = quantity;
      r.value = value;
      r.unit = unit;
      out.push_back(std::move(r));
    };
    add("model_alpha_us", region.alpha_us, "microseconds");
    if (region.beta_mb_per_s) add("model_beta_mb_per_s", *region.beta_mb_per_s, "MB/s");
    add("model_last_bytes", static_cast<double>(region.last_bytes), "bytes");
    add("model_error_percent", 100 * region.rms_relative_error, "percent");
  }
  return out;
}

TidyRow tidy_summary(const core::NamedValue& figure) {
  TidyRow r;
  r.group.clear();
  r.quantity = figure.name;
  r.value = figure.value;
  r.unit = figure.unit;
  return r;
}

std::string tidy_csv_header(const std::vector<std::string>& parameter_names) {
  std::string line;
  for (const auto& c : tidy_columns()) line += (line.empty() ? "" : ",") + c;
  for (const auto& p : parameter_names) line += "," + parameter_column(p);
  return line + "\n";
}

std::string tidy_csv_line(const TidyRun& run, const TidyRow& r,
                          const std::vector<std::string>& parameter_names) {
  std::string line = fmt::format(
      "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", run.run, quoted(run.label),
      quoted(run.date), quoted(run.suite), quoted(r.benchmark), quoted(r.family), quoted(r.mode),
      r.method, r.processes > 0 ? std::to_string(r.processes) : "", quoted(r.group),
      r.bytes ? std::to_string(*r.bytes) : "", r.repetitions ? std::to_string(*r.repetitions) : "",
      quoted(r.quantity), number(r.value), quoted(r.unit), quoted(r.note));
  for (const auto& p : parameter_names) {
    std::string cell;
    if (r.parameters)
      if (const auto it = r.parameters->find(p); it != r.parameters->end())
        cell = quoted(it->second);
    line += "," + cell;
  }
  return line + "\n";
}

nlohmann::json tidy_json(const TidyRun& run, const TidyRow& r) {
  nlohmann::json j = {
      {"run", run.run.empty() ? nlohmann::json() : nlohmann::json(std::stoll(run.run))},
      {"label", run.label},
      {"date", run.date},
      {"suite", run.suite},
      {"benchmark", r.benchmark},
      {"family", r.family},
      {"mode", r.mode},
      {"method", r.method},
      {"processes", r.processes > 0 ? nlohmann::json(r.processes) : nlohmann::json()},
      {"group", r.group},
      {"bytes", r.bytes ? nlohmann::json(*r.bytes) : nlohmann::json()},
      {"repetitions", r.repetitions ? nlohmann::json(*r.repetitions) : nlohmann::json()},
      {"quantity", r.quantity},
      {"value", r.value ? nlohmann::json(*r.value) : nlohmann::json()},
      {"unit", r.unit},
      {"note", r.note}};
  if (r.parameters)
    for (const auto& [name, value] : *r.parameters) j[parameter_column(name)] = value;
  return j;
}

}  // namespace mpiscope::output
