#include "report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

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
  if (!m.measured) return std::nullopt;
  const auto* low = m.value("ci95_low_us");
  const auto* high = m.value("ci95_high_us");
  if (low && high) return Interval{low->value, high->value};
  return std::nullopt;
}

// ---- statistics ---------------------------------------------------------------------------

double median_of(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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

struct Point {
  double us = 0;
  std::optional<Interval> ci;
};

// One table of one side: its rows' times, one per run that measured them.
struct SideTable {
  std::string label;
  bool sized = true;
  std::map<std::size_t, std::vector<Point>> points;  // bytes -> one point per run
};

// A side's tables by what they measure (name, processes, parameters), then by mode, each in
// the order the runs first measured them.
struct Side {
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, SideTable>>>> tables;
  std::vector<std::pair<std::string, SideTable>>* find(const std::string& key) {
    for (auto& [k, modes] : tables)
      if (k == key) return &modes;
    return nullptr;
  }
};

std::string measured_key(const core::BenchmarkRun& b) {
  std::string key = core::to_lower(b.name) + "|" + std::to_string(b.nprocs);
  for (const auto& [name, value] : b.parameters)
    if (!is_outcome_parameter(name)) key += "|" + name + "=" + value;
  return key;
}

SideTable* find_mode(std::vector<std::pair<std::string, SideTable>>& modes,
                     const std::string& mode) {
  for (auto& [m, t] : modes)
    if (m == mode) return &t;
  return nullptr;
}

Side collect(const std::vector<db::StoredRun>& runs) {
  Side side;
  for (const auto& run : runs) {
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
      SideTable* table = find_mode(*modes, key.second);
      if (!table) {
        core::BenchmarkRun named = t;
        std::erase_if(named.parameters,
                      [](const auto& p) { return is_outcome_parameter(p.first); });
        modes->push_back({key.second, SideTable{table_label(named), t.sized, {}}});
        table = &modes->back().second;
      }
      std::map<std::size_t, const core::Measurement*> rows;
      for (const auto& m : t.rows)
        if (m.measured && std::isfinite(reported_time_us(m))) rows[m.bytes] = &m;
      for (const auto& [bytes, m] : rows)
        table->points[bytes].push_back({reported_time_us(*m), median_interval(*m)});
    }
  }
  return side;
}

std::vector<double> times_of(const std::vector<Point>& points) {
  std::vector<double> t;
  for (const auto& p : points) t.push_back(p.us);
  return t;
}

ComparedRow judge(const std::vector<Point>& pa, const std::vector<Point>& pb,
                  const CompareSettings& s, bool& rank_test_too_weak) {
  ComparedRow r;
  r.a_runs = pa.size();
  r.b_runs = pb.size();
  const auto ta = times_of(pa), tb = times_of(pb);
  r.a_us = median_of(ta);
  r.b_us = median_of(tb);
  r.ratio = r.a_us > 0 ? r.b_us / r.a_us : (r.b_us > 0 ? INFINITY : 1.0);
  // The gate asks more than "slower beyond the noise": slower than A's times multiplied by the
  // limit, beyond the noise. Identical launches then fail only when their noise alone separates
  // B from A by more than the limit.
  const bool gate = s.fail_above_percent >= 0;
  const double limit = 1.0 + std::max(0.0, s.fail_above_percent) / 100.0;
  bool over_limit = false;
  if (smallest_rank_test_p(pa.size(), pb.size()) <= s.significance) {
    r.basis = NoiseBasis::kRankTest;
    const RankTest t = rank_test(ta, tb);
    r.p_value = r.ratio >= 1 ? t.p_slower : t.p_faster;
    r.beyond = r.ratio != 1 && r.p_value <= s.significance;
    if (gate) {  // decided over all rows at once: apply_gate_to_tested_rows
      std::vector<double> scaled = ta;
      for (double& v : scaled) v *= limit;
      r.limit_p_value = rank_test(scaled, tb).p_slower;
    }
  } else if (pa.size() == 1 && pb.size() == 1 && pa[0].ci && pb[0].ci) {
    r.basis = NoiseBasis::kIntervals;
    // Each interval also covers its run's median, so that a median outside its own interval
    // never looks separated by accident.
    const double alo = std::min(pa[0].ci->low, r.a_us), ahi = std::max(pa[0].ci->high, r.a_us);
    const double blo = std::min(pb[0].ci->low, r.b_us), bhi = std::max(pb[0].ci->high, r.b_us);
    r.beyond = blo > ahi || bhi < alo;
    over_limit = blo > ahi * limit;
  } else {
    r.basis = NoiseBasis::kNoiseFloor;
    rank_test_too_weak = rank_test_too_weak || pa.size() > 1 || pb.size() > 1;
    const double floor = 1.0 + s.noise_floor_percent / 100.0;
    r.beyond = r.ratio > floor || r.ratio < 1.0 / floor;
    over_limit = r.beyond;
  }
  r.slowdown_over_limit = gate && r.ratio > limit && over_limit;
  return r;
}

