// The result rows of the pair tests: what PRESTA derives from the longest sample of a point, or
// in accurate mode from the median repetition.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "suites/presta/measure.hpp"
#include "suites/presta/tests.hpp"

namespace mpiscope::presta {

core::BenchmarkRun pair_benchmark(const RunContext& c, const std::string& name,
                                  const PairStep& step,
                                  std::map<std::string, std::string> parameters);

struct PairFigures {
  double volume_bytes = 0;  // bytes moved by all pairs in the sample; 0: no bandwidth
  double ops_per_rank = 1;  // operations one rank issues in the sample (op time divisor)
  int epochs = 0;           // rma: epochs in the sample
  bool latency = false;     // laten: half the round trip instead of the op time
};

// Classic: the figures from the longest rank's sample (t_max).
core::Measurement pair_row(const RunContext& c, const PairSample& s, std::size_t bytes,
                           int repetitions, const PairFigures& f);
// Accurate mode (rank 0): the point's statistics over repetitions (core::fill_accurate_row) and
// the figures from the median repetition. No per-rank times: a repetition's time is already the
// slowest rank's (or the global span).
core::Measurement accurate_pair_row(const RunContext& c, const core::AccurateResult& r,
                                    std::size_t bytes, const PairFigures& f);

// The figures of the whole run that PRESTA prints after its tables: the best bandwidth of each
// direction (Unidirectional, Bidirectional) and the message size that reached it, over every
// variant of that direction (rma: Put and Get); for rma also each variant's best (mpiscope's);
// and the ticks of the shortest sample.
class PairSummary {
 public:
  // direction: "Unidirectional" or "Bidirectional" (laten: "Latency", no bandwidth); variant:
  // the table's name ("Put Unidirectional"), the direction itself for com.
  void add(const std::string& direction, const std::string& variant, const core::Measurement& m);
  void report(const RunContext& c) const;

 private:
  struct Best {
    double bandwidth = 0;
    std::size_t bytes = 0;
  };
  void add_best(const std::string& what, double bandwidth, std::size_t bytes);
  std::map<std::string, Best> best_;
  std::vector<std::string> directions_, variants_;  // in the order they ran
  double min_sample_s_ = -1;
};

}  // namespace mpiscope::presta
