#include "suites/map/text_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/stats.hpp"
#include "output/text_table.hpp"

namespace mpiscope::map {

namespace {

std::string setting(const core::RunInfo& info, const std::string& name) {
  const auto it = info.settings.find(name);
  return it == info.settings.end() ? "" : it->second;
}

std::string parameter(const core::BenchmarkRun& b, const std::string& name) {
  const auto it = b.parameters.find(name);
  return it == b.parameters.end() ? "" : it->second;
}

}  // namespace

void TextReporter::run_started(const core::RunInfo& info) {
  std::fprintf(out_, "# mpiscope map %s (%s): point-to-point latency and bandwidth of every pair\n",
               info.mpiscope_version.c_str(), info.mpiscope_commit.c_str());
  std::fprintf(out_, "# date: %s\n# machine: %s %s %s\n# processes: %d\n", info.date.c_str(),
               info.system.c_str(), info.release.c_str(), info.machine.c_str(), info.world_size);
  const std::string library = info.mpi_library.substr(0, info.mpi_library.find('\n'));
  std::fprintf(out_, "# MPI library: %s\n", library.c_str());
  for (const char* name : {"hosts_of_ranks", "oversubscribed", "latency", "bandwidth", "schedule",
                           "sweeps", "outliers"})
    std::fprintf(out_, "# %s: %s\n", name, setting(info, name).c_str());
  std::fflush(out_);
}

TextReporter::Pair& TextReporter::pair_of(const core::BenchmarkRun& b) {
  const int a = std::stoi(parameter(b, "rank_a")), c = std::stoi(parameter(b, "rank_b"));
  if (pairs_.empty() || pairs_.back().a != a || pairs_.back().b != c)
    pairs_.push_back(
        {a, c, parameter(b, "host_a"), parameter(b, "host_b"), parameter(b, "link"), ""});
  return pairs_.back();
}

void TextReporter::row(const core::BenchmarkRun& b, const core::Measurement& m) {
  if (b.name != "map") return;  // a sweep's figures (map_sweep), recorded as measured
  Pair& p = pair_of(b);
  if (!m.note.empty()) p.flag = m.note;
  if (const auto* v = m.value("latency")) p.latency_us = v->value;
  if (const auto* v = m.value("bandwidth")) p.bandwidth_mbs = v->value;
}

void TextReporter::run_finished(const core::RunInfo&, bool ok) {
  // Every pair, while the list stays readable; JSON, CSV and the database always have them all.
  if (pairs_.size() <= kMaxPairLines) {
    std::fprintf(
        out_,
        "\n# Every pair, median over the sweeps: latency = 10th percentile round trip / 2 "
        "of the small message in us; bandwidth = large bytes / the same of the large one, in "
        "MB/s (1e6 bytes/s)\n");
    output::TextTable t({"rank_a", "rank_b", "hosts", "latency[us]", "bandwidth[MB/s]", "flag"});
    for (const auto& p : pairs_)
      t.add_row({std::to_string(p.a), std::to_string(p.b), p.host_a + "-" + p.host_b,
                 output::format_number(p.latency_us, 2), output::format_number(p.bandwidth_mbs, 1),
                 p.flag});
    t.print(out_);
  } else {
    std::fprintf(out_, "\n# %zu pairs: the list is in --json, --csv and the database\n",
                 pairs_.size());
  }

  // Host × host: the median over the rank pairs of each host pair.
  std::map<std::pair<std::string, std::string>, std::pair<std::vector<double>, std::vector<double>>>
      by_hosts;
  for (const auto& p : pairs_) {
    auto& cell = by_hosts[std::minmax(p.host_a, p.host_b)];
    cell.first.push_back(p.latency_us);
    cell.second.push_back(p.bandwidth_mbs);
  }
  std::fprintf(out_, "\n# Host pairs: median over their rank pairs\n");
  output::TextTable hosts({"host_a", "host_b", "pairs", "latency[us]", "bandwidth[MB/s]"});
  for (const auto& [key, cell] : by_hosts)
    hosts.add_row({key.first, key.second, std::to_string(cell.first.size()),
                   output::format_number(core::quantile(cell.first, 0.5), 2),
                   output::format_number(core::quantile(cell.second, 0.5), 1)});
  hosts.print(out_);

  std::fprintf(out_, "\n# Distributions\n");
  for (const auto& v : summaries_) {
    const int decimals = v.unit == "us" ? 2 : v.unit == "MB/s" ? 1 : v.unit == "s" ? 3 : 0;
    std::fprintf(out_, "%-32s %12s %s\n", v.name.c_str(),
                 output::format_number(v.value, decimals).c_str(), v.unit.c_str());
  }
  std::fprintf(out_, "\n# Outliers\n");
  for (const auto& n : notes_) std::fprintf(out_, "%s\n", n.c_str());
  if (!ok) std::fprintf(out_, "# the map is incomplete\n");
  std::fflush(out_);
}

}  // namespace mpiscope::map
