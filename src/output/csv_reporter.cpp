#include "output/csv_reporter.hpp"

#include <fmt/format.h>

namespace mpiscope::output {

namespace {
std::string csv_quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
std::string number(const std::optional<double>& v) {
  return v ? fmt::format("{:.6g}", *v) : "";
}
}  // namespace

CsvReporter::CsvReporter(const std::string& path) : out_(path), file_(out_.stream()) {}

void CsvReporter::run_started(const core::RunInfo& i) {
  suite_ = i.suite;
  std::string cmd;
  for (const auto& a : i.command_line) cmd += (cmd.empty() ? "" : " ") + a;
  std::string hosts;
  for (const auto& [h, n] : i.ranks_per_host)
    hosts += fmt::format("{}{}={}", hosts.empty() ? "" : ";", h, n);
  fmt::print(file_, "# mpiscope {} ({})\n", i.mpiscope_version, i.mpiscope_commit);
  fmt::print(file_, "# date: {}\n# hosts: {}\n# world_size: {}\n", i.date_iso, hosts, i.world_size);
  fmt::print(file_, "# mpi_library: {}\n", i.mpi_library.substr(0, i.mpi_library.find('\n')));
  fmt::print(file_, "# command_line: {}\n", cmd);
  fmt::print(file_,
             "# units: bytes in bytes; t_*_us, median_us, ci95_*_us in microseconds; "
             "mbytes_per_sec in 2^20 bytes/s; *_percent in percent; values as "
             "name=value[unit];...\n");
  fmt::print(file_,
             "suite,benchmark,family,mode,nprocs,groups,group,bytes,repetitions,t_min_us,t_max_us,"
             "t_avg_us,mbytes_per_sec,defects,measured,note,t_pure_us,t_cpu_us,overlap_percent,"
             "parameters,values,method,median_us,ci95_low_us,ci95_high_us,ci_confidence,"
             "overlap_raw_percent,overlap_error_percent,overlap_doubtful\n");
  out_.commit();
}

void CsvReporter::row(const core::BenchmarkRun& b, const core::Measurement& m) {
  std::string parameters, values;
  for (const auto& [name, value] : b.parameters)
    parameters += fmt::format("{}{}={}", parameters.empty() ? "" : ";", name, value);
  for (const auto& v : m.values)
    values += fmt::format("{}{}={:.6g}[{}]", values.empty() ? "" : ";", v.name, v.value, v.unit);
  // Accurate mode: the median and its interval over repetitions, as in the JSON (t_max_us is then
  // the slowest repetition, not a central value).
  std::string accurate = ",,,";
  if (m.accurate && m.measured) {
    const auto& s = m.accurate->summary_us;
    accurate = fmt::format("{},{},{},{}", number(s.median), number(s.median_ci.lower),
                           number(s.median_ci.upper), number(s.median_ci.confidence));
  }
  auto line = [&](const std::string& group, const core::GroupTimes& t) {
    const auto& o = m.overlap;
    fmt::print(
        file_, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
        suite_, b.name, b.family, b.mode, b.nprocs, b.groups.size(), group, m.bytes,
        m.measured ? std::to_string(m.repetitions) : "", m.measured ? number(t.t_min_us) : "",
        m.measured ? number(t.t_max_us) : "", m.measured ? number(t.t_avg_us) : "",
        number(t.mbytes_per_sec), number(m.defects), m.measured ? 1 : 0, csv_quoted(m.note),
        o ? number(o->t_pure_us) : "", o ? number(o->t_cpu_us) : "",
        o ? number(o->overlap_percent) : "", csv_quoted(parameters), csv_quoted(values),
        b.accurate ? "accurate" : "classic", accurate, o ? number(o->raw_percent) : "",
        o ? number(o->error_percent) : "", o ? (o->doubtful ? "1" : "0") : "");
  };
  line("all", {m.t_min_us, m.t_max_us, m.t_avg_us, m.mbytes_per_sec});
  if (b.multi && m.groups.size() > 1)
    for (std::size_t g = 0; g < m.groups.size(); ++g) line(std::to_string(g), m.groups[g]);
  out_.flush();
}

void CsvReporter::summary(const core::NamedValue& v) {
  fmt::print(file_, "# summary: {} = {:.6g} {}\n", v.name, v.value, v.unit);
  out_.flush();
}

}  // namespace mpiscope::output
