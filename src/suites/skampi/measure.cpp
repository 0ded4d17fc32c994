#include "suites/skampi/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>

namespace mpiscope::skampi {

void CutSamples::keep(double x, int sign) {
  const double d = x - shift_;
  sum_ += sign * d;
  sum_sq_ += sign * d * d;
}

void CutSamples::add(double x) {
  if (n_ == 0) shift_ = x;
  ++n_;
  total_ += x;
  // Into the part it belongs to; what that part then holds beyond its share moves inwards.
  if (!fastest_.empty() && x < *fastest_.rbegin()) {
    fastest_.insert(x);
    const auto last = std::prev(fastest_.end());
    keep(*last, 1);
    kept_.insert(*last);
    fastest_.erase(last);
  } else if (!slowest_.empty() && x > *slowest_.begin()) {
    slowest_.insert(x);
    keep(*slowest_.begin(), 1);
    kept_.insert(*slowest_.begin());
    slowest_.erase(slowest_.begin());
  } else {
    keep(x, 1);
    kept_.insert(x);
  }
  rebalance();
}

void CutSamples::rebalance() {
  auto drop = static_cast<std::size_t>(std::floor(q_ * n_));
  if (2 * drop >= static_cast<std::size_t>(n_)) drop = 0;  // nothing would be left: keep all
  auto move = [&](std::multiset<double>& from, std::multiset<double>::iterator it,
                  std::multiset<double>& to, int sign) {
    keep(*it, sign);
    to.insert(*it);
    from.erase(it);
  };
  while (fastest_.size() > drop) move(fastest_, std::prev(fastest_.end()), kept_, 1);
  while (slowest_.size() > drop) move(slowest_, slowest_.begin(), kept_, 1);
  while (fastest_.size() < drop) move(kept_, kept_.begin(), fastest_, -1);
  while (slowest_.size() < drop) move(kept_, std::prev(kept_.end()), slowest_, -1);
}

SampleStats CutSamples::stats() const {
  SampleStats s;
  if (kept_.empty()) return s;
  s.n = static_cast<int>(kept_.size());
  const double mean_shifted = sum_ / s.n;
  s.mean = shift_ + mean_shifted;
  s.sigma = std::sqrt(std::max(0.0, sum_sq_ / s.n - mean_shifted * mean_shifted));
  s.standard_error = s.sigma / std::sqrt(static_cast<double>(s.n));
  s.min = *kept_.begin();
  s.max = *kept_.rbegin();
  return s;
}

SampleStats stats_after_cut(const std::vector<double>& samples, double q) {
  CutSamples cut(q);
  for (double x : samples) cut.add(x);
  return cut.stats();
}

bool standard_error_reached(const CutSamples& samples, const StoppingRule& rule) {
  if (samples.count() < rule.min_repetition) return false;
  if (samples.total() < rule.wtick / rule.epsilon) return false;
  const auto s = samples.stats();
  if (s.mean <= 0) return s.sigma == 0;
  return s.standard_error / s.mean < rule.epsilon;
}

bool may_stop(const CutSamples& samples, double elapsed_s, const StoppingRule& rule) {
  if (samples.count() >= rule.max_repetition) return true;
  if (rule.time_limit > 0 && elapsed_s >= rule.time_limit) return true;
  return standard_error_reached(samples, rule);
}

PointMeasurement measure_point(const std::function<double()>& sample, const StoppingRule& rule,
                               const std::function<bool(bool)>& agree) {
  PointMeasurement p;
  CutSamples cut(rule.cut_quantile);
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    const double x = sample();
    p.samples.push_back(x);
    cut.add(x);
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    bool stop = may_stop(cut, elapsed, rule);
    if (agree) stop = agree(stop);
    if (stop) break;
  }
  p.stats = cut.stats();
  p.converged = standard_error_reached(cut, rule);
  return p;
}

bool time_is_a_figure(double t, double resolution, bool takes_time) {
  return t >= 0 && (!takes_time || t >= resolution);
}

namespace {
long round_to(double m, long multiple) {
  return static_cast<long>(std::llround(m / static_cast<double>(multiple))) * multiple;
}
}  // namespace

std::vector<long> Grid::lengths() const {
  std::vector<long> v;
  for (std::uint64_t k = 0; k < size; ++k) {
    const long m = at(k);
    if (v.empty() || v.back() != m) v.push_back(m);
  }
  return v;
}

Grid geometric_grid(long m_min, long m_max, double gamma, long multiple) {
  if (gamma <= 1) throw std::invalid_argument("geometric grid needs a stepwidth > 1");
  const bool zero = m_min == 0;
  const double first = static_cast<double>(zero ? multiple : m_min);
  const double end = static_cast<double>(m_max);
  auto power = [=](std::uint64_t k) { return first * std::pow(gamma, static_cast<double>(k)); };
  // k = 0, 1, … while first·γ^k < m_max: from the logarithms, then corrected at the boundary
  // where they round the other way.
  std::uint64_t powers = 0;
  if (first < end) {
    constexpr double kMostPowers = 4e18;  // within std::uint64_t
    powers = static_cast<std::uint64_t>(
        std::min(std::ceil(std::log(end / first) / std::log(gamma)), kMostPowers));
    for (int fix = 0; fix < 4 && powers > 1 && power(powers - 1) >= end; ++fix) --powers;
    for (int fix = 0; fix < 4 && power(powers) < end; ++fix) ++powers;
  }
  const std::uint64_t offset = zero ? 1 : 0;
  Grid g;
  g.size = offset + powers + 1;
  g.at = [=](std::uint64_t k) -> long {
    if (k < offset) return 0;
    if (k - offset >= powers) return m_max;
    return std::clamp(round_to(power(k - offset), multiple), m_min, m_max);
  };
  return g;
}

