#include "report/compare.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/control_variables.hpp"
#include "core/convergence.hpp"
#include "core/provenance.hpp"
#include "core/run_info.hpp"
#include "core/text.hpp"
#include "output/text_table.hpp"

namespace mpiscope::report {

double reported_time_us(const core::Measurement& m) {
  if (!m.measured) return std::nan("");
  if (const auto* median = m.value("median_us")) return median->value;  // accurate mode
  // A suite whose own text reports another time than t_max (OSU: the ranks' mean) says so.
  if (const auto* headline = m.value("headline_us")) return headline->value;
  if (std::isfinite(m.t_max_us)) return m.t_max_us;
  if (std::isfinite(m.t_avg_us)) return m.t_avg_us;
  return m.t_min_us;
}

std::optional<Interval> median_interval(const core::Measurement& m) {
  if (const auto e = core::median_estimate(m)) return Interval{e->low, e->high};
  return std::nullopt;
}

// ---- statistics ---------------------------------------------------------------------------

double median_of(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::vector<double> logs_of(std::vector<double> values) {
  for (double& v : values) v = std::log(v);
  return values;
}

double normal_quantile_upper(double alpha) {
  double lo = 0, hi = 10;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(mid / std::sqrt(2.0)) > alpha ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double smallest_rank_test_p(std::size_t na, std::size_t nb) {
  double ways = 1;  // C(na + nb, nb), built up factor by factor
  for (std::size_t k = 1; k <= nb; ++k)
    ways = ways * static_cast<double>(na + k) / static_cast<double>(k);
  return 1.0 / ways;
}

RankTest rank_test(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return {};
  std::vector<std::pair<double, bool>> all;  // value, from b
  for (double v : a) all.emplace_back(v, false);
  for (double v : b) all.emplace_back(v, true);
  std::sort(all.begin(), all.end());
  const std::size_t n = all.size();
  // Doubled mid-ranks keep tied ranks integral: positions i..j (0-based) share (i + j + 2) / 2.
  std::vector<std::size_t> rank2(n);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && all[j + 1].first == all[i].first) ++j;
    for (std::size_t k = i; k <= j; ++k) rank2[k] = i + j + 2;
    i = j + 1;
  }
  std::size_t observed = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (all[i].second) observed += rank2[i];
  // ways[k][s]: the subsets of k of the values seen so far whose doubled ranks sum to s. Every
  // subset of |b| values is equally likely when A and B measure the same thing.
  const std::size_t nb = b.size(), top = n * (n + 1);
  std::vector<std::vector<double>> ways(nb + 1, std::vector<double>(top + 1, 0.0));
  ways[0][0] = 1;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = std::min(nb, i + 1); k >= 1; --k)
      for (std::size_t s = top; s >= rank2[i]; --s) ways[k][s] += ways[k - 1][s - rank2[i]];
  double total = 0, at_least = 0, at_most = 0;
  for (std::size_t s = 0; s <= top; ++s) {
    total += ways[nb][s];
    if (s >= observed) at_least += ways[nb][s];
    if (s <= observed) at_most += ways[nb][s];
  }
  return {at_least / total, at_most / total};
}

std::optional<Interval> shift_bounds(const std::vector<double>& a, const std::vector<double>& b,
                                     double alpha) {
  const std::size_t na = a.size(), nb = b.size();
  if (na == 0 || nb == 0 || smallest_rank_test_p(na, nb) > alpha) return std::nullopt;
  // ways[k][s]: the subsets of k of the ranks 1..i whose sum is s; U = S - nb (nb + 1) / 2.
  const std::size_t n = na + nb, top = n * (n + 1) / 2;
  std::vector<std::vector<double>> ways(nb + 1, std::vector<double>(top + 1, 0.0));
  ways[0][0] = 1;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t k = std::min(nb, i); k >= 1; --k)
      for (std::size_t s = top; s >= i; --s) ways[k][s] += ways[k - 1][s - i];
  const std::size_t offset = nb * (nb + 1) / 2, pairs = na * nb;
  double total = 0;
  for (double w : ways[nb]) total += w;
  // k - 1: the largest count u with P(U <= u) <= alpha.
  std::size_t k = 0;
  double cumulative = 0;
  for (std::size_t u = 0; u <= pairs; ++u) {
    cumulative += ways[nb][u + offset];
    if (cumulative / total > alpha) break;
    k = u + 1;
  }
  std::vector<double> d;
  d.reserve(pairs);
  for (double x : a)
    for (double y : b) d.push_back(y - x);
  std::sort(d.begin(), d.end());
  return Interval{d[k - 1], d[pairs - k]};
}

bool is_outcome_parameter(const std::string& name) {
  return name == "measurement" || name == "refinement_max_error";
}

// ---- the comparison -----------------------------------------------------------------------

std::string table_label(const core::BenchmarkRun& b) {
  std::string s = b.name;
  if (b.nprocs > 0)
    s += ", " + std::to_string(b.nprocs) + (b.nprocs == 1 ? " process" : " processes");
  if (!b.mode.empty()) s += ", mode " + b.mode;
  for (const auto& [k, v] : b.parameters) s += ", " + k + "=" + v;
  return s;
}

std::string short_library_name(const std::string& mpi_library) {
  std::string lib;
  for (char ch : mpi_library.substr(0, mpi_library.find_first_of("\n,"))) {
    const bool blank = ch == ' ' || ch == '\t' || ch == '\r';
    if (!(blank && (lib.empty() || lib.back() == ' '))) lib += blank ? ' ' : ch;
  }
  while (!lib.empty() && lib.back() == ' ') lib.pop_back();
  return lib;
}

