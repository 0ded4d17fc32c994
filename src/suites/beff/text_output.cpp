#include "suites/beff/text_output.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

namespace mpiscope::beff {

namespace {
std::string setting(const core::RunInfo& info, const std::string& name) {
  const auto it = info.settings.find(name);
  return it == info.settings.end() ? "" : it->second;
}
const std::string kAverage = "average/", kAtLmax = "at_lmax/", kLatency = "latency/";
// b_eff.c's log_avg rows: the summary names before "/<length>", and their labels.
const std::pair<const char*, const char*> kByLength[] = {
    {"ring_logavg_at", "log_avg of all rings"},
    {"random_logavg_at", "log_avg of all random"},
    {"b_eff_at", "log_avg(ring,random)"}};
}  // namespace

void TextReporter::run_started(const core::RunInfo& info) {
  processes_ = info.world_size;
  std::fprintf(out_, "# mpiscope beff %s (%s): effective bandwidth b_eff (Rabenseifner)\n",
               info.mpiscope_version.c_str(), info.mpiscope_commit.c_str());
  std::fprintf(out_, "# date: %s\n# machine: %s %s %s\n# processes: %d\n", info.date.c_str(),
               info.system.c_str(), info.release.c_str(), info.machine.c_str(), info.world_size);
  const std::string library = info.mpi_library.substr(0, info.mpi_library.find('\n'));
  std::fprintf(out_, "# MPI library: %s\n", library.c_str());
  for (const char* name :
       {"memory_per_process", "L_max", "message_lengths", "seed", "random_patterns", "repetitions",
        "loop_time_window", "max_looplength", "methods", "timeout_s", "R_max"})
    std::fprintf(out_, "# %s: %s\n", name, setting(info, name).c_str());
  std::fprintf(out_, "# method: %s\n", setting(info, "method_description").c_str());
  if (setting(info, "method") == "accurate") {
    std::fprintf(out_,
                 "# timer: MPI_Wtime, resolution %s s measured (MPI_Wtick %s), %s s per call\n",
                 setting(info, "timer_resolution_s").c_str(),
                 setting(info, "timer_wtick_s").c_str(), setting(info, "timer_cost_s").c_str());
    std::fprintf(out_,
                 "# bandwidth = L * messages per iteration / median time of one iteration (a "
                 "repetition: the slowest rank's time, or the global span), in MB/s (1e6 "
                 "bytes/s);\n# +-ci%% = half-width of the median's 95%% confidence interval "
                 "relative to the median; reps = valid repetitions, inv = started late or overran "
                 "their window\n");
  } else {
    std::fprintf(out_,
                 "# bandwidth = L * messages per iteration * looplength / loop time of the "
                 "slowest rank, in MB/s (1e6 bytes/s)\n");
  }
  std::fflush(out_);
}

void TextReporter::benchmark_started(const core::BenchmarkRun& b) {
  const std::string& name = b.parameters.at("pattern");
  if (name != pattern_) {
    flush_pattern();
    pattern_ = name;
    kinds_[name] = b.parameters.at("kind");
    pattern_order_.push_back(name);
    heading_ = "# " + name + " (" + b.parameters.at("kind") + "): " + b.parameters.at("layout") +
               "; " + std::to_string(b.nprocs) + " processes, " +
               b.parameters.at("messages_per_iteration") + " messages per iteration";
  }
  methods_.push_back(b.parameters.at("method"));
  accurate_ = b.accurate;
}

void TextReporter::row(const core::BenchmarkRun& b, const core::Measurement& m) {
  const auto* bw = m.value("bandwidth");
  if (!bw && !m.accurate) return;
  if (cells_.find(m.bytes) == cells_.end()) lengths_.push_back(m.bytes);
  if (std::find(all_lengths_.begin(), all_lengths_.end(), m.bytes) == all_lengths_.end())
    all_lengths_.push_back(m.bytes);
  Cell& c = cells_[m.bytes][b.parameters.at("method")];
  c.bandwidth = bw ? bw->value : 0;
  c.loops = m.repetitions;
  c.measured = m.measured;
  if (m.accurate) {
    const auto& a = *m.accurate;
    c.valid = a.valid;
    c.invalid = a.attempted - a.valid;
    c.ci_percent =
        m.measured ? 100 * a.summary_us.median_ci.relative_half_width(a.summary_us.median) : 0;
  }
  if (!m.note.empty())
    notes_.push_back(b.parameters.at("method") + " at " + std::to_string(m.bytes) +
                     " bytes: " + m.note);
}

void TextReporter::flush_pattern() {
  if (pattern_.empty()) return;
  std::vector<std::string> headings = {"bytes"};
  for (const auto& method : methods_) {
    // "MPI_Irecv/MPI_Isend/MPI_Waitall" -> "Irecv/Isend/Waitall"
    std::string label = method;
    for (std::size_t at; (at = label.find("MPI_")) != std::string::npos;) label.erase(at, 4);
    headings.push_back(label + " MB/s");
    if (accurate_) {
      headings.insert(headings.end(), {"+-ci%", "reps", "inv"});
    } else {
      headings.push_back("loops");
    }
  }
  headings.push_back("best MB/s");
  output::TextTable table(headings);
  for (std::size_t bytes : lengths_) {
    std::vector<std::string> cells = {std::to_string(bytes)};
    double best = 0;
    for (const auto& method : methods_) {
      const Cell& c = cells_[bytes][method];
      cells.push_back(c.measured ? output::format_number(c.bandwidth, 3) : "-");
      if (accurate_) {
        cells.push_back(c.measured ? output::format_number(c.ci_percent, 1) : "-");
        cells.push_back(std::to_string(c.valid));
        cells.push_back(std::to_string(c.invalid));
      } else {
        cells.push_back(std::to_string(c.loops));
      }
      best = std::max(best, c.bandwidth);
    }
    cells.push_back(output::format_number(best, 3));
    best_[pattern_][bytes] = best;
    table.add_row(cells);
  }
  std::fprintf(out_, "\n%s\n", heading_.c_str());
  table.print(out_, "  ");
  for (const auto& n : notes_) std::fprintf(out_, "  # %s\n", n.c_str());
  std::fflush(out_);
  pattern_.clear();
  methods_.clear();
  lengths_.clear();
  cells_.clear();
  notes_.clear();
}

void TextReporter::summary(const core::NamedValue& v) {
  flush_pattern();
  for (auto& [prefix, map] : {std::pair{&kAverage, &averages_}, std::pair{&kAtLmax, &at_lmax_},
                              std::pair{&kLatency, &latencies_}})
    if (v.name.rfind(*prefix, 0) == 0) {
      (*map)[v.name.substr(prefix->size())] = v.value;
      return;
    }
  const auto slash = v.name.find('/');
  for (const auto& [name, label] : kByLength)
    if (slash != std::string::npos && v.name.compare(0, slash, name) == 0) {
      by_length_[name][std::stoul(v.name.substr(slash + 1))] = v.value;
      return;
    }
  figures_.push_back(v);
}

// b_eff.c's per-pattern summary ("official analysis path"): per pattern its latency, the
// best bandwidth per process at every fourth length (1, 16, 256, 4096 bytes, …, L_max), the
// average over all lengths per process and accumulated; then the log_avg rows.
void TextReporter::print_pattern_summary() {
  if (averages_.empty() || processes_ <= 0) return;
  std::vector<std::size_t> shown;
  for (std::size_t i = 0; i < all_lengths_.size(); i += 4) shown.push_back(all_lengths_[i]);
  std::fprintf(out_,
               "\n# Per pattern (b_eff.c's protocol): latency = one step at 1 byte; MB/s per "
               "process at the lengths shown (bytes); the average over all %zu lengths per "
               "process and accumulated (MB/s = 1e6 bytes/s)\n",
               all_lengths_.size());
  std::vector<std::string> headings = {"pattern", "kind", "latency us"};
  for (std::size_t bytes : shown) headings.push_back(std::to_string(bytes));
  headings.insert(headings.end(), {"average/proc", "accumulated", "at L_max"});
  output::TextTable table(headings);
  const double n = processes_;
  for (const auto& name : pattern_order_) {
    std::vector<std::string> cells = {name, kinds_[name],
                                      output::format_number(latencies_[name], 3)};
    for (std::size_t bytes : shown)
      cells.push_back(output::format_number(best_[name][bytes] / n, 3));
    cells.insert(cells.end(), {output::format_number(averages_[name] / n, 3),
                               output::format_number(averages_[name], 3),
                               output::format_number(at_lmax_[name], 3)});
    table.add_row(cells);
  }
  // The log_avg rows: per process at the shown lengths; the last columns are b_eff's averages
  // of the pattern averages, from the summary.
  const std::pair<const char*, const char*> totals[] = {{"ring_logavg", "ring_at_lmax"},
                                                        {"random_logavg", "random_at_lmax"},
                                                        {"b_eff", "b_eff_at_lmax"}};
  for (std::size_t k = 0; k < std::size(kByLength); ++k) {
    const auto& [name, label] = kByLength[k];
    if (!by_length_.count(name)) continue;
    std::vector<std::string> cells = {label, "", ""};
    for (std::size_t bytes : shown)
      cells.push_back(output::format_number(by_length_[name][bytes] / n, 3));
    double average = 0, lmax = 0;
    for (const auto& f : figures_) {
      if (f.name == totals[k].first) average = f.value;
      if (f.name == totals[k].second) lmax = f.value;
    }
    cells.insert(cells.end(), {output::format_number(average / n, 3),
                               output::format_number(average, 3), output::format_number(lmax, 3)});
    table.add_row(cells);
  }
  table.print(out_, "  ");
}

void TextReporter::run_finished(const core::RunInfo&, bool ok) {
  flush_pattern();
  print_pattern_summary();
  if (!figures_.empty()) {
    std::fprintf(out_, "\n# Summary (b_eff: rings and random patterns only; Table 1 columns)\n");
    std::size_t width = 0;
    for (const auto& f : figures_) width = std::max(width, f.name.size());
    for (const auto& f : figures_) {
      const int decimals = f.unit == "bytes" || f.unit == "processes" ? 0
                           : f.name == "balance_factor"               ? 6
                                                                      : 3;
      std::fprintf(out_, "  %-*s = %s %s\n", static_cast<int>(width), f.name.c_str(),
                   output::format_number(f.value, decimals).c_str(), f.unit.c_str());
    }
  }
  if (!figures_.empty() &&
      std::none_of(figures_.begin(), figures_.end(),
                   [](const core::NamedValue& f) { return f.name == "balance_factor"; }))
    std::fprintf(out_,
                 "  (balance factor = b_eff / R_max: give --rmax, the Linpack R_max in Gflop/s)\n");
  if (!ok)
    std::fprintf(out_,
                 "\n# The run did not complete, or some points have no bandwidth (see the notes "
                 "under their tables).\n");
  std::fflush(out_);
}

}  // namespace mpiscope::beff
