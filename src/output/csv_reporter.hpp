#pragma once

#include <cstdio>
#include <string>

#include "core/reporter.hpp"

namespace mpiscope::output {

// One line per table row (per group under -multi 1 as well), preceded by '#' lines with the run
// metadata and units. Each line is flushed as soon as it is measured.
class CsvReporter : public core::Reporter {
 public:
  explicit CsvReporter(const std::string& path);
  ~CsvReporter() override;
  void run_started(const core::RunInfo&) override;
  void row(const core::BenchmarkRun&, const core::Measurement&) override;
  void summary(const core::NamedValue&) override;  // a "# summary:" line

 private:
  std::FILE* file_ = nullptr;
  std::string suite_;
};

}  // namespace mpiscope::output
