#pragma once

#include <cstdio>
#include <string>

#include "core/reporter.hpp"
#include "output/files.hpp"

namespace mpiscope::output {

// One line per table row (per group under -multi 1 as well), preceded by '#' lines with the run
// metadata and units. Each line is flushed as soon as it is measured, and every flush is checked.
// The file is written under a fresh name and renamed over the path once its header is complete
// (ReplacementFile): until the run has started, an existing file stays as it was.
class CsvReporter : public core::Reporter {
 public:
  explicit CsvReporter(const std::string& path);
  void run_started(const core::RunInfo&) override;
  void row(const core::BenchmarkRun&, const core::Measurement&) override;
  void summary(const core::NamedValue&) override;  // a "# summary:" line

 private:
  ReplacementFile out_;
  std::FILE* file_;  // out_'s stream
  std::string suite_;
};

}  // namespace mpiscope::output
