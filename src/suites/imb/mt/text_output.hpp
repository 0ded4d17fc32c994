// IMB-MT's text output (current IMB's MT_benchmark.h): its four-line header, and per benchmark
// "# Benchmarking NAME", "# #processes = P (threads: N)", the window where there is one, and
// columns 13 wide (figures with two decimals, cut at 13 characters as IMB's snprintf cuts them).
// #bytes is X times the threads (IMB-MT measures weak scaling), Mbytes/sec 10^6 bytes per second.
#pragma once

#include <cstdio>
#include <string>

#include "core/reporter.hpp"

namespace mpiscope::imb::mt {

struct TextStyle {
  int threads = 1;
  int window = 64;
  bool header = true;  // false: -noheader
};

class TextReporter : public core::Reporter {
 public:
  TextReporter(std::FILE* out, TextStyle style) : out_(out), style_(style) {}
  void run_started(const core::RunInfo& info) override;
  void benchmark_started(const core::BenchmarkRun& b) override;
  void row(const core::BenchmarkRun& b, const core::Measurement& m) override;
  void note(const std::string& n) override;
  void run_finished(const core::RunInfo& info, bool ok) override;

 private:
  void print_title(const core::BenchmarkRun& b, const core::Measurement& first);
  std::FILE* out_;
  TextStyle style_;
  bool titled_ = false;  // the current benchmark's title is out (IMB prints it with its first row)
};

}  // namespace mpiscope::imb::mt