std::string run_date_text(const std::string& date_iso, const std::string& date,
                          const std::string& recorded_at) {
  if (date_iso.size() >= 16) return date_iso.substr(0, 10) + " " + date_iso.substr(11, 5);
  std::tm t{};
  for (const char* format : {"%a %b %d %H:%M:%S %Y", "%Y-%m-%d %H:%M:%S", "%a %d %b %Y %H:%M:%S"})
    if (const char* end = strptime(date.c_str(), format, &t); end && *end == '\0') {
      char text[32];
      std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &t);
      return text;
    }
  if (recorded_at.size() >= 16) return recorded_at.substr(0, 10) + " " + recorded_at.substr(11, 5);
  return "-";
}

std::string run_label(const db::StoredRun& r) {
  const std::string lib = short_library_name(r.info.mpi_library);
  std::string s = std::to_string(r.id) + " (" + r.info.suite;
  if (!lib.empty()) s += ", " + lib;
  if (!r.info.date_iso.empty())
    s += ", " + r.info.date_iso;
  else if (!r.info.date.empty())
    s += ", " + r.info.date;
  if (!r.source_file.empty()) s += ", from " + r.source_file;
  return s + ")";
}

namespace {

double cpu_wait_percent_of(const db::StoredRun& run) {
  const auto it = run.info.settings.find(core::kEndOfRunSettings[0]);
  if (it == run.info.settings.end()) return std::nan("");
  char* end = nullptr;
  const double percent = std::strtod(it->second.c_str(), &end);
  return end != it->second.c_str() ? percent : std::nan("");
}

std::string measured_key(const core::BenchmarkRun& b) {
  std::string key = core::to_lower(b.name) + "|" + std::to_string(b.nprocs);
  for (const auto& [name, value] : b.parameters)
    if (!is_outcome_parameter(name)) key += "|" + name + "=" + value;
  return key;
}

FigureTable* find_mode(std::vector<std::pair<std::string, FigureTable>>& modes,
                       const std::string& mode) {
  for (auto& [m, t] : modes)
    if (m == mode) return &t;
  return nullptr;
}

RowKey row_key(const core::Measurement& m) {
  const auto* argument = m.value("argument");
  if (argument && argument->value != static_cast<double>(m.bytes))
    return {m.bytes, argument->value};
  return {m.bytes, std::nullopt};
}

// Why a row's time is no figure to judge a change by: a repetition loop that never met its
// stopping rule measured something, but not a converged figure (core::not_converged_reason); no
// operation takes no time.
RunFigure point_of(const core::Measurement& m, double us, const db::StoredRun& run) {
  RunFigure p{.us = us,
              .run = run.id,
              .not_a_figure = {},
              .cpu_wait_percent = cpu_wait_percent_of(run),
              .low = us,
              .high = us,
              .converged = true};
  if (!(us > 0)) {
    p.not_a_figure = "time " + output::format_number(us) + " us is not physical";
  } else if (const auto why = core::not_converged_reason(m)) {
    p.converged = false;
    if (const auto range = core::unconverged_range(m)) {
      p.low = range->low;
      p.high = range->high;
    } else {
      p.not_a_figure = "not converged (" + *why + ")";
    }
  }
  return p;
}

// The one-sided level of each of a row's bounds of B/A: a gate asks one question of the upper
// bound (is B at most the limit slower?) at its own level; without one, the two bounds together
// make a 95 % interval.
double bounds_level(const CompareSettings& s) {
  return s.fail_above_percent >= 0 ? s.gate_level : s.significance;
}

std::vector<double> log_times(const std::vector<RunFigure>& points) {
  std::vector<double> t;
  for (const auto& p : points) t.push_back(std::log(p.us));
  return t;
}

std::vector<double> times_of(const std::vector<RunFigure>& points) {
  std::vector<double> t;
  for (const auto& p : points) t.push_back(p.us);
  return t;
}

// A side's times with each run that did not converge at the low or the high end of its range.
std::vector<double> ends_of(const std::vector<RunFigure>& points, bool high) {
  std::vector<double> t;
  for (const auto& p : points) t.push_back(high ? p.high : p.low);
  return t;
}

// The runs per side that would have made the row conclusive, if its runs spread as these do:
// the rank test's bounds of log(B/A) are about z sigma sqrt(2 / n) sqrt(pi / 3) wide (the
// normal approximation, widened by the rank test's efficiency 3 / pi), and they must fit in
// `gap`, the distance from the estimate to the nearest boundary that settles the row.
std::size_t runs_needed(const std::vector<RunFigure>& pa, const std::vector<RunFigure>& pb,
                        double gap, const CompareSettings& s) {
  if (pa.size() + pb.size() < 3) return 0;  // no spread to go by
  double sum = 0;
  std::size_t count = 0;
  for (const auto* side : {&pa, &pb}) {
    const auto logs = log_times(*side);
    const double centre = median_of(logs);
    for (double v : logs) sum += (v - centre) * (v - centre);
    count += logs.size();
  }
  const double sigma = std::sqrt(sum / static_cast<double>(std::max<std::size_t>(1, count - 2)));
  std::size_t at_least = 1;
  while (smallest_rank_test_p(at_least, at_least) > bounds_level(s)) ++at_least;
  if (!(gap > 1e-9)) return std::numeric_limits<std::size_t>::max();
  const double z = normal_quantile_upper(bounds_level(s));
  const double n = 2.0 * (std::acos(-1.0) / 3.0) * (z * sigma / gap) * (z * sigma / gap);
  if (n > 1e6) return std::numeric_limits<std::size_t>::max();
  return std::max(at_least, static_cast<std::size_t>(std::ceil(n)));
}

// Whether the row's bounds of B/A settle it for a change of `size`, and so its `conclusive`: with
// a gate, a slowdown was found or the upper bound lies below the limit; without, the difference
// is beyond the noise or both bounds lie within the noise floor.
bool settled(ComparedRow& r, double size, bool gate) {
  r.conclusive = gate ? r.slowdown_over_limit || r.ratio_high < size
                      : r.beyond || (r.ratio_high < size && r.ratio_low > 1.0 / size);
  return r.conclusive;
}

// How far, in log(B/A), the estimate lies from the nearest boundary whose crossing by the bounds
// would settle the row: the limit with a gate; without, 1 (beyond the noise) or the noise floor
// (within it), whichever is farther.
double settling_gap(double ratio, double size, bool gate) {
  const double estimate = std::log(ratio);
  if (gate) return std::abs(std::log(size) - estimate);
  return std::max(std::abs(estimate), std::log(size) - std::abs(estimate));
}

ComparedRow judge(const std::vector<RunFigure>& pa, const std::vector<RunFigure>& pb,
                  const CompareSettings& s, bool& rank_test_too_weak) {
  ComparedRow r;
  r.a_runs = pa.size();
  r.b_runs = pb.size();
  const auto ta = times_of(pa), tb = times_of(pb);
  r.a_us = median_of(ta);
  r.b_us = median_of(tb);
  r.ratio = r.a_us > 0 ? r.b_us / r.a_us : (r.b_us > 0 ? INFINITY : 1.0);
  r.ratio_low = r.ratio_high = std::nan("");
  for (const auto* side : {&pa, &pb})
    for (const auto& p : *side)
      if (!p.not_a_figure.empty() && r.why_not_conclusive.empty())
        r.why_not_conclusive = "run " + std::to_string(p.run) + ": " + p.not_a_figure;
  if (!r.why_not_conclusive.empty()) {
    r.basis = NoiseBasis::kNotAFigure;
    return r;
  }
  // The change the row must be able to show: the limit with a gate, else the noise floor.
  const bool gate = s.fail_above_percent >= 0;
  const double size = 1.0 + (gate ? s.fail_above_percent : s.noise_floor_percent) / 100.0;
  const std::string size_text =
      output::format_number(100.0 * (size - 1.0), 1) + " %" + (gate ? " slowdown" : " change");
  const std::string runs = std::to_string(pa.size()) + ":" + std::to_string(pb.size());
  // A run that did not converge counts at the end of its range that works against each claim:
  // B slower is judged with A's high ends and B's low ones, B faster the other way round, so a
  // verdict holds wherever in their ranges those runs' figures lie.
  const auto a_high = ends_of(pa, true), a_low = ends_of(pa, false);
  const auto b_high = ends_of(pb, true), b_low = ends_of(pb, false);
  for (const auto* side : {&pa, &pb})
    for (const auto& p : *side) r.unconverged_runs += !p.converged;
  const std::string ranged =
      r.unconverged_runs == 0
          ? std::string()
          : "; " + std::to_string(r.unconverged_runs) +
                " of its runs did not converge and count at the end of their own range that "
                "works against a verdict";
  if (smallest_rank_test_p(pa.size(), pb.size()) <= s.significance) {
    r.basis = NoiseBasis::kRankTest;
    r.p_value =
        r.ratio >= 1 ? rank_test(a_high, b_low).p_slower : rank_test(a_low, b_high).p_faster;
    r.ratio_low = std::exp(shift_bounds(logs_of(a_high), logs_of(b_low), bounds_level(s))->low);
    r.ratio_high = std::exp(shift_bounds(logs_of(a_low), logs_of(b_high), bounds_level(s))->high);
    if (gate) {  // the slowdown is decided over all rows at once: apply_gate_to_tested_rows
      std::vector<double> scaled = a_high;
      for (double& v : scaled) v *= size;
      r.limit_p_value = rank_test(scaled, b_low).p_slower;
    }
    // Whether the change is beyond the noise is decided over all rows at once
    // (find_changes_beyond_the_noise), which settles the row or keeps this reason.
    r.why_not_conclusive = "B/A lies between " + output::format_number(r.ratio_low, 3) + " and " +
                           output::format_number(r.ratio_high, 3) + " with these runs: a " +
                           size_text + " cannot be ruled out" + ranged;
    r.runs_needed = runs_needed(pa, pb, settling_gap(r.ratio, size, gate), s);
    return r;
  }
  // Too few runs for the rank test: only a change beyond the bound on how much one launch's
  // figure moves from the next identical one's is a change. The bound holds for launches that
  // kept their cores; one that other work time-sliced moves by any factor (83x seen under load).
  r.basis = NoiseBasis::kBound;
  rank_test_too_weak = rank_test_too_weak || pa.size() > 1 || pb.size() > 1;
  for (const auto* side : {&pa, &pb})
    for (const auto& p : *side)
      if (p.cpu_wait_percent > core::kDisturbedCpuWaitPercent && r.why_not_conclusive.empty())
        r.why_not_conclusive = "run " + std::to_string(p.run) +
                               " was time-sliced by other work (a rank waited for a CPU " +
                               output::format_number(p.cpu_wait_percent, 1) +
                               " % of the time): it can move by any factor";
  if (!r.why_not_conclusive.empty()) return r;
  const double bound = kSingleRunBound;
  r.ratio_low = median_of(b_low) / median_of(a_high) / bound;
  r.ratio_high = median_of(b_high) / median_of(a_low) * bound;
  r.beyond = r.ratio_low > 1 || r.ratio_high < 1;
  r.slowdown_over_limit = gate && r.ratio_low > size;
  if (!settled(r, size, gate)) {
    r.why_not_conclusive = runs +
                           " runs, too few for the rank test: one launch's figure moves "
                           "by up to " +
                           output::format_number(bound, 1) +
                           "x from the next identical one's, which hides a " + size_text + ranged;
    r.runs_needed = runs_needed(pa, pb, settling_gap(r.ratio, size, gate), s);
  }
  return r;
}

void compare_tables(const FigureTable& ta, const FigureTable& tb, const CompareSettings& s,
                    Comparison& c) {
  bool any = false;
  for (const auto& [key, pa] : ta.points) {
    const auto it = tb.points.find(key);
    if (it == tb.points.end()) continue;
    any = true;
    ComparedRow r = judge(pa, it->second, s, c.rank_test_too_weak);
    r.table = ta.label;
    r.bytes = key.first;
    r.argument = key.second;
    r.sized = ta.sized;
    c.rows.push_back(r);
  }
  if (!any) c.no_row_in_common.push_back(ta.label);
}

// Benjamini and Hochberg's step-up procedure over the rows the rank test judged: a row is beyond
// the noise when its p-value is among the k smallest, k the largest with p_(k) <= significance *
// k / m over the m rows. When nothing changed (identical reruns), some row is called slower (or
// faster) with a chance of at most `significance`, however many rows there are: each row at
// `significance` alone called 4 of 141 rows of two alike sets of runs changed. When many rows did
// change, each keeps nearly its own level (a slowdown of every row is found in every row); of
// the rows called changed, the expected share that did not is at most `significance`. Then each
// such row is settled, or keeps the reason judge() gave it.
void find_changes_beyond_the_noise(Comparison& c, const CompareSettings& s) {
  std::vector<ComparedRow*> tested;
  for (auto& r : c.rows)
    if (r.basis == NoiseBasis::kRankTest && r.ratio != 1) tested.push_back(&r);
  std::stable_sort(tested.begin(), tested.end(), [](const ComparedRow* x, const ComparedRow* y) {
    return x->p_value < y->p_value;
  });
  const std::size_t m = tested.size();
  std::size_t changed = 0;
  for (std::size_t k = m; k > 0; --k)
    if (tested[k - 1]->p_value <=
        s.significance * static_cast<double>(k) / static_cast<double>(m)) {
      changed = k;
      break;
    }
  for (std::size_t k = 0; k < changed; ++k) tested[k]->beyond = true;
  const bool gate = s.fail_above_percent >= 0;
  const double size = 1.0 + (gate ? s.fail_above_percent : s.noise_floor_percent) / 100.0;
  for (auto& r : c.rows) {
    if (r.basis != NoiseBasis::kRankTest) continue;
    if (settled(r, size, gate)) {
      r.why_not_conclusive.clear();
      r.runs_needed = 0;
    } else if (!r.beyond && r.p_value <= s.significance) {
      r.why_not_conclusive += "; its p=" + output::format_number(r.p_value, 4) +
                              " alone is not beyond the noise of the " + std::to_string(m) +
                              " rows tested together";
    }
  }
}

// Holm's step-down procedure over the rows the rank test judged: the chance that identical
// launches fail the gate in any row stays below gate_level, however many rows there are. (Each
// row at gate_level alone would fail 8 rows of identical launches in up to 1 comparison in 8.)
void apply_gate_to_tested_rows(Comparison& c, const CompareSettings& s) {
  std::vector<ComparedRow*> tested;
  for (auto& r : c.rows)
    if (r.basis == NoiseBasis::kRankTest) tested.push_back(&r);
  if (tested.empty() || s.fail_above_percent < 0) return;
  std::stable_sort(tested.begin(), tested.end(), [](const ComparedRow* x, const ComparedRow* y) {
    return x->limit_p_value < y->limit_p_value;
  });
  const double limit = 1.0 + s.fail_above_percent / 100.0;
  const std::size_t m = tested.size();
  c.gate_rows = m;
  for (const auto* r : tested)
    if (smallest_rank_test_p(r->a_runs, r->b_runs) > s.gate_level / static_cast<double>(m))
      c.gate_too_weak = true;
  for (std::size_t k = 0; k < m; ++k) {
    if (tested[k]->limit_p_value > s.gate_level / static_cast<double>(m - k)) break;
    tested[k]->slowdown_over_limit = tested[k]->ratio > limit;
    if (tested[k]->slowdown_over_limit) {
      tested[k]->conclusive = true;
      tested[k]->why_not_conclusive.clear();
      tested[k]->runs_needed = 0;
    }
  }
}

}  // namespace

