// `mpiscope map`'s readable output on stdout, written from the result model: the run header,
// one line per pair (up to kMaxPairLines), the host × host medians, the intra- and inter-host
// distributions and the flagged outliers (the notes).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/reporter.hpp"

namespace mpiscope::map {

inline constexpr std::size_t kMaxPairLines = 512;

class TextReporter : public core::Reporter {
 public:
  explicit TextReporter(std::FILE* out) : out_(out) {}
  void run_started(const core::RunInfo& info) override;
  void row(const core::BenchmarkRun& b, const core::Measurement& m) override;
  void note(const std::string& text) override { notes_.push_back(text); }
  void summary(const core::NamedValue& v) override { summaries_.push_back(v); }
  void run_finished(const core::RunInfo& info, bool ok) override;

 private:
  struct Pair {
    int a = 0, b = 0;
    std::string host_a, host_b, link, flag;
    double latency_us = 0, bandwidth_mbs = 0;
  };
  Pair& pair_of(const core::BenchmarkRun& b);
  std::FILE* out_;
  std::vector<Pair> pairs_;
  std::vector<std::string> notes_;
  std::vector<core::NamedValue> summaries_;
};

}  // namespace mpiscope::map
