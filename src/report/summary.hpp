// The machine on one screen (issue 32): the figures a person runs a benchmark suite for (latency
// and bandwidth as the curve's model gives them, where the library switches protocol, the peak
// bandwidth and where, b_eff, the I/O bandwidth, the library's configuration and the ranks'
// placement), each from the newest stored run that measured it and naming that run and table.
// `mpiscope summary`, the quickstart's last screen and the report's first card are this one
// computation.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "db/results_db.hpp"

namespace mpiscope::report {

struct SummaryFigure {
  std::string name;      // "latency"
  std::string value;     // "0.14 us"; "not measured" when no run has it
  std::string how;       // "fitted alpha of 0 B to 2 KiB", or what would measure it
  std::int64_t run = 0;  // the run it comes from; 0 when none
  std::string table;     // the benchmark it comes from, as the report's cards name it; "" for a
                         // run's own figure (b_eff, the configuration)
};

struct MachineSummary {
  std::vector<SummaryFigure> figures;
  std::size_t runs = 0;  // the runs it was drawn from
};

// `runs` in any order; each figure from the run with the highest id that has it.
MachineSummary machine_summary(const std::vector<db::StoredRun>& runs);
// One line per figure: "latency          0.14 us   fitted alpha of 0 B to 2 KiB (run 1, PingPong)".
std::string summary_text(const MachineSummary& summary, const std::string& db_path);
nlohmann::json summary_json(const MachineSummary& summary);

}  // namespace mpiscope::report
