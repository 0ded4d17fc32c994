#include "suites/beff/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mpiscope::beff {

std::size_t max_message_length(double memory_per_process_bytes) {
  const double lmax = std::floor(memory_per_process_bytes / 128.0);
  return lmax >= static_cast<double>(kLmaxCap) ? kLmaxCap : static_cast<std::size_t>(lmax);
}

std::vector<std::size_t> message_lengths(std::size_t lmax) {
  if (lmax < kLastDoubling) throw std::invalid_argument("L_max below 4096 bytes");
  std::vector<std::size_t> out;
  for (std::size_t l = 1; l <= kLastDoubling; l *= 2) out.push_back(l);
  const int steps = kLengthCount - kDoublingLengths;
  const double factor = std::pow(static_cast<double>(lmax) / kLastDoubling, 1.0 / steps);
  double l = kLastDoubling;
  for (int k = 1; k < steps; ++k) {
    l *= factor;
    out.push_back(static_cast<std::size_t>(std::llround(l)));
  }
  out.push_back(lmax);  // exactly, whatever the rounding of the steps before
  return out;
}

int looplength_for(int looplength, double seconds, const LoopWindow& w) {
  if (!(seconds > 0)) return kMaxLoopLength;
  const double n = std::round(looplength * w.target_s() / seconds);
  return static_cast<int>(std::clamp(n, 1.0, static_cast<double>(kMaxLoopLength)));
}

double bandwidth_mb_s(std::size_t bytes, int messages, int looplength, double seconds) {
  return static_cast<double>(bytes) * messages * looplength / seconds / kMegabyte;
}

double logavg(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("logavg of nothing");
  double sum = 0;
  for (double v : values) {
    if (!(v > 0)) throw std::invalid_argument("logavg of a non-positive value");
    sum += std::log(v);
  }
  return std::exp(sum / static_cast<double>(values.size()));
}

double PatternBest::average() const {
  double sum = 0;
  for (double b : best_mb_s) sum += b;
  return sum / static_cast<double>(best_mb_s.size());
}

double PatternBest::latency_us() const {
  const double bandwidth = best_mb_s.empty() ? 0 : best_mb_s.front();
  return bandwidth > 0 && steps > 0 ? messages / bandwidth / steps : 0;
}

Figures compute_figures(const std::vector<PatternBest>& patterns, int processes) {
  std::vector<double> ring_avg, random_avg;
  std::vector<const PatternBest*> rings, randoms;
  for (const auto& p : patterns) {
    if (p.kind == PatternKind::Ring) {
      ring_avg.push_back(p.average());
      rings.push_back(&p);
    } else if (p.kind == PatternKind::Random) {
      random_avg.push_back(p.average());
      randoms.push_back(&p);
    }
  }
  // logavg over `group` of each pattern's best at length index li; 0 when a pattern has no
  // bandwidth there (accurate mode: no valid repetition with any method).
  const auto logavg_at = [](const std::vector<const PatternBest*>& group, std::size_t li) {
    std::vector<double> values;
    for (const auto* p : group) values.push_back(p->best_mb_s.at(li));
    const bool all_positive =
        std::all_of(values.begin(), values.end(), [](double v) { return v > 0; });
    return all_positive ? logavg(values) : 0.0;
  };
  Figures f;
  f.processes = processes;
  f.ring_logavg = logavg(ring_avg);
  f.random_logavg = logavg(random_avg);
  f.b_eff = logavg({f.ring_logavg, f.random_logavg});
  const std::size_t lengths = rings.empty() ? 0 : rings.front()->best_mb_s.size();
  for (std::size_t li = 0; li < lengths; ++li) {
    f.ring_by_length.push_back(logavg_at(rings, li));
    f.random_by_length.push_back(logavg_at(randoms, li));
    f.b_eff_by_length.push_back(logavg({f.ring_by_length.back(), f.random_by_length.back()}));
  }
  f.ring_at_lmax = f.ring_by_length.back();
  f.random_at_lmax = f.random_by_length.back();
  f.b_eff_at_lmax = f.b_eff_by_length.back();
  return f;
}

double balance_factor(double b_eff_mb_s, double rmax_gflop_s) {
  return b_eff_mb_s * kMegabyte / (rmax_gflop_s * 1e9);
}

}  // namespace mpiscope::beff
