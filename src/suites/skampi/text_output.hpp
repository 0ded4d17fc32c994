// SKaMPI's readable output on stdout: the run's settings, then a table per suite (SKaMPI's
// columns, or accurate mode's median, its 95 % interval and the valid and invalid repetitions).
// The output file (output_file.hpp) is the suite's record; this is what a person reads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "output/text_table.hpp"

namespace mpiscope::skampi {

class TextReporter : public core::Reporter {
 public:
  void run_started(const core::RunInfo& info) override;
  void benchmark_started(const core::BenchmarkRun& b) override;
  void row(const core::BenchmarkRun& b, const core::Measurement& m) override;
  void benchmark_finished(const core::BenchmarkRun& b) override;
  void note(const std::string& text) override;
  void run_finished(const core::RunInfo& info, bool ok) override;

 private:
  std::unique_ptr<output::TextTable> table_;
  std::vector<std::string> row_notes_;
  std::string pair_;  // the run's ping-pong pair (kPairSetting)
};

}  // namespace mpiscope::skampi
