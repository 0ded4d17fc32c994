#pragma once

#include <cstdio>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "output/files.hpp"
#include "output/tidy.hpp"

namespace mpiscope::output {

// The run in the long layout of output/tidy.hpp (the layout of `mpiscope export --format csv`):
// '#' lines with the run's metadata, a header, then one line per measured quantity, flushed as
// soon as it is measured (every flush checked). Each table parameter is a column of its own; a
// table that brings a parameter not seen before rewrites the file with the new column. The file
// is written under a fresh name and renamed over the path once its header is complete
// (ReplacementFile): until the run has started, an existing file stays as it was.
class CsvReporter : public core::Reporter {
 public:
  explicit CsvReporter(const std::string& path);
  void run_started(const core::RunInfo&) override;
  void row(const core::BenchmarkRun&, const core::Measurement&) override;
  void benchmark_finished(const core::BenchmarkRun&) override;  // the curve's model
  void summary(const core::NamedValue&) override;

 private:
  void add_line(const TidyRow& row);
  // The table's parameters as the database stores them, kept; a new one adds its columns.
  const std::map<std::string, std::string>& table_parameters(const core::BenchmarkRun& b);
  // The metadata, the header and every line so far, from the start of the file.
  void rewrite();
  ReplacementFile out_;
  std::FILE* file_;  // out_'s stream
  std::string metadata_;
  TidyRun run_;
  std::vector<std::string> parameters_;                    // the parameter columns, sorted
  std::deque<std::map<std::string, std::string>> tables_;  // each table's parameters, kept
  std::vector<TidyRow> lines_;  // every line written (their parameters point into tables_)
};

}  // namespace mpiscope::output
