// b_eff's readable output on stdout: the run header, one protocol table per pattern (every
// length, every method), the pattern averages and the summary with the columns of Table 1.
// Everything it prints comes from the result model, so the JSON carries the same figures.
#pragma once

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/reporter.hpp"
#include "output/text_table.hpp"

namespace mpiscope::beff {

class TextReporter : public core::Reporter {
 public:
  explicit TextReporter(std::FILE* out) : out_(out) {}
  void run_started(const core::RunInfo& info) override;
  void benchmark_started(const core::BenchmarkRun& b) override;
  void row(const core::BenchmarkRun& b, const core::Measurement& m) override;
  void summary(const core::NamedValue& v) override;
  void run_finished(const core::RunInfo& info, bool ok) override;

 private:
  void flush_pattern();
  std::FILE* out_;
  // The pattern being collected: its methods in order and, per length, each method's cells.
  std::string pattern_, heading_;
  std::vector<std::string> methods_;
  std::vector<std::size_t> lengths_;
  std::map<std::size_t, std::map<std::string, std::pair<double, int>>> cells_;
  std::map<std::string, std::string> kinds_;
  std::vector<std::string> pattern_order_;
  std::map<std::string, double> averages_, at_lmax_;
  std::vector<core::NamedValue> figures_;
};

}  // namespace mpiscope::beff