RunFigures figures_by_table(const std::vector<db::StoredRun>& runs) {
  RunFigures side;
  for (const auto& run : runs) add_figures(side, run);
  return side;
}

void add_figures(RunFigures& side, const db::StoredRun& run) {
  // Within a run, a later table of the same key and mode (a repeated benchmark) replaces the
  // earlier one.
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, const core::BenchmarkRun*> latest;
  for (const auto& t : run.benchmarks) {
    const std::pair<std::string, std::string> key{measured_key(t), t.mode};
    if (!latest.count(key)) order.push_back(key);
    latest[key] = &t;
  }
  for (const auto& key : order) {
    const core::BenchmarkRun& t = *latest[key];
    auto* modes = side.find(key.first);
    if (!modes) {
      side.tables.push_back({key.first, {}});
      modes = &side.tables.back().second;
    }
    FigureTable* table = find_mode(*modes, key.second);
    if (!table) {
      core::BenchmarkRun named = t;
      std::erase_if(named.parameters, [](const auto& p) { return is_outcome_parameter(p.first); });
      modes->push_back({key.second, FigureTable{table_label(named), t.sized, {}}});
      table = &modes->back().second;
    }
    std::map<RowKey, const core::Measurement*> rows;
    for (const auto& m : t.rows)
      if (m.measured && std::isfinite(reported_time_us(m))) rows[row_key(m)] = &m;
    for (const auto& [row, m] : rows) {
      const double us = reported_time_us(*m);
      table->points[row].push_back(point_of(*m, us, run));
    }
  }
}

