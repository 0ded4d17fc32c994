#include "report/history.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "output/text_table.hpp"

namespace mpiscope::report {

namespace {

// The runs nearest a change on each side that its size is estimated from: enough for tight
// bounds, few enough that a year of nightly runs costs no more than a month.
constexpr std::size_t kRunsEachSide = 200;
// The Monte Carlo test stops once this many permutations reached the observed statistic
// (Besag and Clifford's sequential p-value, h / permutations): a segment without a change is
// settled after a few dozen permutations, one with a change takes them all.
constexpr std::size_t kExceedancesToStop = 20;

// Mid-ranks (1-based) of `v`: ties share the mean of their ranks.
std::vector<double> mid_ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> ranks(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double rank = (static_cast<double>(i + j) + 2) / 2;
    for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

// For each split k (the first k values against the rest, min_segment <= k <= n - min_segment):
// the rank sum's mean under no change and its standard deviation.
struct SplitScale {
  std::vector<double> mean, sd;
};

SplitScale split_scale(std::size_t n, std::size_t m) {
  SplitScale s;
  s.mean.assign(n + 1, 0);
  s.sd.assign(n + 1, 1);
  const double nn = static_cast<double>(n);
  for (std::size_t k = m; k + m <= n; ++k) {
    const double kk = static_cast<double>(k);
    s.mean[k] = kk * (nn + 1) / 2;
    s.sd[k] = std::sqrt(kk * (nn - kk) * (nn + 1) / 12);
  }
  return s;
}

struct BestSplit {
  std::size_t index = 0;
  double statistic = 0;
};

// The split whose standardized rank sum is largest in size.
BestSplit strongest_split(const std::vector<double>& ranks, std::size_t m,
                          const SplitScale& scale) {
  BestSplit best;
  double sum = 0;
  for (std::size_t k = 1; k + m <= ranks.size(); ++k) {
    sum += ranks[k - 1];
    if (k < m) continue;
    const double z = std::abs(sum - scale.mean[k]) / scale.sd[k];
    if (z > best.statistic) best = {k, z};
  }
  return best;
}

// Whether some split of `ranks` reaches `statistic` (stops at the first that does).
bool some_split_reaches(const std::vector<double>& ranks, std::size_t m, const SplitScale& scale,
                        double statistic) {
  double sum = 0;
  for (std::size_t k = 1; k + m <= ranks.size(); ++k) {
    sum += ranks[k - 1];
    if (k >= m && std::abs(sum - scale.mean[k]) / scale.sd[k] >= statistic) return true;
  }
  return false;
}

// SplitMix64: a small generator whose stream is the same on every machine and library.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

// The permutations drawn at most for a test at `level`: enough that a change beyond every one
// of them (p = 1 / (draws + 1)) lies well below the level.
std::size_t permutations_for(double level) {
  return static_cast<std::size_t>(std::clamp(std::ceil(20 / level), 999.0, 2e5));
}

// An upper bound on the permutation p-value of `observed` that needs no permutation: the union
// over the splits of Hoeffding's bound for a sum drawn without replacement (the first k ranks
// are k of the n ranks, each in [1, n]): P(|S_k - mean_k| >= t) <= 2 exp(-2 t^2 / (k' (n-1)^2)),
// k' the smaller side (the other side's sum is the total minus S_k). Loose, but a change of a
// few per cent over hundreds of runs lies so far out that it settles the test at once, where
// the Monte Carlo test would need all its draws for each of hundreds of series (the report).
double hoeffding_bound(std::size_t n, std::size_t m, const SplitScale& scale, double observed) {
  const double range = static_cast<double>(n) - 1;
  double bound = 0;
  for (std::size_t k = m; k + m <= n; ++k) {
    const double t = observed * scale.sd[k];
    const double side = static_cast<double>(std::min(k, n - k));
    bound += 2 * std::exp(-2 * t * t / (side * range * range));
    if (bound >= 1) return 1;
  }
  return bound;
}

double split_p_value(const std::vector<double>& ranks, std::size_t m, const SplitScale& scale,
                     double observed, double level, std::uint64_t seed) {
  if (const double bound = hoeffding_bound(ranks.size(), m, scale, observed); bound <= level)
    return bound;
  const std::size_t draws = permutations_for(level);
  SplitMix64 random{seed};
  std::vector<double> shuffled = ranks;
  std::size_t exceed = 0;
  for (std::size_t d = 1; d <= draws; ++d) {
    for (std::size_t i = shuffled.size() - 1; i > 0; --i)
      std::swap(shuffled[i], shuffled[random.below(i + 1)]);
    if (some_split_reaches(shuffled, m, scale, observed) && ++exceed == kExceedancesToStop)
      return static_cast<double>(exceed) / static_cast<double>(d);
  }
  return static_cast<double>(exceed + 1) / static_cast<double>(draws + 1);
}

// Split::spreads of `part` split before index k.
double spreads_apart(const std::vector<double>& part, std::size_t k) {
  const auto logs = logs_of(part);
  const std::vector<double> before(logs.begin(), logs.begin() + static_cast<std::ptrdiff_t>(k)),
      after(logs.begin() + static_cast<std::ptrdiff_t>(k), logs.end());
  const auto mad = [](const std::vector<double>& v, double median) {
    std::vector<double> d;
    for (double x : v) d.push_back(std::abs(x - median));
    return 1.4826 * median_of(d);
  };
  const double mb = median_of(before), ma = median_of(after);
  const double sb = mad(before, mb), sa = mad(after, ma);
  const double spread = std::max(std::sqrt((sb * sb + sa * sa) / 2), 0.01);
  return std::abs(ma - mb) / spread;
}

void split_segment(const std::vector<double>& values, std::size_t lo, std::size_t hi, double level,
                   double possible_level, std::size_t m, Segmentation& out) {
  if (hi - lo < 2 * m) return;
  const std::vector<double> part(values.begin() + static_cast<std::ptrdiff_t>(lo),
                                 values.begin() + static_cast<std::ptrdiff_t>(hi));
  const auto ranks = mid_ranks(part);
  const auto scale = split_scale(part.size(), m);
  const auto best = strongest_split(ranks, m, scale);
  if (best.statistic <= 0) return;  // every value equal
  const double p = split_p_value(ranks, m, scale, best.statistic, level,
                                 0x6d70697363ull ^ (lo * 0x100000001b3ull) ^ hi);
  if (p > level) {
    const double spreads = spreads_apart(part, best.index);
    if (p <= possible_level || spreads >= kPossibleChangeSpreads)
      out.possible.push_back({lo + best.index, p, spreads});
    return;
  }
  out.changes.push_back({lo + best.index, p, spreads_apart(part, best.index)});
  split_segment(values, lo, lo + best.index, level, possible_level, m, out);
  split_segment(values, lo + best.index, hi, level, possible_level, m, out);
}

// Hodges-Lehmann's shift of b against a and its bounds at one-sided alpha each: shift_bounds'
// exact ones for small samples, the normal approximation of the Mann-Whitney count otherwise.
struct Shift {
  double estimate = 0;
  std::optional<Interval> bounds;
};

Shift shift_of(const std::vector<double>& a, const std::vector<double>& b, double alpha) {
  std::vector<double> d;
  d.reserve(a.size() * b.size());
  for (double x : a)
    for (double y : b) d.push_back(y - x);
  std::sort(d.begin(), d.end());
  Shift s;
  const std::size_t pairs = d.size();
  s.estimate = pairs % 2 ? d[pairs / 2] : (d[pairs / 2 - 1] + d[pairs / 2]) / 2;
  if (a.size() + b.size() <= 60) {
    s.bounds = shift_bounds(a, b, alpha);
    return s;
  }
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double k = std::floor(na * nb / 2 - normal_quantile_upper(alpha) *
                                                std::sqrt(na * nb * (na + nb + 1) / 12));
  if (k >= 1) {
    const auto i = static_cast<std::size_t>(k);
    s.bounds = Interval{d[i - 1], d[pairs - i]};
  }
  return s;
}

// What a run was made with, by a readable name: compare's provenance and timing rules, and the
// MPI library and the MPI version it implements, mpiscope's version, the kernel, the hosts and
// the label.
std::map<std::string, std::string> run_description(const db::StoredRun& run,
                                                   const ProvenanceNames& n) {
  auto d = provenance_of(run, n.variables, n.control_variables);
  for (auto& [name, value] : timing_rules(run)) d[name] = value;
  if (const auto lib = short_library_name(run.info.mpi_library); !lib.empty())
    d["MPI library"] = lib;
  if (!run.info.mpiscope_version.empty())
    d["mpiscope"] = run.info.mpiscope_version +
                    (run.info.mpiscope_commit.empty() ? "" : " (" + run.info.mpiscope_commit + ")");
  if (!run.info.release.empty()) d["kernel"] = run.info.release;
  if (!run.info.mpi_version.empty()) d["MPI version"] = run.info.mpi_version;
  std::string hosts;
  for (const auto& [host, ranks] : run.info.ranks_per_host)
    hosts += (hosts.empty() ? "" : " ") + host;
  if (!hosts.empty()) d["hosts"] = hosts;
  d["label"] = run.info.label.empty() ? "none" : run.info.label;
  return d;
}

// The change's size, its segments' medians and what else changed, from the series' values.
ChangePoint change_at(const Split& split, std::size_t lo, std::size_t hi, const Series& series,
                      const std::map<std::int64_t, const db::StoredRun*>& runs,
                      const HistorySettings& settings) {
  ChangePoint c;
  c.index = split.index;
  c.p_value = split.p_value;
  c.spreads = split.spreads;
  std::vector<double> before, after;
  for (std::size_t i = lo; i < split.index; ++i) before.push_back(series.points[i].us);
  for (std::size_t i = split.index; i < hi; ++i) after.push_back(series.points[i].us);
  c.before_runs = before.size();
  c.after_runs = after.size();
  c.before_us = median_of(before);
  c.after_us = median_of(after);
  // The nearest runs on each side.
  if (before.size() > kRunsEachSide)
    before.erase(before.begin(), before.end() - static_cast<std::ptrdiff_t>(kRunsEachSide));
  if (after.size() > kRunsEachSide) after.resize(kRunsEachSide);
  const auto shift = shift_of(logs_of(before), logs_of(after), 0.025);
  c.ratio = std::exp(shift.estimate);
  if (shift.bounds) {
    c.ratio_low = std::exp(shift.bounds->low);
    c.ratio_high = std::exp(shift.bounds->high);
  }
  c.reported = std::abs(c.ratio - 1) * 100 >= settings.min_change_percent;
  const std::size_t window = settings.min_segment;
  std::vector<db::StoredRun> side_before, side_after;
  for (std::size_t i = split.index - std::min(window, split.index - lo); i < split.index; ++i)
    side_before.push_back(*runs.at(series.points[i].run));
  for (std::size_t i = split.index; i < std::min(hi, split.index + window); ++i)
    side_after.push_back(*runs.at(series.points[i].run));
  const auto names = provenance_names(side_before, side_after);
  c.changed_with_it = value_differences(
      side_before, side_after, [&](const db::StoredRun& r) { return run_description(r, names); },
      {"before", "after"});
  return c;
}

std::string percent_text(double ratio) {
  const double percent = (ratio - 1) * 100;
  return output::format_number(std::abs(percent), 1) + " % " + (percent >= 0 ? "slower" : "faster");
}

std::string row_text(const Series& s) {
  std::string text = s.table;
  if (s.sized) text += ", " + std::to_string(s.bytes) + " bytes";
  if (s.argument) text += ", argument " + output::format_number(*s.argument);
  return text;
}

}  // namespace

Segmentation segment_series(const std::vector<double>& values, double level, double possible_level,
                            std::size_t min_segment) {
  Segmentation out;
  split_segment(values, 0, values.size(), level, std::max(level, possible_level),
                std::max<std::size_t>(min_segment, 1), out);
  const auto by_index = [](const Split& a, const Split& b) { return a.index < b.index; };
  std::sort(out.changes.begin(), out.changes.end(), by_index);
  std::sort(out.possible.begin(), out.possible.end(), by_index);
  return out;
}

std::vector<Split> find_changes(const std::vector<double>& values, double level,
                                std::size_t min_segment) {
  return segment_series(values, level, level, min_segment).changes;
}

double smallest_change_p(std::size_t n, double level) {
  // log C(n, n/2), by lgamma: n is up to a few thousand.
  const double half = std::floor(static_cast<double>(n) / 2);
  const double log_c = std::lgamma(static_cast<double>(n) + 1) - std::lgamma(half + 1) -
                       std::lgamma(static_cast<double>(n) - half + 1);
  const double exact = std::min(1.0, 2 * std::exp(-log_c));
  return std::max(exact, 1 / static_cast<double>(permutations_for(level) + 1));
}

void HistoryRuns::add(db::StoredRun run) {
  with_tables += !run.benchmarks.empty();
  add_figures(figures, run);
  run.benchmarks.clear();
  run.benchmarks.shrink_to_fit();
  runs.push_back(std::move(run));
}

History history_of(const std::string& benchmark, const std::vector<db::StoredRun>& runs,
                   const HistorySettings& settings) {
  HistoryRuns light;
  for (const auto& r : runs) light.add(r);
  return history_of(benchmark, light, settings);
}

History history_of(const std::string& benchmark, const HistoryRuns& input,
                   const HistorySettings& settings) {
  History h;
  h.benchmark = benchmark;
  h.runs = input.with_tables;
  std::map<std::int64_t, const db::StoredRun*> by_id;
  std::map<std::int64_t, std::string> dates;  // read once a run, not once a point
  for (const auto& r : input.runs) {
    by_id[r.id] = &r;
    dates[r.id] = run_date_text(r.info.date_iso, r.info.date);
  }
  for (const auto& [key, modes] : input.figures.tables)
    for (const auto& [mode, table] : modes)
      for (const auto& [row, points] : table.points) {
        Series s;
        s.table = table.label;
        s.bytes = row.first;
        s.sized = table.sized;
        s.argument = row.second;
        for (const auto& p : points) {
          if (!p.not_a_figure.empty()) {
            ++s.left_out;
            continue;
          }
          s.unconverged += !p.converged;
          s.points.push_back({p.run, dates.at(p.run), p.us, p.converged});
        }
        h.series.push_back(std::move(s));
      }
  const std::size_t m = settings.min_segment;
  for (const auto& s : h.series) h.tested += s.points.size() >= 2 * m;
  h.series_level = h.tested > 0 ? settings.level / static_cast<double>(h.tested) : settings.level;
  for (auto& s : h.series) {
    if (s.points.size() < 2 * m) {
      s.cannot_tell = std::to_string(s.points.size()) + " runs: a change needs " +
                      std::to_string(m) + " on each side";
      continue;
    }
    if (smallest_change_p(s.points.size(), h.series_level) > h.series_level) {
      s.cannot_tell = std::to_string(s.points.size()) + " runs cannot show a change at level " +
                      output::format_number(h.series_level, 4) + " (" + std::to_string(h.tested) +
                      " series share " + output::format_number(settings.level, 3) + ")";
      continue;
    }
    std::vector<double> values;
    for (const auto& p : s.points) values.push_back(p.us);
    const auto found =
        segment_series(values, h.series_level, h.series_level * kPossibleChangeFactor, m);
    const auto& splits = found.changes;
    // A split's segment reaches to the changes either side of it.
    const auto segment_of = [&](std::size_t index) {
      std::size_t lo = 0, hi = s.points.size();
      for (const auto& c : splits) {
        if (c.index < index) lo = c.index;
        if (c.index > index) hi = std::min(hi, c.index);
      }
      return std::pair{lo, hi};
    };
    for (const auto& split : splits) {
      const auto [lo, hi] = segment_of(split.index);
      s.changes.push_back(change_at(split, lo, hi, s, by_id, settings));
    }
    for (const auto& split : found.possible) {
      const auto [lo, hi] = segment_of(split.index);
      s.possible.push_back(change_at(split, lo, hi, s, by_id, settings));
    }
  }
  return h;
}

namespace {
// The reported ones of a series' list (changes or possible) among its newest runs, over all series.
std::size_t recent_of(const History& h, const HistorySettings& settings,
                      std::vector<ChangePoint> Series::*list) {
  std::size_t n = 0;
  for (const auto& s : h.series)
    for (const auto& c : s.*list)
      n += c.reported && c.index + settings.recent_runs >= s.points.size();
  return n;
}
}  // namespace

std::size_t recent_changes(const History& h, const HistorySettings& settings) {
  return recent_of(h, settings, &Series::changes);
}

std::size_t recent_possible_changes(const History& h, const HistorySettings& settings) {
  return recent_of(h, settings, &Series::possible);
}

nlohmann::json change_json(const ChangePoint& c) {
  return {{"ratio", number_or_null(c.ratio)},
          {"ratio_low", number_or_null(c.ratio_low)},
          {"ratio_high", number_or_null(c.ratio_high)},
          {"p_value", c.p_value},
          {"spreads_apart", number_or_null(c.spreads)},
          {"before_median_us", c.before_us},
          {"after_median_us", c.after_us},
          {"before_runs", c.before_runs},
          {"after_runs", c.after_runs},
          {"reported", c.reported},
          {"changed_with_it", c.changed_with_it}};
}

nlohmann::json history_json(const History& h, const HistorySettings& settings) {
  using nlohmann::json;
  json series = json::array();
  for (const auto& s : h.series) {
    json points = json::array();
    for (const auto& p : s.points)
      points.push_back(
          {{"run", p.run}, {"date", p.date}, {"time_us", p.us}, {"converged", p.converged}});
    // Each change with the runs either side of it.
    const auto changes_json = [&](const std::vector<ChangePoint>& list) {
      json all = json::array();
      for (const auto& c : list) {
        json one = change_json(c);
        one["run_before"] = s.points[c.index - 1].run;
        one["run_after"] = s.points[c.index].run;
        one["date"] = s.points[c.index].date;
        all.push_back(std::move(one));
      }
      return all;
    };
    json one = {{"table", s.table},
                {"sized", s.sized},
                {"bytes", s.bytes},
                {"points", points},
                {"changes", changes_json(s.changes)},
                {"possible_changes", changes_json(s.possible)},
                {"left_out", s.left_out},
                {"unconverged", s.unconverged}};
    if (s.argument) one["argument"] = *s.argument;
    if (!s.cannot_tell.empty()) one["cannot_tell"] = s.cannot_tell;
    series.push_back(one);
  }
  return {{"benchmark", h.benchmark},
          {"runs", h.runs},
          {"method",
           {{"name", "binary segmentation, permutation test of the largest standardized rank sum"},
            {"level", settings.level},
            {"series_tested", h.tested},
            {"series_level", h.series_level},
            {"possible_change_level", h.series_level * kPossibleChangeFactor},
            {"min_segment", settings.min_segment},
            {"min_change_percent", settings.min_change_percent},
            {"recent_runs", settings.recent_runs}}},
          {"recent_changes", recent_changes(h, settings)},
          {"recent_possible_changes", recent_possible_changes(h, settings)},
          {"series", series}};
}

std::string render_history(const History& h, const HistorySettings& settings,
                           const std::string& db_path) {
  std::string out = "# mpiscope history: " + h.benchmark + " in " + std::to_string(h.runs) +
                    " runs of " + db_path + "\n";
  out +=
      "# each series: the time a run reports (median, else t_max, t_avg), in date order; a "
      "change needs " +
      std::to_string(settings.min_segment) + " runs on each side and a permutation test at " +
      output::format_number(h.series_level, 4) + " (" + output::format_number(settings.level, 3) +
      " shared by " + std::to_string(h.tested) + " series); changes below " +
      output::format_number(settings.min_change_percent, 1) + " % are counted, not shown\n";
  std::size_t quiet = 0, smaller = 0, undecided = 0, possible_only = 0;
  std::vector<const Series*> short_series;
  for (const auto& s : h.series) {
    if (!s.cannot_tell.empty()) {
      short_series.push_back(&s);
      continue;
    }
    std::size_t shown = 0, possible = 0;
    for (const auto& c : s.changes) shown += c.reported, smaller += !c.reported;
    for (const auto& c : s.possible) possible += c.reported;
    if (shown == 0 && possible == 0) {
      ++quiet;
      continue;
    }
    undecided += possible;
    possible_only += shown == 0;
    out += "\n" + row_text(s) + ": " + std::to_string(s.points.size()) + " runs from " +
           s.points.front().date + " to " + s.points.back().date + "\n";
    // Changes and possible changes in run order.
    std::vector<const ChangePoint*> listed;
    for (const auto* list : {&s.changes, &s.possible})
      for (const auto& c : *list)
        if (c.reported) listed.push_back(&c);
    std::sort(listed.begin(), listed.end(),
              [](const ChangePoint* a, const ChangePoint* b) { return a->index < b->index; });
    for (const auto* c : listed) {
      const bool established = c->p_value <= h.series_level;
      const auto& before = s.points[c->index - 1];
      const auto& after = s.points[c->index];
      out += std::string(established ? "  change" : "  possible change") + " between run " +
             std::to_string(before.run) + " (" + before.date + ") and run " +
             std::to_string(after.run) + " (" + after.date + "): " + percent_text(c->ratio) +
             ", after/before " + output::format_number(c->ratio, 3);
      if (std::isfinite(c->ratio_low))
        out += " (95 % bounds " + output::format_number(c->ratio_low, 3) + " to " +
               output::format_number(c->ratio_high, 3) + ")";
      out += "; median " + output::format_number(c->before_us) + " us over " +
             std::to_string(c->before_runs) + " runs before, " +
             output::format_number(c->after_us) + " us over " + std::to_string(c->after_runs) +
             " after; p " + output::format_number(c->p_value, 4) + "\n";
      if (!established) {
        out += "    cannot tell: p is above the level " + output::format_number(h.series_level, 4) +
               ", but the medians lie " + output::format_number(c->spreads, 3) +
               " times the runs' spread apart: not shown as a change, not to be called none\n";
        continue;
      }
      if (c->changed_with_it.empty())
        out +=
            "    nothing recorded changed with it (library, version, hosts, environment, "
            "rules)\n";
      for (const auto& d : c->changed_with_it) out += "    changed with it: " + d + "\n";
    }
    if (s.unconverged > 0)
      out += "  note: " + std::to_string(s.unconverged) +
             " runs' figures did not converge; each counts as measured\n";
  }
  out += "\n# " + std::to_string(h.tested) +
         " series tested: " + std::to_string(h.tested - quiet - possible_only) +
         " with a change shown, ";
  if (possible_only > 0) out += std::to_string(possible_only) + " with only a possible change, ";
  out += std::to_string(quiet) + " without";
  if (smaller > 0)
    out += "; " + std::to_string(smaller) + " smaller changes (below " +
           output::format_number(settings.min_change_percent, 1) + " %) not shown";
  out += "\n";
  if (undecided > 0)
    out += "# cannot tell: " + std::to_string(undecided) + " possible change" +
           (undecided == 1 ? "" : "s") + " of at least " +
           output::format_number(settings.min_change_percent, 1) + " % with p between " +
           output::format_number(h.series_level, 4) + " and " +
           output::format_number(h.series_level * kPossibleChangeFactor, 4) + "\n";
  if (!short_series.empty()) {
    out += "# cannot tell: " + std::to_string(short_series.size()) +
           " series could not show a change:\n";
    for (const auto* s : short_series) out += "#   " + row_text(*s) + ": " + s->cannot_tell + "\n";
  }
  out += "# a change in the newest " + std::to_string(settings.min_segment - 1) +
         " runs of a series cannot be found yet (" + std::to_string(settings.min_segment) +
         " runs are needed after it)\n";
  return out;
}

}  // namespace mpiscope::report
