#include "report/compare.hpp"

#include <cmath>
#include <map>
#include <memory>
#include <string>

#include "output/text_table.hpp"

namespace mpiscope::report {

double reported_time_us(const core::Measurement& m) {
  if (!m.measured) return std::nan("");
  if (const auto* median = m.value("median_us")) return median->value;  // accurate mode
  if (std::isfinite(m.t_max_us)) return m.t_max_us;
  if (std::isfinite(m.t_avg_us)) return m.t_avg_us;
  return m.t_min_us;
}

std::optional<Interval> measured_spread(const core::Measurement& m) {
  if (!m.measured) return std::nullopt;
  // Accurate mode: the 95 % interval of the median is the spread that matters.
  const auto* low = m.value("ci95_low_us");
  const auto* high = m.value("ci95_high_us");
  if (low && high) return Interval{low->value, high->value};
  if (std::isfinite(m.t_min_us) && std::isfinite(m.t_max_us) && m.t_max_us > m.t_min_us)
    return Interval{m.t_min_us, m.t_max_us};
  if (m.samples_us && m.samples_us->n > 1) return Interval{m.samples_us->p25, m.samples_us->p75};
  if (const auto* se = m.value("std_error")) {
    const double t = reported_time_us(m);
    return Interval{t - 2 * se->value, t + 2 * se->value};
  }
  return std::nullopt;
}

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

Comparison compare_runs(const db::StoredRun& a, const db::StoredRun& b, double fail_above) {
  Comparison c;
  // A table is identified by its label (name, process count, mode, parameters); a later table
  // with the same label (a repeated benchmark) replaces the earlier one.
  std::map<std::string, const core::BenchmarkRun*> tables_b;
  for (const auto& t : b.benchmarks) tables_b[table_label(t)] = &t;
  std::map<std::string, bool> seen;
  for (const auto& ta : a.benchmarks) {
    const std::string label = table_label(ta);
    if (seen[label]) continue;
    seen[label] = true;
    const auto it = tables_b.find(label);
    if (it == tables_b.end()) {
      c.only_in_a.push_back(label);
      continue;
    }
    const auto& tb = *it->second;
    std::map<std::size_t, const core::Measurement*> rows_b;
    for (const auto& m : tb.rows)
      if (m.measured) rows_b[m.bytes] = &m;
    for (const auto& ma : ta.rows) {
      const auto rb = rows_b.find(ma.bytes);
      if (!ma.measured || rb == rows_b.end()) continue;
      const auto& mb = *rb->second;
      ComparedRow r;
      r.table = label;
      r.bytes = ma.bytes;
      r.sized = ta.sized;
      r.a_us = reported_time_us(ma);
      r.b_us = reported_time_us(mb);
      if (!std::isfinite(r.a_us) || !std::isfinite(r.b_us)) continue;
      r.ratio = r.a_us > 0 ? r.b_us / r.a_us : (r.b_us > 0 ? INFINITY : 1.0);
      const auto sa = measured_spread(ma), sb = measured_spread(mb);
      // Each interval also covers its run's reported time, so that a figure outside its own
      // rank range (PingPong's t_max is one rank's) never looks separated by accident.
      if (sa && sb) {
        const double alo = std::min(sa->low, r.a_us), ahi = std::max(sa->high, r.a_us);
        const double blo = std::min(sb->low, r.b_us), bhi = std::max(sb->high, r.b_us);
        r.beyond = blo > ahi || bhi < alo;
      }
      r.slowdown_over_limit =
          fail_above >= 0 && r.ratio > 1.0 + fail_above / 100.0 && r.beyond.value_or(true);
      c.rows.push_back(r);
    }
  }
  for (const auto& tb : b.benchmarks) {
    const std::string label = table_label(tb);
    if (!seen.count(label)) {
      seen[label] = true;
      c.only_in_b.push_back(label);
    }
  }
  return c;
}

std::string render_comparison(const db::StoredRun& a, const db::StoredRun& b, const Comparison& c,
                              double fail_above) {
  std::string out =
      "# mpiscope compare\n# A: run " + run_label(a) + "\n# B: run " + run_label(b) +
      "\n# time: the median (accurate mode), else t_max where recorded, else t_avg, in "
      "microseconds; ratio = B/A "
      "(above 1: B is slower)\n# spread: 'beyond' when the intervals (the median's 95% CI, "
      "else [t_min, t_max], sample quartiles or +/-2 standard errors) do not "
      "overlap\n";
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
                                   "change[%]", "spread", "verdict"});
    }
    const bool beyond = r.beyond.value_or(false);
    std::string verdict = "";
    if (r.beyond && beyond) verdict = r.ratio > 1 ? "slower" : "faster";
    if (r.slowdown_over_limit) verdict = "SLOWDOWN";
    slow += r.ratio > 1 && beyond;
    fast += r.ratio < 1 && beyond;
    over += r.slowdown_over_limit;
    table->add_row({r.sized ? std::to_string(r.bytes) : "-", output::format_number(r.a_us),
                    output::format_number(r.b_us), output::format_number(r.ratio, 3),
                    output::format_number(100.0 * (r.ratio - 1.0), 1),
                    !r.beyond ? "unknown" : (*r.beyond ? "beyond" : "within"), verdict});
  }
  flush();
  for (const auto& t : c.only_in_a) out += "\n# only in A: " + t;
  for (const auto& t : c.only_in_b) out += "\n# only in B: " + t;
  if (!c.only_in_a.empty() || !c.only_in_b.empty()) out += "\n";
  out += "\n# " + std::to_string(c.rows.size()) + " rows compared: " + std::to_string(slow) +
         " slower and " + std::to_string(fast) + " faster beyond the measured spread";
  if (fail_above >= 0)
    out += "; " + std::to_string(over) + " slowdowns above " +
           output::format_number(fail_above, 1) + " %";
  out += "\n";
  return out;
}

}  // namespace mpiscope::report