std::size_t runs_for_gate(std::size_t rows, double gate_level) {
  std::size_t n = 1;
  while (smallest_rank_test_p(n, n) >
         gate_level / static_cast<double>(std::max<std::size_t>(1, rows)))
    ++n;
  return n;
}

namespace {
// An imported OSU collective or multi-pair table has no process count (OSU's text does not say
// it): its count, 0, matches a table of any count with the same name and parameters.
std::string without_processes(const std::string& key) {
  const auto first = key.find('|');
  const auto second = key.find('|', first + 1);
  return key.substr(0, first) + (second == std::string::npos ? "" : key.substr(second));
}
bool unknown_processes(const std::string& key) {
  const auto first = key.find('|');
  return key.compare(first + 1, key.find('|', first + 1) - first - 1, "0") == 0;
}
}  // namespace

std::map<std::string, std::string> timing_rules(const db::StoredRun& run) {
  std::map<std::string, std::string> rules;
  const auto& s = run.info.settings;
  if (const auto it = s.find("warm_up"); it != s.end()) {
    rules["warm-up"] = "-warm_up " + it->second;
    // Until -warm_up on also ran each length once in full (as current IMB does), it ran n/10
    // repetitions alone; the runs recorded then say so in their rule.
    const auto rule = s.find("warm_up_rule");
    if (it->second == "on" && rule != s.end() &&
        rule->second.rfind("at every length, n/10 untimed", 0) == 0)
      rules["warm-up"] += " (n/10 repetitions only, recorded before each length ran once in full)";
  }
  // The C library's heap (core/heap_policy.hpp): glibc's adaptive thresholds made MPICH's Reduce
  // at 4 MiB 2.7 times as slow as with fixed ones. Runs recorded before the policy say nothing.
  if (const auto it = s.find("heap"); it != s.end()) {
    const std::string& text = it->second;
    rules["heap"] = text.rfind("fixed", 0) == 0 ? "fixed thresholds"
                    : text.rfind("the C library's adaptive thresholds", 0) == 0
                        ? "the C library's adaptive thresholds"
                    : text.find("environment") != std::string::npos ? "the environment's thresholds"
                                                                    : "the C library's own";
  }
  if (const auto it = s.find("iter_policy"); it != s.end())
    rules["repetitions"] = "-iter_policy " + it->second;
  // Whose rules an IMB run followed (-imb_rules); an imported Intel IMB's from its version: 3.x
  // timed as IMB 3.1, 2019 and later as current IMB (warm-up at every length, -sync on, …).
  if (const auto it = s.find("imb_rules"); it != s.end()) {
    rules["IMB rules"] = it->second == "3.1" ? "IMB 3.1's" : "current IMB's";
  } else if (const auto v = s.find("imb_version"); v != s.end() && !v->second.empty()) {
    if (v->second.rfind("3.", 0) == 0) rules["IMB rules"] = "IMB 3.1's";
    if (std::isdigit(static_cast<unsigned char>(v->second[0])) && v->second.size() >= 4 &&
        std::atoi(v->second.c_str()) >= 2019)
      rules["IMB rules"] = "current IMB's";
  }
  // OSU's programs: classic runs time as OSU 7.4's loops (timer reads included) since
  // timing_rule was recorded; earlier ones had one pair of reads around the loop.
  if (const auto it = s.find("timing_rule"); it != s.end())
    rules["timing"] = it->second;
  else if (s.count("osu_program") && s.count("method") && s.at("method") == "classic")
    rules["timing"] = "mpiscope's loop: two MPI_Wtime reads around all iterations (before OSU's)";
  if (const auto it = s.find("collectives_rule"); it != s.end()) {
    const std::string& text = it->second;
    rules["collectives' root"] = text.find("root round robin") != std::string::npos
                                     ? "round robin (IMB 3.1)"
                                     : "rank 0 (current IMB)";
    rules["collectives' repetitions"] = text.find("back to back") != std::string::npos
                                            ? "back to back (IMB 3.1)"
                                            : "each timed alone after a barrier (current IMB)";
  }
  return rules;
}

