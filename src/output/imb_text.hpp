#pragma once

#include <cstdio>
#include <set>
#include <string>

#include "core/reporter.hpp"

namespace mpiscope::output {

// Where IMB 3.1's text and current IMB's differ.
struct ImbTextStyle {
  std::string imb_version = "3.1";  // the banner's "IMB … compatible tables"
  bool decimal_megabytes = false;   // Mbytes/sec in 10^6 bytes per second (current IMB), else 2^20
  // IMB-IO as current IMB prints it: S_Write_Indv (not S_Write_indv), and its reads, which have
  // one mode, under "MODE: AGGREGATE".
  bool current_io_text = false;
  // IMB-IO's header (IMB_output.c under MPIIO): "io portion" for the lengths, and no
  // MPI_Datatype lines (its transfers are of MPI_BYTE, no reductions).
  bool io_header = false;
};

// IMB-style text tables on a stream (stdout for the IMB front ends).
class ImbTextReporter : public core::Reporter {
 public:
  ImbTextReporter(std::FILE* out, std::string part_title, ImbTextStyle style = {});
  void run_started(const core::RunInfo&) override;
  void benchmark_started(const core::BenchmarkRun&) override;
  void row(const core::BenchmarkRun&, const core::Measurement&) override;
  void benchmark_finished(const core::BenchmarkRun&) override;
  void note(const std::string&) override;
  void run_finished(const core::RunInfo&, bool ok) override;

 private:
  std::FILE* out_;
  std::string part_;
  ImbTextStyle style_;
  // The name as the tables print it (IMB-IO's file pointers capitalised in current IMB's text).
  std::string shown(const std::string& name) const;
  std::set<std::string> failed_benchmarks_;  // -check found defects in them
  std::vector<std::string> model_lines_;     // the point-to-point curves' models, for the end
};

}  // namespace mpiscope::output
