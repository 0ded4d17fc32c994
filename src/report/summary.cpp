#include "report/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "core/control_variables.hpp"
#include "core/provenance.hpp"
#include "report/compare.hpp"
#include "report/html_report.hpp"

namespace mpiscope::report {

namespace {

constexpr double kMiB = 1048576.0;

std::string bytes_text(std::size_t bytes) {
  constexpr std::size_t kMiBBytes = 1 << 20;
  if (bytes >= kMiBBytes && bytes % kMiBBytes == 0) return fmt::format("{} MiB", bytes / kMiBBytes);
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes / 1024);
  return fmt::format("{} B", bytes);
}

std::string mb_per_s(double value) {
  return fmt::format("{:.0f} MB/s", value);
}

// "run 3: PingPong, 2 processes".
std::string source_of(const db::StoredRun& run, const core::BenchmarkRun* table) {
  if (!table) return fmt::format("run {}: {}", run.id, run.info.suite);
  return fmt::format("run {}: {}, {} process{}", run.id, table->name, table->nprocs,
                     table->nprocs == 1 ? "" : "es");
}

SummaryFigure figure(std::string name, std::string value, std::string how, const db::StoredRun& run,
                     const core::BenchmarkRun* table) {
  return {std::move(name), std::move(value), how + " (" + source_of(run, table) + ")", run.id,
          table ? table_key(*table) : ""};
}

SummaryFigure missing(std::string name, std::string how) {
  return {std::move(name), "not measured", std::move(how), 0, ""};
}

// The runs newest first: each figure comes from the first that has it.
std::vector<const db::StoredRun*> newest_first(const std::vector<db::StoredRun>& runs) {
  std::vector<const db::StoredRun*> order;
  for (const auto& r : runs) order.push_back(&r);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->id > b->id; });
  return order;
}

struct Found {
  const db::StoredRun* run = nullptr;
  const core::BenchmarkRun* table = nullptr;
};

// The newest table `wanted` accepts (in a run's own order), or none.
Found newest_table(const std::vector<const db::StoredRun*>& runs,
                   const std::function<bool(const core::BenchmarkRun&)>& wanted) {
  for (const auto* r : runs)
    for (const auto& b : r->benchmarks)
      if (wanted(b)) return {r, &b};
  return {};
}

// Latency, bandwidth and protocol switch from the newest modelled point-to-point latency curve
// of two processes (PingPong, osu_latency).
void add_model_figures(const std::vector<const db::StoredRun*>& runs,
                       std::vector<SummaryFigure>& figures) {
  const auto found = newest_table(runs, [](const core::BenchmarkRun& b) {
    return b.model && b.nprocs == 2 && (b.name == "PingPong" || b.name == "osu_latency");
  });
  if (!found.table) {
    const std::string how =
        "no PingPong or osu_latency curve of 8 lengths or more (mpiscope imb-mpi1 PingPong)";
    figures.push_back(missing("latency", how));
    figures.push_back(missing("bandwidth", how));
    figures.push_back(missing("protocol switch", how));
    return;
  }
  const auto& model = *found.table->model;
  const auto& first = model.regions.front();
  const auto& last = model.regions.back();
  const std::string fit =
      fmt::format("fit error {:.1f} %{}", 100 * model.rms_relative_error,
                  model.rms_relative_error > 0.15 ? ", a poor fit: no finding" : "");
  figures.push_back(
      figure("latency", fmt::format("{:.3g} us", first.alpha_us),
             fmt::format("fitted alpha of {} to {}, {}", bytes_text(first.first_bytes),
                         bytes_text(first.last_bytes), fit),
             *found.run, found.table));
  figures.push_back(
      last.beta_mb_per_s
          ? figure("bandwidth", mb_per_s(*last.beta_mb_per_s),
                   fmt::format("fitted beta of {} to {}", bytes_text(last.first_bytes),
                               bytes_text(last.last_bytes)),
                   *found.run, found.table)
          : figure("bandwidth", "not found",
                   "the curve's last region does not grow with the length", *found.run,
                   found.table));
  std::string switches;
  for (std::size_t i = 1; i < model.regions.size(); ++i)
    switches += (switches.empty() ? "" : ", ") + bytes_text(model.regions[i - 1].last_bytes) +
                " -> " + bytes_text(model.regions[i].first_bytes);
  figures.push_back(figure("protocol switch", switches.empty() ? "none found" : switches,
                           fmt::format("where the model's regions meet, {} to {} measured",
                                       bytes_text(first.first_bytes), bytes_text(last.last_bytes)),
                           *found.run, found.table));
}

