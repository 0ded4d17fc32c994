// The mpiscope JSON document of a b_eff run, in output::JsonReporter's format (built with its
// own helpers), written when a pattern's tables are complete instead of after every row:
// JsonReporter rewrites the whole file per row, which for b_eff's ~2800 protocol rows is
// quadratic (minutes of serialisation at the default settings). b_eff reports its rows only
// after the measurement, so nothing is lost by writing less often.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/reporter.hpp"

namespace mpiscope::beff {

class JsonOutput : public core::Reporter {
 public:
  explicit JsonOutput(std::string path);
  void run_started(const core::RunInfo&) override;
  void benchmark_started(const core::BenchmarkRun&) override;
  void row(const core::BenchmarkRun&, const core::Measurement&) override;
  void note(const std::string&) override;
  void summary(const core::NamedValue&) override;
  void run_finished(const core::RunInfo&, bool ok) override;

 private:
  void flush();
  std::string path_;
  nlohmann::json doc_;
  std::string last_pattern_;
};

}  // namespace mpiscope::beff