void compare_tables(const SideTable& ta, const SideTable& tb, const CompareSettings& s,
                    Comparison& c) {
  for (const auto& [bytes, pa] : ta.points) {
    const auto it = tb.points.find(bytes);
    if (it == tb.points.end()) continue;
    ComparedRow r = judge(pa, it->second, s, c.rank_test_too_weak);
    r.table = ta.label;
    r.bytes = bytes;
    r.sized = ta.sized;
    c.rows.push_back(r);
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
  }
}

}  // namespace

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
                    : text.find("MPISCOPE_HEAP=system") != std::string::npos
                        ? "the C library's adaptive thresholds"
                    : text.find("environment") != std::string::npos ? "the environment's thresholds"
                                                                    : "the C library's own";
  }
  if (const auto it = s.find("iter_policy"); it != s.end())
    rules["repetitions"] = "-iter_policy " + it->second;
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

namespace {
// "A round robin (IMB 3.1); B rank 0 (current IMB)" for each rule whose values differ among the
// runs that record it.
std::vector<std::string> rule_differences(const std::vector<db::StoredRun>& a,
                                          const std::vector<db::StoredRun>& b) {
  auto values_of = [](const std::vector<db::StoredRun>& runs) {
    std::map<std::string, std::set<std::string>> values;
    for (const auto& r : runs)
      for (const auto& [name, value] : timing_rules(r)) values[name].insert(value);
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
      differences.push_back(name + ": A " + joined(in_a) + "; B " + joined(it->second));
  }
  return differences;
}
}  // namespace

Comparison compare_runs(const std::vector<db::StoredRun>& a, const std::vector<db::StoredRun>& b,
                        const CompareSettings& settings) {
  Comparison c;
  c.rule_differences = rule_differences(a, b);
  Side side_a = collect(a), side_b = collect(b);
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
      if (const SideTable* tb = find_mode(*modes_b, mode))
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
  apply_gate_to_tested_rows(c, settings);
  return c;
}

namespace {

std::string side_lines(const std::string& name, const std::vector<db::StoredRun>& runs) {
  std::string s;
  for (std::size_t i = 0; i < runs.size(); ++i)
    s += (i == 0 ? "# " + name + ": run " : "#    run ") + run_label(runs[i]) + "\n";
  return s;
}

std::string test_cell(const ComparedRow& r, const CompareSettings& s) {
  switch (r.basis) {
    case NoiseBasis::kRankTest:
      return "p=" + output::format_number(r.p_value, 4);
    case NoiseBasis::kIntervals:
      return "CI";
    case NoiseBasis::kNoiseFloor:
      break;
  }
  return "floor " + output::format_number(s.noise_floor_percent, 1) + "%";
}

}  // namespace

