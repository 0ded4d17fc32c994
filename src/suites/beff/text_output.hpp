// b_eff's readable output on stdout: the run header, one protocol table per pattern (every
// length, every method), then b_eff.c's per-pattern summary (latency, bandwidth per process at
// every fourth length, the average over the lengths; the log_avg rows of the rings, the random
// patterns and both) and the summary with the columns of Table 1, the latencies and the
// balance factor.
// Everything it prints comes from the result model, so the JSON carries the same figures. In
// accurate mode each method's columns are the bandwidth of the median iteration, the relative
// half-width of the median's 95 % interval and the valid and invalid repetition counts.
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
  void print_pattern_summary();
  std::FILE* out_;
  // The pattern being collected: its methods in order and, per length, each method's cells.
  std::string pattern_, heading_;
  std::vector<std::string> methods_;
  std::vector<std::size_t> lengths_;
  struct Cell {
    double bandwidth = 0;
    int loops = 0;          // classic: the looplength of the best repetition
    double ci_percent = 0;  // accurate: the interval's half-width relative to the median, in %
    int valid = 0, invalid = 0;
    bool measured = false;
  };
  bool accurate_ = false;  // the pattern's tables are accurate-mode tables
  std::map<std::size_t, std::map<std::string, Cell>> cells_;
  std::vector<std::string> notes_;  // under the pattern's table
  std::map<std::string, std::string> kinds_;
  std::vector<std::string> pattern_order_;
  std::map<std::string, double> averages_, at_lmax_, latencies_;
  std::map<std::string, std::map<std::size_t, double>> best_;  // pattern -> length -> best MB/s
  // The log_avg rows by length (accumulated MB/s): "ring_logavg_at", "random_logavg_at",
  // "b_eff_at".
  std::map<std::string, std::map<std::size_t, double>> by_length_;
  std::vector<std::size_t> all_lengths_;
  int processes_ = 0;
  std::vector<core::NamedValue> figures_;
};

}  // namespace mpiscope::beff
