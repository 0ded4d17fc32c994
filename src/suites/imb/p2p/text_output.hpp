// IMB-P2P's text output (current IMB's src_c/P2P/imb_p2p.c): its header block (title, uname, MPI
// version, calling sequence, the benchmarks, the lengths), per benchmark "# Benchmarking NAME"
// (the stencils with their grid) and "# #processes = P", columns " %12s" (#bytes, #repetitions,
// t[usec] with two decimals, Mbytes/sec = 10^6 bytes per second, Msg/sec without decimals), and
// its closing line.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/reporter.hpp"

namespace mpiscope::imb::p2p {

class TextReporter : public core::Reporter {
 public:
  TextReporter(std::FILE* out, std::vector<std::size_t> lengths)
      : out_(out), lengths_(std::move(lengths)) {}
  void run_started(const core::RunInfo& info) override;
  void benchmark_started(const core::BenchmarkRun& b) override;
  void row(const core::BenchmarkRun& b, const core::Measurement& m) override;
  void note(const std::string& n) override;
  void run_finished(const core::RunInfo& info, bool ok) override;

 private:
  std::FILE* out_;
  std::vector<std::size_t> lengths_;
};

}  // namespace mpiscope::imb::p2p