std::string render_comparison(const std::vector<db::StoredRun>& a,
                              const std::vector<db::StoredRun>& b, const Comparison& c,
                              const CompareSettings& s) {
  const std::string level = output::format_number(s.significance, 3);
  const std::string floor = output::format_number(s.noise_floor_percent, 1);
  std::string out =
      "# mpiscope compare\n" + side_lines("A", a) + side_lines("B", b) +
      "# time: each run's median (accurate mode), else the suite's headline time (osu), else "
      "t_max where recorded, else t_avg, in microseconds; the median over a side's runs; ratio "
      "= B/A (above 1: B is slower)\n"
      "# noise: with several runs per side, an exact one-sided Wilcoxon-Mann-Whitney rank test "
      "of the runs' times (test p=..., 'beyond' when p <= " +
      level +
      "); with one run per side, the medians' 95% intervals (accurate mode, test CI) apart, "
      "else a change above the noise floor of " +
      floor + " %\n";
  if (s.fail_above_percent >= 0) {
    const std::string factor = output::format_number(1.0 + s.fail_above_percent / 100.0, 3);
    out += "# limit: a row fails when B/A > " + factor + " and B is slower than A x " + factor +
           " beyond the noise (the same rank test against A's times x " + factor +
           ", at the level " + output::format_number(s.gate_level, 3) +
           " for all such rows together (Holm); B's interval above A's x " + factor +
           "; else the noise floor)\n";
  }
  std::string current;
  std::unique_ptr<output::TextTable> table;
  auto flush = [&] {
    if (table) out += "\n# " + current + "\n" + table->render("  ");
  };
  int slow = 0, fast = 0, over = 0;
  for (const auto& r : c.rows) {
    if (r.table != current) {
      flush();
      current = r.table;
      table = std::make_unique<output::TextTable>(
          std::vector<std::string>{r.sized ? "bytes" : "-", "A t[usec]", "B t[usec]", "B/A",
                                   "change[%]", "runs", "test", "noise", "verdict"});
    }
    std::string verdict;
    if (r.beyond) verdict = r.ratio > 1 ? "slower" : "faster";
    if (r.slowdown_over_limit) verdict = "SLOWDOWN";
    slow += r.ratio > 1 && r.beyond;
    fast += r.ratio < 1 && r.beyond;
    over += r.slowdown_over_limit;
    table->add_row({r.sized ? std::to_string(r.bytes) : "-", output::format_number(r.a_us),
                    output::format_number(r.b_us), output::format_number(r.ratio, 3),
                    output::format_number(100.0 * (r.ratio - 1.0), 1),
                    std::to_string(r.a_runs) + ":" + std::to_string(r.b_runs), test_cell(r, s),
                    r.beyond ? "beyond" : "within", verdict});
  }
  flush();
  for (const auto& t : c.only_in_a) out += "\n# only in A: " + t;
  for (const auto& t : c.only_in_b) out += "\n# only in B: " + t;
  if (!c.only_in_a.empty() || !c.only_in_b.empty()) out += "\n";
  if (c.gate_too_weak)
    out += "\n# note: with " + std::to_string(c.gate_rows) +
           " rows tested, the gate needs p <= " + output::format_number(s.gate_level, 3) + "/" +
           std::to_string(c.gate_rows) + " in a row, which these run counts cannot give: use " +
           std::to_string(runs_for_gate(c.gate_rows, s.gate_level)) +
           " runs per side, or fewer rows\n";
  if (!c.rule_differences.empty()) {
    out +=
        "\n# note: the runs were not timed under the same rules; the rows these rules govern "
        "differ by rule as well as by any change of the system:\n";
    for (const auto& d : c.rule_differences) out += "#   " + d + "\n";
  }
  if (c.rank_test_too_weak)
    out += "\n# note: too few runs for the rank test to reach p <= " + level +
           " (4 runs per side suffice); those rows were judged by the noise floor\n";
  out += "\n# " + std::to_string(c.rows.size()) + " rows compared: " + std::to_string(slow) +
         " slower and " + std::to_string(fast) + " faster beyond the noise";
  if (s.fail_above_percent >= 0)
    out += "; " + std::to_string(over) + " slowdowns above " +
           output::format_number(s.fail_above_percent, 1) + " %";
  out += "\n";
  return out;
}

}  // namespace mpiscope::report
