// OSU 7.4's text output (osu_util_mpi.c print_preamble, print_only_header, print_stats and the
// programs' own row formats): the header lines, a "# Size" column 10 wide, figures 20 wide with
// two decimals, MB/s = 10^6 bytes per second.
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/reporter.hpp"
#include "suites/osu/options.hpp"

namespace mpiscope::osu {

// OSU's bandwidth in its own megabytes (10^6 bytes per second) from the model's (2^20).
double osu_megabytes_per_second(const core::Measurement& m);
// The latency OSU prints: the mean over the ranks of each rank's mean (the median in accurate
// mode).
double osu_latency_us(const core::Measurement& m);
// The bytes a message of the row moves: its size, or under -D its type's (transmit_size).
double transmit_size(const core::Measurement& m);

// OSU 7.4's -z column heading of percentile p, also the row's named value: "P50 Tail Lat(us)",
// "P90 Tail BW(MB/s)".
std::string tail_heading(int p, bool bandwidth);

class TextReporter : public core::Reporter {
 public:
  // `before_title`: lines measured before the run that OSU prints before its title (the
  // neighbourhood collectives' topology_lines).
  TextReporter(std::FILE* out, const Program& program, const Options& options, int pairs,
               std::string before_title = "")
      : out_(out),
        program_(program),
        options_(options),
        pairs_(pairs),
        before_title_(std::move(before_title)) {}
  void benchmark_started(const core::BenchmarkRun& b) override;
  void row(const core::BenchmarkRun& b, const core::Measurement& m) override;
  void note(const std::string& n) override;
  // The curve's model after the table, in comment lines (core/curve_model.hpp).
  void benchmark_finished(const core::BenchmarkRun& b) override;

 private:
  bool latency_figure() const {
    return program_.figure == Figure::kLatency || program_.figure == Figure::kCollective;
  }
  // Overall, Compute, Pure Comm. and Overlap: the non-blocking collectives, the partitioned
  // ping-pong.
  bool overlap_table() const {
    return program_.figure == Figure::kOverlap || program_.overlapped_ping_pong;
  }
  int field() const;          // FIELD_WIDTH of this program's columns
  std::string title() const;  // the lines before the first table's header
  // -V: osu_mbw_mr's MB/s per size (rows in order) and window (columns), printed as OSU's two
  // profiles once the type's last window has run.
  void print_varied_windows();
  std::vector<std::size_t> varied_sizes_;
  std::map<std::size_t, std::map<int, double>> varied_mbps_;
  std::map<std::size_t, double> varied_transmitted_;  // bytes a message of each size moved
  std::FILE* out_;
  const Program& program_;
  const Options& options_;
  int pairs_;
  std::string before_title_;
  bool title_printed_ = false;
};

}  // namespace mpiscope::osu
