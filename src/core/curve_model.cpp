#include "core/curve_model.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mpiscope::core {

namespace {

constexpr double kNoiseFloor = 0.05;  // relative error a measurement is not asked to beat
constexpr double kPoorFit = 0.15;     // above it, the text says the model is a rough guide

struct Line {
  double alpha = 0, slope = 0;  // t = alpha + slope * X, both >= 0
  double cost = 0;              // sum of squared relative errors
};

// Weighted least squares (weights 1/t^2: relative errors) of points[i..j], with alpha and slope
// kept non-negative: a negative one is refitted with it at zero.
Line fit_line(const std::vector<CurvePoint>& p, std::size_t i, std::size_t j) {
  double s = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t k = i; k <= j; ++k) {
    const double w = 1.0 / (p[k].time_us * p[k].time_us);
    s += w;
    sx += w * p[k].bytes;
    sy += w * p[k].time_us;
    sxx += w * p[k].bytes * p[k].bytes;
    sxy += w * p[k].bytes * p[k].time_us;
  }
  Line l;
  const double det = s * sxx - sx * sx;
  if (det > 0) {
    l.slope = (s * sxy - sx * sy) / det;
    l.alpha = (sy - l.slope * sx) / s;
  }
  if (det <= 0 || l.slope < 0) {
    l.slope = 0;
    l.alpha = sy / s;
  } else if (l.alpha < 0) {
    l.alpha = 0;
    l.slope = sxy / sxx;
  }
  for (std::size_t k = i; k <= j; ++k) {
    const double e = (p[k].time_us - l.alpha - l.slope * p[k].bytes) / p[k].time_us;
    l.cost += e * e;
  }
  return l;
}

// The time the suite prints, where it records one (OSU's mean latency), else the row's.
double printed_time_us(const Measurement& m) {
  const NamedValue* printed = m.value("headline_us");
  return printed ? printed->value : m.headline_us();
}

}  // namespace

std::optional<CurveModel> fit_piecewise_hockney(std::vector<CurvePoint> points, int max_regions) {
  std::erase_if(points, [](const CurvePoint& q) {
    return !(q.time_us > 0) || !std::isfinite(q.time_us) || q.bytes < 0;
  });
  std::sort(points.begin(), points.end(),
            [](const CurvePoint& a, const CurvePoint& b) { return a.bytes < b.bytes; });
  // One point per length (a repeated length would make a region of one length look like more).
  points.erase(
      std::unique(points.begin(), points.end(),
                  [](const CurvePoint& a, const CurvePoint& b) { return a.bytes == b.bytes; }),
      points.end());
  const auto n = points.size();
  constexpr auto kMin = static_cast<std::size_t>(kMinRegionPoints);
  if (n < 2 * kMin) return std::nullopt;
  const auto regions_possible = static_cast<int>(n / kMin);
  max_regions = std::clamp(max_regions, 1, regions_possible);

  // cost[k][j]: the least total cost of points[0..j] in k+1 regions; from[k][j]: where its last
  // region starts.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const auto regions = static_cast<std::size_t>(max_regions);
  std::vector<std::vector<double>> cost(regions, std::vector<double>(n, kInf));
  std::vector<std::vector<std::size_t>> from(regions, std::vector<std::size_t>(n, 0));
  for (std::size_t j = kMin - 1; j < n; ++j) cost[0][j] = fit_line(points, 0, j).cost;
  for (std::size_t k = 1; k < regions; ++k)
    for (std::size_t j = (k + 1) * kMin - 1; j < n; ++j)
      for (std::size_t i = k * kMin; i + kMin - 1 <= j; ++i) {
        if (cost[k - 1][i - 1] == kInf) continue;
        const double c = cost[k - 1][i - 1] + fit_line(points, i, j).cost;
        if (c < cost[k][j]) {
          cost[k][j] = c;
          from[k][j] = i;
        }
      }

  // The Bayesian information criterion of k+1 regions: 2 parameters per region, k breakpoints.
  const double nd = static_cast<double>(n);
  std::size_t best = 0;
  double best_bic = kInf;
  for (std::size_t k = 0; k < regions; ++k) {
    if (cost[k][n - 1] == kInf) continue;
    const double rss = std::max(cost[k][n - 1], nd * kNoiseFloor * kNoiseFloor);
    const double bic = nd * std::log(rss / nd) + static_cast<double>(3 * k + 2) * std::log(nd);
    if (bic < best_bic) {
      best_bic = bic;
      best = k;
    }
  }

  std::vector<std::size_t> starts;
  for (std::size_t k = best, j = n - 1; k > 0; --k) {
    starts.push_back(from[k][j]);
    j = from[k][j] - 1;
  }
  starts.push_back(0);
  std::reverse(starts.begin(), starts.end());

  CurveModel model;
  double total = 0;
  for (std::size_t r = 0; r < starts.size(); ++r) {
    const std::size_t i = starts[r], j = r + 1 < starts.size() ? starts[r + 1] - 1 : n - 1;
    const Line l = fit_line(points, i, j);
    ProtocolRegion region;
    region.first_bytes = static_cast<std::size_t>(points[i].bytes);
    region.last_bytes = static_cast<std::size_t>(points[j].bytes);
    region.points = static_cast<int>(j - i + 1);
    region.alpha_us = l.alpha;
    if (l.slope > 0) region.beta_mb_per_s = 1.0 / l.slope;  // bytes per us = 10^6 bytes/s
    region.rms_relative_error = std::sqrt(l.cost / static_cast<double>(j - i + 1));
    model.regions.push_back(region);
    total += l.cost;
  }
  model.rms_relative_error = std::sqrt(total / nd);
  return model;
}

