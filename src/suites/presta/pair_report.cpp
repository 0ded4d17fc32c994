#include "suites/presta/pair_report.hpp"

#include <algorithm>
#include <cctype>

namespace mpiscope::presta {

core::BenchmarkRun pair_benchmark(const RunContext& c, const std::string& name,
                                  const PairStep& step,
                                  std::map<std::string, std::string> parameters) {
  core::BenchmarkRun b;
  b.name = name;
  b.family = "presta_pair";
  b.accurate = c.accurate.has_value();
  b.nprocs = step.processes;
  b.has_throughput = c.options.test != Test::kLaten;
  b.sized = c.options.test != Test::kLaten;
  for (const auto& [x, y] : step.pairs) b.groups.push_back({x, y});
  b.inactive = c.pairing.world_size - step.processes;
  parameters["pairs"] = std::to_string(step.pairs.size());
  parameters["allocation"] = cyclic_in_effect(c.pairing) ? "cyclic" : "block";
  parameters["partnering"] = c.pairing.nearest ? "nearby rank" : "rank + size/2";
  parameters["barrier_in_sample"] = c.options.barrier ? "butterfly" : "none";
  b.parameters = std::move(parameters);
  return b;
}

namespace {

// PRESTA's figures of a sample of `seconds` (the longest rank's, or the median repetition).
void add_figures(const RunContext& c, double seconds, const PairFigures& f, core::Measurement& m) {
  if (seconds <= 0) {
    // PRESTA: "Invalid measurement. Increase number of operation per measurement."
    m.measured = false;
    m.note = "invalid measurement: the sample is shorter than MPI_Wtick; increase -o";
    return;
  }
  m.measured = true;
  if (f.volume_bytes > 0) {
    m.mbytes_per_sec = f.volume_bytes / seconds / 1048576.0;
    m.values.push_back({"bandwidth", f.volume_bytes / seconds / 1e6, kMegabytesPerSecond});
  }
  if (f.latency)
    m.values.push_back({"latency_us", seconds / f.ops_per_rank / 2 * 1e6, kMicroseconds});
  if (f.epochs > 0) m.values.push_back({"epoch_time_us", seconds / f.epochs * 1e6, kMicroseconds});
  if (!f.latency) m.values.push_back({"op_time_us", seconds / f.ops_per_rank * 1e6, kMicroseconds});
  m.values.push_back({"wtime_ticks", seconds / c.wtick_s, kTicks});
}

}  // namespace

core::Measurement pair_row(const RunContext& c, const PairSample& s, std::size_t bytes,
                           int repetitions, const PairFigures& f) {
  core::Measurement m;
  m.bytes = bytes;
  m.repetitions = repetitions;
  m.t_min_us = s.min_s * 1e6;
  m.t_max_us = s.max_s * 1e6;
  m.t_avg_us = s.avg_s * 1e6;
  for (double t : s.rank_s) m.rank_times_us.push_back(t * 1e6);
  add_figures(c, s.max_s, f, m);
  return m;
}

core::Measurement accurate_pair_row(const RunContext& c, const core::AccurateResult& r,
                                    std::size_t bytes, const PairFigures& f) {
  core::Measurement m;
  m.bytes = bytes;
  if (!core::fill_accurate_row(r, false, m)) return m;  // no valid repetition: the note says so
  const std::string fell_back = m.note;
  add_figures(c, m.accurate->summary_us.median * 1e-6, f, m);
  if (!fell_back.empty()) m.note = m.measured ? fell_back : m.note + "; " + fell_back;
  return m;
}

void PairSummary::add_best(const std::string& what, double bandwidth, std::size_t bytes) {
  Best& b = best_[what];
  if (bandwidth > b.bandwidth) b = {bandwidth, bytes};
}

void PairSummary::add(const std::string& direction, const std::string& variant,
                      const core::Measurement& m) {
  if (!m.measured) return;
  const double t = m.headline_us() / 1e6;  // the longest sample, or the median repetition
  if (min_sample_s_ < 0 || t < min_sample_s_) min_sample_s_ = t;
  const auto* bandwidth = m.value("bandwidth");
  if (!bandwidth) return;
  if (std::find(directions_.begin(), directions_.end(), direction) == directions_.end())
    directions_.push_back(direction);
  add_best(direction, bandwidth->value, m.bytes);
  if (variant == direction) return;
  if (std::find(variants_.begin(), variants_.end(), variant) == variants_.end())
    variants_.push_back(variant);
  add_best(variant, bandwidth->value, m.bytes);
}

void PairSummary::report(const RunContext& c) const {
  std::vector<std::string> order = directions_;
  order.insert(order.end(), variants_.begin(), variants_.end());
  for (const auto& what : order) {
    const Best& b = best_.at(what);
    std::string key = what;
    std::replace(key.begin(), key.end(), ' ', '_');
    std::transform(key.begin(), key.end(), key.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    c.out.summary({"max_" + key + "_bandwidth", b.bandwidth, kMegabytesPerSecond});
    c.out.summary(
        {"max_" + key + "_bandwidth_message_size", static_cast<double>(b.bytes), "bytes"});
  }
  if (min_sample_s_ >= 0)
    c.out.summary({"ticks_for_minimum_sample", min_sample_s_ / c.wtick_s, kTicks});
}

}  // namespace mpiscope::presta