Grid linear_grid(long m_min, long m_max, long step, long multiple) {
  step = std::max(step, 1L);
  // m_min + k·step < m_max for k < below.
  const std::uint64_t below =
      m_max > m_min ? static_cast<std::uint64_t>((m_max - m_min + step - 1) / step) : 0;
  Grid g;
  g.size = below + 1;
  g.at = [=](std::uint64_t k) -> long {
    if (k >= below) return m_max;
    return std::min(round_to(static_cast<double>(m_min + static_cast<long>(k) * step), multiple),
                    m_max);
  };
  return g;
}

Grid bounded_grid(const Grid& grid, int max_points) {
  const std::uint64_t n = grid.size, keep = static_cast<std::uint64_t>(std::max(max_points, 1));
  if (n <= keep) return grid;
  if (keep == 1) return {1, [grid](std::uint64_t) { return grid.at(0); }};
  // Index i·(n−1)/(keep−1), rounded, as q·i + (r·i + (keep−1)/2)/(keep−1) so that nothing
  // overflows: distinct, as the step exceeds 1 when n > keep.
  const std::uint64_t q = (n - 1) / (keep - 1), r = (n - 1) % (keep - 1);
  return {keep, [grid, q, r, keep](std::uint64_t i) {
            return grid.at(q * i + (r * i + (keep - 1) / 2) / (keep - 1));
          }};
}

double segment_error(const std::vector<CurvePoint>& p, std::size_t i) {
  const auto& b = p[i];
  const auto& c = p[i + 1];
  double e = std::numeric_limits<double>::infinity();
  bool any = false, time_term = false, time_unusable = false;
  if (b.m > 0) {
    e = static_cast<double>(c.m - b.m) / static_cast<double>(b.m);
    any = true;
  }
  // Δ1: the right neighbour (c, d) extrapolated back to m_b.
  if (i + 2 < p.size()) {
    const auto& d = p[i + 2];
    if (b.usable && c.usable && d.usable) {
      const double slope = (d.t - c.t) / static_cast<double>(d.m - c.m);
      const double predicted = c.t - slope * static_cast<double>(c.m - b.m);
      e = std::min(e, std::abs(b.t - predicted) / std::abs(b.t));
      any = time_term = true;
    } else {
      time_unusable = true;
    }
  }
  // Δ2: the left neighbour (a, b) extrapolated forward to m_c.
  if (i >= 1) {
    const auto& a = p[i - 1];
    if (a.usable && b.usable && c.usable) {
      const double slope = (b.t - a.t) / static_cast<double>(b.m - a.m);
      const double predicted = b.t + slope * static_cast<double>(c.m - b.m);
      e = std::min(e, std::abs(c.t - predicted) / std::abs(c.t));
      any = time_term = true;
    } else {
      time_unusable = true;
    }
  }
  if ((time_unusable || !(b.usable && c.usable)) && !time_term)
    return std::numeric_limits<double>::quiet_NaN();
  if (!any || std::isnan(e)) return std::numeric_limits<double>::infinity();
  return e;
}

long split_point(long m_b, long m_c, long multiple, long min_distance) {
  if (m_c - m_b < min_distance) return 0;
  const double x = m_b == 0 ? static_cast<double>(m_c) / 2
                            : std::sqrt(static_cast<double>(m_b) * static_cast<double>(m_c));
  long r = round_to(x, multiple);
  if (r <= m_b) r += multiple;
  if (r >= m_c) r -= multiple;
  if (r <= m_b || r >= m_c) return 0;
  return r;
}

RefinementResult refine(const Grid& grid, const std::function<CurvePoint(long)>& measure,
                        const RefinementLimits& lim) {
  RefinementResult r;
  auto add = [&](long m) {
    const CurvePoint point = measure(m);
    r.order.push_back(m);
    const auto at = std::lower_bound(r.points.begin(), r.points.end(), m,
                                     [](const CurvePoint& p, long x) { return p.m < x; });
    r.points.insert(at, point);
  };
  auto out_of_time = [&] { return r.out_of_time = lim.out_of_time && lim.out_of_time(); };
  // The initial grid is always measured whole (unless Time_Suite runs out); max_points then
  // bounds the refinement. Its lengths are computed one by one, a repeat skipped.
  for (std::uint64_t k = 0; k < grid.size; ++k) {
    const long m = grid.at(k);
    if (!r.order.empty() && r.order.back() == m) continue;
    if (out_of_time()) break;
    add(m);
  }
  while (true) {
    // The splittable segment with the largest error; segments wider than max_distance rank
    // after every segment above ε but before those that are accurate enough. A segment whose
    // error cannot be estimated is left as it is.
    double best = -1, max_error = 0;
    long best_split = 0;
    for (std::size_t i = 0; i + 1 < r.points.size(); ++i) {
      const long s = split_point(r.points[i].m, r.points[i + 1].m, lim.multiple, lim.min_distance);
      if (s == 0) continue;
      const double e = segment_error(r.points, i);
      if (std::isnan(e)) continue;
      max_error = std::max(max_error, e);
      double rank = e;
      if (e < lim.epsilon && lim.max_distance > 0 &&
          r.points[i + 1].m - r.points[i].m > lim.max_distance)
        rank = lim.epsilon * 0.5 + 1e-12 * static_cast<double>(r.points[i + 1].m - r.points[i].m);
      else if (e < lim.epsilon)
        continue;
      if (rank > best) {
        best = rank;
        best_split = s;
      }
    }
    r.max_error = max_error;
    r.converged = max_error < lim.epsilon;
    if (best_split == 0) break;
    if (static_cast<int>(r.points.size()) >= lim.max_points) break;
    if (out_of_time()) break;
    add(best_split);
  }
  return r;
}

}  // namespace mpiscope::skampi
