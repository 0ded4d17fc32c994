// PRESTA's readable output: a table per direction and process count (com, rma), laten's single
// Processes / Max Latency table, the sample lists of allred, one table of globalop's loops. After
// them PRESTA 1.1's own lines under its own names ("Max Unidirectional Bandwith", allred's "Op
// mean", the "Test Parameters" block, "MPI_Wtime overhead", …), so that scripts written for
// PRESTA keep finding them; then, under a heading of their own, mpiscope's further figures.
// PRESTA's columns come first in every table, mpiscope's after them. In accurate mode the tables
// also show each point's median repetition, its 95 % interval and the valid and invalid
// repetition counts, and the figures come from the median.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
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
  void print_pairs(const core::BenchmarkRun& b);
  void flush_spanning();
  // The run's figure `name`, marked as printed (PRESTA's lines), or nothing.
  std::optional<double> take(const std::string& name);
  void print_pair_test_lines(const core::RunInfo& info);
  void print_allred_lines(const core::RunInfo& info);
  void print_timer_lines(const core::RunInfo& info);

  std::FILE* out_;
  bool print_pairs_;
  std::string test_;  // com, laten, rma, allred, globalop
  // com and rma: one table per direction and step; laten and globalop: one table spanning the
  // run (`spanning_`), printed when the run's figures start.
  std::unique_ptr<output::TextTable> table_, spanning_;
  std::string ops_, loop_iterations_;  // the Ops and Iterations columns (from the settings)
  std::vector<std::string> notes_;     // under the table: warnings about measured rows
  struct Figure {
    core::NamedValue value;
    bool printed = false;
  };
  std::vector<Figure> figures_;  // the run's figures, printed by run_finished
};

}  // namespace mpiscope::presta