std::map<std::string, std::string> provenance_of(const db::StoredRun& run,
                                                 const std::set<std::string>& variables,
                                                 const std::set<std::string>& control_variables) {
  std::map<std::string, std::string> p;
  const auto& s = run.info.settings;
  const auto binding = s.find(core::kCpuBindingSetting);
  if (binding == s.end()) return p;
  p["CPU binding"] = binding->second;
  if (const auto it = s.find("oversubscribed"); it != s.end()) p["oversubscribed"] = it->second;
  for (const auto& v : variables) {
    const auto it = s.find(core::kEnvironmentSettingPrefix + v);
    p[v] = it == s.end() ? "unset" : it->second;
  }
  for (const auto& name : control_variables)
    if (const auto it = run.info.control_variables.find(name);
        it != run.info.control_variables.end())
      p["control variable " + name] = it->second;
  return p;
}

std::vector<std::string> value_differences(
    const std::vector<db::StoredRun>& a, const std::vector<db::StoredRun>& b,
    const std::function<std::map<std::string, std::string>(const db::StoredRun&)>& named,
    const std::pair<std::string, std::string>& sides) {
  auto values_of = [&](const std::vector<db::StoredRun>& runs) {
    std::map<std::string, std::set<std::string>> values;
    for (const auto& r : runs)
      for (const auto& [name, value] : named(r)) values[name].insert(value);
    return values;
  };
  const auto values_a = values_of(a), values_b = values_of(b);
  auto joined = [](const std::set<std::string>& values) {
    std::string s;
    for (const auto& v : values) s += (s.empty() ? "" : ", ") + v;
    return s;
  };
  std::vector<std::string> differences;
  for (const auto& [name, in_a] : values_a) {
    const auto it = values_b.find(name);
    if (it == values_b.end()) continue;
    std::set<std::string> all = in_a;
    all.insert(it->second.begin(), it->second.end());
    if (all.size() > 1)
      differences.push_back(name + ": " + sides.first + " " + joined(in_a) + "; " + sides.second +
                            " " + joined(it->second));
  }
  return differences;
}

