#include "output/csv_reporter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>

#include "db/results_db.hpp"
#include "output/registry.hpp"

namespace mpiscope::output {

CsvReporter::CsvReporter(const std::string& path) : out_(path), file_(out_.stream()) {}

void CsvReporter::run_started(const core::RunInfo& i) {
  run_ = tidy_run(i);
  std::string cmd;
  for (const auto& a : i.command_line) cmd += (cmd.empty() ? "" : " ") + a;
  std::string hosts;
  for (const auto& [h, n] : i.ranks_per_host)
    hosts += fmt::format("{}{}={}", hosts.empty() ? "" : ";", h, n);
  metadata_ = fmt::format("# mpiscope {} ({})\n", i.mpiscope_version, i.mpiscope_commit);
  metadata_ +=
      fmt::format("# date: {}\n# hosts: {}\n# world_size: {}\n", i.date_iso, hosts, i.world_size);
  metadata_ +=
      fmt::format("# mpi_library: {}\n", i.mpi_library.substr(0, i.mpi_library.find('\n')));
  metadata_ += fmt::format("# command_line: {}\n", cmd);
  metadata_ +=
      "# one measured quantity per line, its unit in the unit column; each table parameter is a "
      "column (pandas: read_csv(FILE, comment='#'))\n";
  rewrite();
  out_.commit();
}

void CsvReporter::rewrite() {
  out_.flush();
  if (!out_.truncate(0)) out_.fail(errno);
  std::rewind(file_);
  std::fputs(metadata_.c_str(), file_);
  std::fputs(tidy_csv_header(parameters_).c_str(), file_);
  for (const auto& line : lines_) std::fputs(tidy_csv_line(run_, line, parameters_).c_str(), file_);
  out_.flush();
}

void CsvReporter::add_line(const TidyRow& row) {
  lines_.push_back(row);
  std::fputs(tidy_csv_line(run_, row, parameters_).c_str(), file_);
}

const std::map<std::string, std::string>& CsvReporter::table_parameters(
    const core::BenchmarkRun& b) {
  const auto parameters = db::parameters_as_stored(b);
  if (tables_.empty() || tables_.back() != parameters) tables_.push_back(parameters);
  bool new_column = false;
  for (const auto& [name, value] : parameters)
    if (const auto at = std::lower_bound(parameters_.begin(), parameters_.end(), name);
        at == parameters_.end() || *at != name) {
      parameters_.insert(at, name);  // sorted, as `mpiscope export` orders them
      new_column = true;
    }
  if (new_column) rewrite();
  return tables_.back();
}

void CsvReporter::row(const core::BenchmarkRun& b, const core::Measurement& m) {
  // The database's view of the row: accurate mode's statistics become quantities.
  const auto& parameters = table_parameters(b);
  for (auto r : tidy_rows(b, db::row_as_stored(m))) {
    r.parameters = &parameters;
    add_line(r);
  }
  out_.flush();
}

void CsvReporter::benchmark_finished(const core::BenchmarkRun& b) {
  if (!b.model) return;
  const auto& parameters = table_parameters(b);
  for (auto r : tidy_model_rows(b)) {
    r.parameters = &parameters;
    add_line(r);
  }
  out_.flush();
}

void CsvReporter::summary(const core::NamedValue& v) {
  add_line(tidy_summary(v));
  out_.flush();
}

MPISCOPE_REGISTER_OUTPUT_FORMAT(OutputFormat{
    "csv",
    "Write the results to FILE as CSV, one measured quantity per line (the layout of "
    "'mpiscope export'), flushed as measured",
    20, [](const std::string& path) { return std::make_unique<CsvReporter>(path); }});

}  // namespace mpiscope::output