// The row of highest bandwidth among a run's tables that `chosen` picks, and its table.
struct HighestBandwidth {
  const core::BenchmarkRun* table = nullptr;
  const core::Measurement* row = nullptr;
};
template <class Chosen>
HighestBandwidth highest_bandwidth(const db::StoredRun& run, Chosen chosen) {
  HighestBandwidth best;
  for (const auto& b : run.benchmarks) {
    if (!chosen(b)) continue;
    for (const auto& m : b.rows)
      if (m.measured && m.mbytes_per_sec && std::isfinite(*m.mbytes_per_sec) &&
          (!best.row || *m.mbytes_per_sec > *best.row->mbytes_per_sec))
        best = {&b, &m};
  }
  return best;
}

// The highest bandwidth a two-sided single transfer reached (IMB's PingPong and PingPing, OSU's
// osu_bw), in the newest run that has one, and at which length. Not IMB-IO's (to and from files),
// nor the one-sided transfers of IMB-EXT, IMB-RMA and OSU (their windows' own figure).
void add_peak_bandwidth(const std::vector<const db::StoredRun*>& runs,
                        std::vector<SummaryFigure>& figures) {
  for (const auto* r : runs) {
    const auto& suite = r->info.suite;
    if (suite == "imb-io" || suite == "imb-ext" || suite == "imb-rma") continue;
    const auto best = highest_bandwidth(*r, [](const core::BenchmarkRun& b) {
      return b.family == "single_transfer" && !b.multi &&
             b.parameters.count("window creation") == 0;  // OSU's one-sided programs
    });
    if (best.row) {
      figures.push_back(figure("peak bandwidth", mb_per_s(*best.row->mbytes_per_sec * kMiB / 1e6),
                               "at " + bytes_text(best.row->bytes), *r, best.table));
      return;
    }
  }
  figures.push_back(missing("peak bandwidth", "no PingPong, PingPing or osu_bw table"));
}

// A run's own figure (b_eff, b_eff_io) in MB/s.
std::optional<SummaryFigure> run_figure(const std::vector<const db::StoredRun*>& runs,
                                        const std::string& suite, const std::string& figure_name,
                                        const std::string& name, const std::string& how) {
  for (const auto* r : runs) {
    if (r->info.suite != suite) continue;
    for (const auto& v : r->summary)
      if (v.name == figure_name)
        if (const auto bps = bytes_per_second_of(v.unit))
          return figure(name, mb_per_s(v.value * *bps / 1e6),
                        fmt::format("{} of {} processes", how, r->info.world_size), *r, nullptr);
  }
  return std::nullopt;
}

// IMB-IO's highest write and read bandwidth, from the newest IMB-IO run.
void add_imb_io(const std::vector<const db::StoredRun*>& runs,
                std::vector<SummaryFigure>& figures) {
  for (const auto* r : runs) {
    if (r->info.suite != "imb-io") continue;
    for (const char* kind : {"Write", "Read"}) {
      const auto best = highest_bandwidth(
          *r, [&](const core::BenchmarkRun& b) { return b.name.find(kind) != std::string::npos; });
      if (best.row)
        figures.push_back(figure(
            std::string("I/O ") + (kind[0] == 'W' ? "write" : "read"),
            mb_per_s(*best.row->mbytes_per_sec * kMiB / 1e6),
            "the highest of IMB-IO's tables, at " + bytes_text(best.row->bytes), *r, best.table));
    }
    return;
  }
}