ProvenanceNames provenance_names(const std::vector<db::StoredRun>& a,
                                 const std::vector<db::StoredRun>& b) {
  ProvenanceNames names;
  const std::string prefix = core::kEnvironmentSettingPrefix;
  for (const auto* side : {&a, &b})
    for (const auto& run : *side)
      for (const auto& [name, value] : run.info.settings)
        if (name.compare(0, prefix.size(), prefix) == 0) {
          names.variables.insert(name.substr(prefix.size()));
          for (auto& named : core::variables_named_by(name.substr(prefix.size())))
            if (run.info.control_variables.count(named)) names.control_variables.insert(named);
        }
  return names;
}

std::map<std::string, std::string> protocol_switches(const db::StoredRun& run) {
  std::map<std::string, std::string> switches;
  for (const auto& b : run.benchmarks) {
    if (!b.model) continue;
    std::string at;
    for (std::size_t i = 1; i < b.model->regions.size(); ++i)
      at += (at.empty() ? "at " : ", ") + std::to_string(b.model->regions[i].first_bytes);
    switches[b.name + " (" + std::to_string(b.nprocs) + " processes" +
             (b.mode.empty() ? "" : ", " + b.mode) + ")"] =
        at.empty() ? "none found" : at + " bytes";
  }
  return switches;
}

Comparison compare_runs(const std::vector<db::StoredRun>& a, const std::vector<db::StoredRun>& b,
                        const CompareSettings& settings) {
  Comparison c;
  c.rule_differences = value_differences(a, b, timing_rules);
  const auto names = provenance_names(a, b);
  c.provenance_differences = value_differences(a, b, [&](const db::StoredRun& run) {
    return provenance_of(run, names.variables, names.control_variables);
  });
  c.switch_differences = value_differences(a, b, protocol_switches);
  RunFigures side_a = figures_by_table(a), side_b = figures_by_table(b);
  std::vector<std::string> matched;
  for (auto& [key, modes_a] : side_a.tables) {
    auto* modes_b = side_b.find(key);
    std::string key_b = key;
    for (auto& [k, modes] : side_b.tables)
      if (!modes_b && (unknown_processes(k) || unknown_processes(key)) &&
          std::find(matched.begin(), matched.end(), k) == matched.end() &&
          without_processes(k) == without_processes(key)) {
        modes_b = &modes;
        key_b = k;
      }
    if (!modes_b) {
      for (const auto& [mode, t] : modes_a) c.only_in_a.push_back(t.label);
      continue;
    }
    matched.push_back(key_b);
    // A benchmark each side measured in one mode only compares whatever the modes are called:
    // Intel's IMB-IO prints reads and non-blocking writes as AGGREGATE, mpiscope as no mode or
    // non-aggregate, and both mean the one way the benchmark runs.
    if (modes_a.size() == 1 && modes_b->size() == 1) {
      compare_tables(modes_a[0].second, (*modes_b)[0].second, settings, c);
      continue;
    }
    for (const auto& [mode, ta] : modes_a) {
      if (const FigureTable* tb = find_mode(*modes_b, mode))
        compare_tables(ta, *tb, settings, c);
      else
        c.only_in_a.push_back(ta.label);
    }
    for (const auto& [mode, tb] : *modes_b)
      if (!find_mode(modes_a, mode)) c.only_in_b.push_back(tb.label);
  }
  for (const auto& [key, modes_b] : side_b.tables)
    if (std::find(matched.begin(), matched.end(), key) == matched.end())
      for (const auto& [mode, t] : modes_b) c.only_in_b.push_back(t.label);
  find_changes_beyond_the_noise(c, settings);
  apply_gate_to_tested_rows(c, settings);
  for (const auto& r : c.rows) c.inconclusive += !r.conclusive;
  return c;
}

namespace {

std::string side_lines(const std::string& name, const std::vector<db::StoredRun>& runs) {
  std::string s;
  for (std::size_t i = 0; i < runs.size(); ++i)
    s += (i == 0 ? "# " + name + ": run " : "#    run ") + run_label(runs[i]) + "\n";
  return s;
}

std::string test_cell(const ComparedRow& r) {
  switch (r.basis) {
    case NoiseBasis::kRankTest:
      return "p=" + output::format_number(r.p_value, 4);
    case NoiseBasis::kBound:
      return "bound " + output::format_number(kSingleRunBound, 1) + "x";
    case NoiseBasis::kNotAFigure:
      break;
  }
  return "-";
}

std::string bounds_cell(const ComparedRow& r) {
  if (!std::isfinite(r.ratio_low) || !std::isfinite(r.ratio_high)) return "-";
  return output::format_number(r.ratio_low, 3) + "-" + output::format_number(r.ratio_high, 3);
}

}  // namespace

std::string verdict_text(const ComparedRow& r) {
  if (r.slowdown_over_limit) return "SLOWDOWN";
  const std::string direction = r.beyond ? (r.ratio > 1 ? "slower" : "faster") : "";
  if (r.conclusive) return direction;
  return direction.empty() ? "cannot tell" : direction + ", cannot tell";
}

