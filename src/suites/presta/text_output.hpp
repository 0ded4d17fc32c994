// PRESTA's readable output: a table per direction and process count (com, laten, rma), the
// sample lists of allred, one table of globalop's loops, and the run's figures after them. In
// accurate mode the tables show each point's median repetition, its 95 % interval and the valid
// and invalid repetition counts, and the figures come from the median.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "output/text_table.hpp"

namespace mpiscope::presta {

class TextReporter : public core::Reporter {
 public:
  TextReporter(std::FILE* out, bool print_pairs) : out_(out), print_pairs_(print_pairs) {}
  void run_started(const core::RunInfo& info) override;
  void benchmark_started(const core::BenchmarkRun& b) override;
  void row(const core::BenchmarkRun& b, const core::Measurement& m) override;
  void benchmark_finished(const core::BenchmarkRun& b) override;
  void note(const std::string& text) override;
  void summary(const core::NamedValue& v) override;
  void run_finished(const core::RunInfo& info, bool ok) override;

 private:
  void flush_globalop();
  std::FILE* out_;
  bool print_pairs_;
  bool summary_started_ = false;
  std::unique_ptr<output::TextTable> table_, globalop_;
  std::string ops_, loop_iterations_;  // the Ops and Iterations columns (from the settings)
  std::vector<std::string> notes_;     // under the table: warnings about measured rows
};

}  // namespace mpiscope::presta
