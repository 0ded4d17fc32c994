#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/reporter.hpp"

namespace mpiscope::output {

// Everything the result model holds, as one JSON document (format described in docs/output.md).
// The file is rewritten after every row, so an interrupted run keeps all finished measurements.
class JsonReporter : public core::Reporter {
 public:
  explicit JsonReporter(std::string path);
  void run_started(const core::RunInfo&) override;
  void benchmark_started(const core::BenchmarkRun&) override;
  void row(const core::BenchmarkRun&, const core::Measurement&) override;
  void note(const std::string&) override;
  void summary(const core::NamedValue&) override;
  void run_finished(const core::RunInfo&, bool ok) override;

  static nlohmann::json run_info(const core::RunInfo&);
  static nlohmann::json measurement(const core::Measurement&);
  static nlohmann::json units();

 private:
  void flush();
  std::string path_;
  nlohmann::json doc_;
};

}  // namespace mpiscope::output