std::string render_comparison(const std::vector<db::StoredRun>& a,
                              const std::vector<db::StoredRun>& b, const Comparison& c,
                              const CompareSettings& s) {
  const std::string level = output::format_number(s.significance, 3);
  const std::string floor = output::format_number(s.noise_floor_percent, 1);
  const std::string bound = output::format_number(kSingleRunBound, 1);
  const std::string confidence =
      s.fail_above_percent >= 0
          ? "one-sided " + output::format_number(100.0 * (1.0 - s.gate_level), 1)
          : output::format_number(100.0 * (1.0 - 2.0 * s.significance), 1);
  std::string out =
      "# mpiscope compare\n" + side_lines("A", a) + side_lines("B", b) +
      "# time: each run's median (accurate mode), else the suite's headline time (osu, imb-p2p, "
      "IMB-MT's windows), else "
      "t_max where recorded, else t_avg, in microseconds; the median over a side's runs; ratio "
      "= B/A (above 1: B is slower)\n"
      "# noise: with several runs per side, an exact one-sided Wilcoxon-Mann-Whitney rank test "
      "of the runs' figures (test p=...; beyond the noise: the k smallest p of the m rows tested, "
      "k the largest with its p <= " +
      level + " x k/m, Benjamini and Hochberg's step-up) and the " + confidence +
      " % distribution-free bounds of B/A it gives (bounds); with fewer runs, only a change "
      "beyond " +
      bound +
      "x, the most one launch's figure moves from the next identical one's (test bound), with "
      "bounds B/A / " +
      bound + " to B/A x " + bound +
      "; accurate mode's within-run intervals are never taken as run-to-run noise\n";
  if (s.fail_above_percent >= 0) {
    const std::string factor = output::format_number(1.0 + s.fail_above_percent / 100.0, 3);
    out += "# limit: a row fails when B/A > " + factor + " and B is slower than A x " + factor +
           " beyond the noise (the rank test against A's times x " + factor + ", at the level " +
           output::format_number(s.gate_level, 3) +
           " for all such rows together (Holm); with fewer runs, B/A above " + factor + " x " +
           bound + "); it passes when B/A's upper bound is below " + factor +
           "; otherwise, or when a figure did not converge, it cannot tell\n";
  } else {
    out += "# within the noise: B/A's bounds inside " + floor +
           " % of 1 (--noise-floor); wider bounds cannot tell\n";
  }
  std::string current;
  std::unique_ptr<output::TextTable> table;
  bool arguments = false;  // the current table's rows differ in more than the length
  auto flush = [&] {
    if (table) out += "\n# " + current + "\n" + table->render("  ");
  };
  int slow = 0, fast = 0, over = 0;
  std::size_t most_runs_needed = 0;
  bool runs_needed_unknown = false;
  std::map<NoiseBasis, std::size_t> unsettled;
  std::size_t time_sliced = 0;  // of the kBound rows: a run that did not keep its core
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const ComparedRow& r = c.rows[i];
    if (r.table != current) {
      flush();
      current = r.table;
      arguments = false;
      for (std::size_t j = i; j < c.rows.size() && c.rows[j].table == current; ++j)
        arguments = arguments || c.rows[j].argument.has_value();
      std::vector<std::string> headings{r.sized ? "bytes" : "-"};
      if (arguments) headings.push_back("argument");
      for (const char* h :
           {"A t[usec]", "B t[usec]", "B/A", "change[%]", "runs", "test", "bounds", "verdict"})
        headings.push_back(h);
      table = std::make_unique<output::TextTable>(headings);
    }
    slow += r.ratio > 1 && r.beyond;
    fast += r.ratio < 1 && r.beyond;
    over += r.slowdown_over_limit;
    if (!r.conclusive) {
      ++unsettled[r.basis];
      time_sliced += r.why_not_conclusive.find("time-sliced") != std::string::npos;
      if (r.runs_needed == 0)
        runs_needed_unknown = true;
      else
        most_runs_needed = std::max(most_runs_needed, r.runs_needed);
    }
    std::vector<std::string> cells{r.sized ? std::to_string(r.bytes) : "-"};
    if (arguments) cells.push_back(r.argument ? output::format_number(*r.argument) : "-");
    for (auto&& cell :
         {output::format_number(r.a_us), output::format_number(r.b_us),
          output::format_number(r.ratio, 3), output::format_number(100.0 * (r.ratio - 1.0), 1),
          std::to_string(r.a_runs) + ":" + std::to_string(r.b_runs), test_cell(r), bounds_cell(r),
          verdict_text(r)})
      cells.push_back(cell);
    table->add_row(cells);
  }
  flush();
  for (const auto& t : c.only_in_a) out += "\n# only in A: " + t;
  for (const auto& t : c.only_in_b) out += "\n# only in B: " + t;
  for (const auto& t : c.no_row_in_common) out += "\n# no row measured on both sides: " + t;
  if (!c.only_in_a.empty() || !c.only_in_b.empty() || !c.no_row_in_common.empty()) out += "\n";
  if (c.gate_too_weak)
    out += "\n# note: with " + std::to_string(c.gate_rows) +
           " rows tested, the gate needs p <= " + output::format_number(s.gate_level, 3) + "/" +
           std::to_string(c.gate_rows) + " in a row, which these run counts cannot give: use " +
           std::to_string(runs_for_gate(c.gate_rows, s.gate_level)) +
           " runs per side, or fewer rows\n";
  if (const auto ranged = std::count_if(c.rows.begin(), c.rows.end(), [](const ComparedRow& r) {
        return r.unconverged_runs > 0;
      }))
    out += "\n# note: " + std::to_string(ranged) +
           " rows have runs whose figure did not converge: each such run counts at the end of "
           "its own range (its median's 95 % interval, widened by a change of speed within the "
           "run) that works against a verdict, so a verdict holds wherever in it the figure "
           "lies\n";
  if (!c.rule_differences.empty()) {
    out +=
        "\n# note: the runs were not timed under the same rules; the rows these rules govern "
        "differ by rule as well as by any change of the system:\n";
    for (const auto& d : c.rule_differences) out += "#   " + d + "\n";
  }
  if (!c.provenance_differences.empty()) {
    out += "\n# note: MPI was configured or placed differently; rule it out before the machine:\n";
    for (const auto& d : c.provenance_differences) out += "#   " + d + "\n";
  }
  if (!c.switch_differences.empty()) {
    out +=
        "\n# note: the curves' protocol switches differ (their models, README \"The model of a "
        "curve\"):\n";
    for (const auto& d : c.switch_differences) out += "#   " + d + "\n";
  }
  if (c.inconclusive > 0) {
    out +=
        "\n# cannot tell: " + std::to_string(c.inconclusive) + " of " +
        std::to_string(c.rows.size()) + " rows could not have shown a " +
        (s.fail_above_percent >= 0 ? output::format_number(s.fail_above_percent, 1) + " % slowdown"
                                   : floor + " % change") +
        ":\n";
    if (const auto n = unsettled[NoiseBasis::kRankTest])
      out += "#   " + std::to_string(n) + " whose runs spread too widely for their number\n";
    if (const auto n = unsettled[NoiseBasis::kBound] - time_sliced)
      out += "#   " + std::to_string(n) +
             " with too few runs per side for the rank test (at least 4 per side; one launch's "
             "figure moves by up to " +
             bound + "x)\n";
    if (time_sliced > 0)
      out += "#   " + std::to_string(time_sliced) +
             " with too few runs per side, some of them time-sliced by other work (a rank "
             "waited for a CPU more than " +
             output::format_number(core::kDisturbedCpuWaitPercent, 0) +
             " % of the time): such a launch moves by any factor\n";
    if (const auto n = unsettled[NoiseBasis::kNotAFigure])
      out += "#   " + std::to_string(n) +
             " whose figure in some run is not physical, or did not converge and bounds "
             "nothing (a row's reason with --json)\n";
    const std::size_t gate_runs =
        s.fail_above_percent >= 0 ? runs_for_gate(c.rows.size(), s.gate_level) : 0;
    if (most_runs_needed == std::numeric_limits<std::size_t>::max())
      out += "#   no number of runs settles every row: some B/A lies at the size asked about\n";
    else if (most_runs_needed > 1000)
      out +=
          "#   more than 1000 runs per side would be needed, if the runs spread as these do: "
          "record them where they vary less (a quieter machine, accurate mode)\n";
    else if (most_runs_needed > 0)
      out += "#   about " + std::to_string(std::max(most_runs_needed, gate_runs)) +
             " runs per side would have sufficed, if the runs spread as these do" +
             (runs_needed_unknown ? " (the rows with one run per side give no spread)" : "") + "\n";
    else if (runs_needed_unknown)
      out += "#   record several runs per side (at least " +
             std::to_string(std::max<std::size_t>(4, gate_runs)) +
             "): one run per side shows no spread to go by\n";
  }
  if (c.rank_test_too_weak)
    out += "\n# note: too few runs for the rank test to reach p <= " + level +
           " (4 runs per side suffice); those rows were judged by the " + bound + "x bound\n";
  out += "\n# " + std::to_string(c.rows.size()) + " rows compared: " + std::to_string(slow) +
         " slower and " + std::to_string(fast) + " faster beyond the noise; " +
         std::to_string(c.inconclusive) + " cannot tell";
  if (s.fail_above_percent >= 0)
    out += "; " + std::to_string(over) + " slowdowns above " +
           output::format_number(s.fail_above_percent, 1) + " %";
  out += "\n";
  return out;
}

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json comparison_json(const std::vector<db::StoredRun>& a,
                               const std::vector<db::StoredRun>& b, const Comparison& c) {
  using nlohmann::json;
  json ids_a = json::array(), ids_b = json::array();
  for (const auto& r : a) ids_a.push_back(r.id);
  for (const auto& r : b) ids_b.push_back(r.id);
  json rows = json::array();
  for (const auto& r : c.rows) {
    const char* basis = r.basis == NoiseBasis::kRankTest ? "rank test"
                        : r.basis == NoiseBasis::kBound  ? "single-run bound"
                                                         : "no figure";
    const std::string verdict = verdict_text(r);
    rows.push_back({{"table", r.table},
                    {"bytes", r.bytes},
                    {"argument", r.argument ? json(*r.argument) : json(nullptr)},
                    {"sized", r.sized},
                    {"a_runs", r.a_runs},
                    {"b_runs", r.b_runs},
                    {"unconverged_runs", r.unconverged_runs},
                    {"a_us", number_or_null(r.a_us)},
                    {"b_us", number_or_null(r.b_us)},
                    {"ratio", number_or_null(r.ratio)},
                    {"ratio_low", number_or_null(r.ratio_low)},
                    {"ratio_high", number_or_null(r.ratio_high)},
                    {"basis", basis},
                    {"p", r.basis == NoiseBasis::kRankTest ? json(r.p_value) : json(nullptr)},
                    {"beyond", r.beyond},
                    {"slowdown_over_limit", r.slowdown_over_limit},
                    {"conclusive", r.conclusive},
                    {"why_not_conclusive", r.why_not_conclusive},
                    {"verdict", verdict.empty() ? "within the noise" : verdict}});
  }
  return {{"a", ids_a},
          {"b", ids_b},
          {"rows", rows},
          {"only_in_a", c.only_in_a},
          {"only_in_b", c.only_in_b},
          {"no_row_in_common", c.no_row_in_common},
          {"rule_differences", c.rule_differences},
          {"provenance_differences", c.provenance_differences},
          {"switch_differences", c.switch_differences},
          {"inconclusive", c.inconclusive}};
}

}  // namespace mpiscope::report
