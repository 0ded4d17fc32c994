#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/reporter.hpp"
#include "output/files.hpp"

namespace mpiscope::output {

// Everything the result model holds, as one JSON document (format described in docs/output.md).
// The file is a complete, valid document after every row, so an interrupted run keeps all
// finished measurements; each update writes only the new row and the short tail after it (notes,
// summary, completion flags) in one system call, so a run of thousands of rows stays linear.
// The first document is written under a fresh name and renamed over the path (ReplacementFile):
// until the run has started, an existing file stays as it was. A write that fails puts the
// previous tail back, so the file keeps the last complete document.
class JsonReporter : public core::Reporter {
 public:
  explicit JsonReporter(std::string path);
  ~JsonReporter() override;
  void run_started(const core::RunInfo&) override;
  void benchmark_started(const core::BenchmarkRun&) override;
  void row(const core::BenchmarkRun&, const core::Measurement&) override;
  void benchmark_finished(const core::BenchmarkRun&) override;
  void note(const std::string&) override;
  void summary(const core::NamedValue&) override;
  void run_finished(const core::RunInfo&, bool ok) override;

  static nlohmann::json run_info(const core::RunInfo&);
  static nlohmann::json measurement(const core::Measurement&);
  static nlohmann::json units();

 private:
  // Writes `body` at the end of the body written so far (it stays), then the tail.
  void append(const std::string& body);
  ReplacementFile file_;
  long body_end_ = 0;  // where the tail starts
  std::string tail_;   // the tail after body_end_
  bool benchmark_open_ = false, first_benchmark_ = true, first_row_ = true;
  nlohmann::json notes_ = nlohmann::json::array(), summary_ = nlohmann::json::array();
  bool complete_ = false, all_points_ran_ = false;
  nlohmann::json settings_at_end_ = nlohmann::json::object();  // core::kEndOfRunSettings
};

}  // namespace mpiscope::output