// The newest `mpiscope guidelines` run's count of violated points.
void add_guidelines(const std::vector<const db::StoredRun*>& runs,
                    std::vector<SummaryFigure>& figures) {
  for (const auto* r : runs) {
    if (r->info.suite != "guidelines") continue;
    std::map<std::string, double> counts;
    for (const auto& v : r->summary) counts[v.name] = v.value;
    if (!counts.count("guideline_violations") || !counts.count("guideline_points")) continue;
    const auto tolerance = r->info.settings.find("tolerance_percent");
    figures.push_back(
        figure("guideline violations",
               fmt::format("{:.0f} of {:.0f} points", counts["guideline_violations"],
                           counts["guideline_points"]),
               fmt::format("collectives slower than their mock-ups beyond {} %; {:.0f} cannot tell",
                           tolerance == r->info.settings.end() ? "?" : tolerance->second,
                           counts["guideline_cannot_tell"]),
               *r, nullptr));
    return;
  }
  figures.push_back(missing("guideline violations", "no guidelines run (mpiscope guidelines)"));
}

void add_configuration(const std::vector<const db::StoredRun*>& runs,
                       std::vector<SummaryFigure>& figures) {
  for (const auto* r : runs) {
    const auto& s = r->info.settings;
    const auto binding = s.find(core::kCpuBindingSetting);
    if (binding == s.end()) continue;  // recorded before the provenance, or imported
    figures.push_back(figure("MPI library", short_library_name(r->info.mpi_library),
                             "MPI_Get_library_version", *r, nullptr));
    std::string placement = binding->second;
    if (const auto o = s.find("oversubscribed"); o != s.end() && o->second != "no")
      placement += "; oversubscribed: " + o->second;
    figures.push_back(figure("placement", placement, "each rank's CPUs", *r, nullptr));
    const auto changed = s.find(core::kChangedControlVariablesSetting);
    figures.push_back(
        figure("control variables", changed == s.end() ? "not recorded" : changed->second,
               "changed from the library's defaults by the environment", *r, nullptr));
    figures.push_back(figure("MPI environment", core::environment_line(s),
                             "the variables of MPI, its launcher and transports", *r, nullptr));
    return;
  }
  figures.push_back(missing("MPI library", "no run recorded its configuration (imports do not)"));
}

}  // namespace

MachineSummary machine_summary(const std::vector<db::StoredRun>& runs) {
  MachineSummary summary;
  summary.runs = runs.size();
  const auto order = newest_first(runs);
  auto& f = summary.figures;
  add_model_figures(order, f);
  add_peak_bandwidth(order, f);
  if (auto b_eff = run_figure(order, "beff", "b_eff", "b_eff", "effective bandwidth"))
    f.push_back(*b_eff);
  else
    f.push_back(missing("b_eff", "no b_eff run (mpiscope beff)"));
  const std::size_t before_io = f.size();
  if (auto io = run_figure(order, "beffio", "b_eff_io", "b_eff_io", "effective I/O bandwidth"))
    f.push_back(*io);
  add_imb_io(order, f);
  if (f.size() == before_io)
    f.push_back(missing("I/O bandwidth", "no IMB-IO or b_eff_io run (mpiscope imb-io, beffio)"));
  add_guidelines(order, f);
  add_configuration(order, f);
  return summary;
}

std::string summary_text(const MachineSummary& summary, const std::string& db_path) {
  std::string text =
      fmt::format("# mpiscope summary of {} run{} in {} (MB/s = 10^6 bytes per second)\n",
                  summary.runs, summary.runs == 1 ? "" : "s", db_path);
  for (const auto& f : summary.figures)
    text += fmt::format("{:<22}{:<17} {}\n", f.name, f.value, f.how);
  return text;
}

nlohmann::json summary_json(const MachineSummary& summary) {
  nlohmann::json figures = nlohmann::json::array();
  for (const auto& f : summary.figures)
    figures.push_back(
        {{"name", f.name}, {"value", f.value}, {"how", f.how}, {"run", f.run}, {"table", f.table}});
  return {{"runs", summary.runs}, {"figures", figures}};
}

}  // namespace mpiscope::report
