#pragma once

#include <cstdio>
#include <set>
#include <string>

#include "core/reporter.hpp"

namespace mpiscope::output {

// IMB-style text tables on a stream (stdout for the IMB front ends).
class ImbTextReporter : public core::Reporter {
 public:
  // imb_version: whose tables these are in the banner ("3.1"; IMB-NBC: current IMB's "2021").
  ImbTextReporter(std::FILE* out, std::string part_title, std::string imb_version = "3.1");
  void run_started(const core::RunInfo&) override;
  void benchmark_started(const core::BenchmarkRun&) override;
  void row(const core::BenchmarkRun&, const core::Measurement&) override;
  void benchmark_finished(const core::BenchmarkRun&) override;
  void note(const std::string&) override;
  void run_finished(const core::RunInfo&, bool ok) override;

 private:
  std::FILE* out_;
  std::string part_;
  std::string imb_version_;
  std::set<std::string> failed_benchmarks_;  // -check found defects in them
};

}  // namespace mpiscope::output