std::optional<CurveModel> model_of(const BenchmarkRun& run) {
  // SKaMPI's "ping-pong" pattern (its types 1 to 9 and 34): a message and its answer between two
  // ranks, timed as one, as IMB's PingPong.
  const bool point_to_point = run.family == "single_transfer" ||
                              run.family == "parallel_transfer" || run.family == "ping-pong";
  if (!point_to_point || !run.sized || run.message_rate || run.multi || run.overlap)
    return std::nullopt;
  std::vector<CurvePoint> points;
  // SKaMPI's rows hold its t (the cut mean less the empty measurement) as t_max.
  std::string column = run.accurate ? "median" : run.family == "ping-pong" ? "t" : "t_max";
  for (const auto& m : run.rows)
    if (m.measured) {
      double t = printed_time_us(m);
      if (m.value("headline_us") != nullptr) {
        column = "the time printed";
      } else if (!std::isfinite(t) && std::isfinite(m.t_avg_us)) {
        t = m.t_avg_us;  // an imported OSU table: its file gives the mean alone
        column = "t_avg";
      }
      points.push_back({.bytes = static_cast<double>(m.bytes), .time_us = t});
    }
  auto model = fit_piecewise_hockney(std::move(points));
  if (model) model->time_column = column;
  return model;
}

std::vector<std::string> model_lines(const CurveModel& model, const BenchmarkRun& run) {
  std::vector<std::string> lines;
  lines.push_back(
      fmt::format("{} ({} processes): {} region{}, fit error {:.1f} % (rms, relative, "
                  "of {})",
                  run.name, run.nprocs, model.regions.size(), model.regions.size() == 1 ? "" : "s",
                  100 * model.rms_relative_error, model.time_column));
  for (const auto& r : model.regions)
    lines.push_back(fmt::format(
        "  X = {} ... {} bytes: alpha {:.3g} us, beta {}, error {:.1f} %", r.first_bytes,
        r.last_bytes, r.alpha_us,
        r.beta_mb_per_s ? fmt::format("{:.0f} MB/s", *r.beta_mb_per_s) : std::string("none (flat)"),
        100 * r.rms_relative_error));
  // Beside a busy neighbour a PingPong's 8 KiB point read 49 us between 5 and 12: no line
  // describes such a curve, and the regions found in it are no finding.
  if (model.rms_relative_error > kPoorFit)
    lines.push_back(fmt::format(
        "  poor fit (error above {:.0f} %): the curve is noisy or not of this form; its regions "
        "and switches are a rough guide only",
        100 * kPoorFit));
  for (std::size_t i = 1; i < model.regions.size(); ++i) {
    const auto& before = model.regions[i - 1];
    const auto& after = model.regions[i];
    // The times measured at the two lengths either side of the switch.
    double t_before = 0, t_after = 0;
    for (const auto& m : run.rows)
      if (m.measured && m.bytes == before.last_bytes)
        t_before = printed_time_us(m);
      else if (m.measured && m.bytes == after.first_bytes)
        t_after = printed_time_us(m);
    lines.push_back(fmt::format("  switch between {} and {} bytes: t {:.3g} -> {:.3g} us",
                                before.last_bytes, after.first_bytes, t_before, t_after));
  }
  return lines;
}

std::string model_to_json(const CurveModel& model) {
  using nlohmann::json;
  json regions = json::array();
  for (const auto& r : model.regions)
    regions.push_back({{"first_bytes", r.first_bytes},
                       {"last_bytes", r.last_bytes},
                       {"points", r.points},
                       {"alpha_us", r.alpha_us},
                       {"beta_mb_per_s", r.beta_mb_per_s ? json(*r.beta_mb_per_s) : json()},
                       {"rms_relative_error", r.rms_relative_error}});
  return json{{"kind", "piecewise_hockney"},
              {"time_column", model.time_column},
              {"rms_relative_error", model.rms_relative_error},
              {"regions", regions}}
      .dump();
}

CurveModel model_from_json(const std::string& text) {
  const auto j = nlohmann::json::parse(text);
  CurveModel model;
  model.time_column = j.at("time_column").get<std::string>();
  model.rms_relative_error = j.at("rms_relative_error").get<double>();
  for (const auto& r : j.at("regions")) {
    ProtocolRegion region;
    region.first_bytes = r.at("first_bytes").get<std::size_t>();
    region.last_bytes = r.at("last_bytes").get<std::size_t>();
    region.points = r.at("points").get<int>();
    region.alpha_us = r.at("alpha_us").get<double>();
    if (!r.at("beta_mb_per_s").is_null())
      region.beta_mb_per_s = r.at("beta_mb_per_s").get<double>();
    region.rms_relative_error = r.at("rms_relative_error").get<double>();
    model.regions.push_back(region);
  }
  return model;
}

}  // namespace mpiscope::core
