#include "suites/skampi/measure.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace mpiscope::skampi {

std::vector<double> cut_quantile(std::vector<double> samples, double q) {
  std::sort(samples.begin(), samples.end());
  const auto drop = static_cast<std::size_t>(std::floor(q * static_cast<double>(samples.size())));
  if (2 * drop >= samples.size()) return samples;  // nothing would be left: keep all
  return {samples.begin() + static_cast<long>(drop), samples.end() - static_cast<long>(drop)};
}

SampleStats stats_after_cut(const std::vector<double>& samples, double q) {
  SampleStats s;
  const auto kept = cut_quantile(samples, q);
  if (kept.empty()) return s;
  s.n = static_cast<int>(kept.size());
  s.mean = std::accumulate(kept.begin(), kept.end(), 0.0) / s.n;
  double sq = 0;
  for (double x : kept) sq += (x - s.mean) * (x - s.mean);
  s.sigma = std::sqrt(sq / s.n);
  s.standard_error = s.sigma / std::sqrt(static_cast<double>(s.n));
  s.min = kept.front();
  s.max = kept.back();
  return s;
}

bool may_stop(const std::vector<double>& samples, const StoppingRule& rule) {
  const int n = static_cast<int>(samples.size());
  if (n >= rule.max_repetition) return true;
  if (n < rule.min_repetition) return false;
  const double total = std::accumulate(samples.begin(), samples.end(), 0.0);
  if (rule.time_limit > 0 && total >= rule.time_limit) return true;
  if (total < rule.wtick / rule.epsilon) return false;
  const auto s = stats_after_cut(samples, rule.cut_quantile);
  if (s.mean <= 0) return s.sigma == 0;
  return s.standard_error / s.mean < rule.epsilon;
}

PointMeasurement measure_point(const std::function<double()>& sample, const StoppingRule& rule,
                               const std::function<bool(bool)>& agree) {
  PointMeasurement p;
  while (true) {
    p.samples.push_back(sample());
    bool stop = may_stop(p.samples, rule);
    if (agree) stop = agree(stop);
    if (stop) break;
  }
  p.stats = stats_after_cut(p.samples, rule.cut_quantile);
  p.converged =
      p.stats.mean > 0 ? p.stats.standard_error / p.stats.mean < rule.epsilon : p.stats.sigma == 0;
  return p;
}

namespace {
long round_to(double m, long multiple) {
  return static_cast<long>(std::llround(m / static_cast<double>(multiple))) * multiple;
}
void sorted_unique(std::vector<long>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}
}  // namespace

std::vector<long> geometric_grid(long m_min, long m_max, double gamma, long multiple) {
  if (gamma <= 1) throw std::invalid_argument("geometric grid needs a stepwidth > 1");
  std::vector<long> g;
  double m = static_cast<double>(m_min);
  if (m_min == 0) {
    g.push_back(0);
    m = static_cast<double>(multiple);
  }
  for (; m < static_cast<double>(m_max); m *= gamma) {
    const long r = std::max(round_to(m, multiple), m_min);
    if (r < m_max) g.push_back(r);
  }
  g.push_back(m_max);
  sorted_unique(g);
  return g;
}

std::vector<long> linear_grid(long m_min, long m_max, long step, long multiple) {
  std::vector<long> g;
  for (long m = m_min; m < m_max; m += std::max(step, 1L))
    g.push_back(round_to(static_cast<double>(m), multiple));
  g.push_back(m_max);
  sorted_unique(g);
  return g;
}

std::vector<long> bounded_grid(const std::vector<long>& grid, int max_points) {
  const std::size_t n = grid.size(), keep = static_cast<std::size_t>(std::max(max_points, 1));
  if (n <= keep) return grid;
  if (keep == 1) return {grid.front()};
  // Index i*(n-1)/(keep-1), rounded: distinct, as the step exceeds 1 when n > keep.
  std::vector<long> g;
  for (std::size_t i = 0; i < keep; ++i)
    g.push_back(grid[(i * (n - 1) + (keep - 1) / 2) / (keep - 1)]);
  return g;
}

double segment_error(const std::vector<CurvePoint>& p, std::size_t i) {
  const auto& b = p[i];
  const auto& c = p[i + 1];
  double e = std::numeric_limits<double>::infinity();
  bool any = false;
  if (b.m > 0) {
    e = static_cast<double>(c.m - b.m) / static_cast<double>(b.m);
    any = true;
  }
  // Δ1: the right neighbour (c, d) extrapolated back to m_b.
  if (i + 2 < p.size()) {
    const auto& d = p[i + 2];
    const double slope = (d.t - c.t) / static_cast<double>(d.m - c.m);
    const double predicted = c.t - slope * static_cast<double>(c.m - b.m);
    e = std::min(e, std::abs(b.t - predicted) / std::abs(b.t));
    any = true;
  }
  // Δ2: the left neighbour (a, b) extrapolated forward to m_c.
  if (i >= 1) {
    const auto& a = p[i - 1];
    const double slope = (b.t - a.t) / static_cast<double>(b.m - a.m);
    const double predicted = b.t + slope * static_cast<double>(c.m - b.m);
    e = std::min(e, std::abs(c.t - predicted) / std::abs(c.t));
    any = true;
  }
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

RefinementResult refine(const std::vector<long>& grid, const std::function<double(long)>& measure,
                        const RefinementLimits& lim) {
  RefinementResult r;
  auto add = [&](long m) {
    const double t = measure(m);
    r.order.push_back(m);
    const auto at = std::lower_bound(r.points.begin(), r.points.end(), m,
                                     [](const CurvePoint& p, long x) { return p.m < x; });
    r.points.insert(at, CurvePoint{m, t});
  };
  // The initial grid is always measured whole (unless Time_Suite runs out); max_points then
  // bounds the refinement.
  for (long m : grid) {
    if (lim.out_of_time && lim.out_of_time()) break;
    add(m);
  }
  while (true) {
    // The splittable segment with the largest error; segments wider than max_distance rank
    // after every segment above ε but before those that are accurate enough.
    double best = -1, max_error = 0;
    long best_split = 0;
    for (std::size_t i = 0; i + 1 < r.points.size(); ++i) {
      const long s = split_point(r.points[i].m, r.points[i + 1].m, lim.multiple, lim.min_distance);
      if (s == 0) continue;
      const double e = segment_error(r.points, i);
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
    if (lim.out_of_time && lim.out_of_time()) break;
    add(best_split);
  }
  return r;
}

}  // namespace mpiscope::skampi
