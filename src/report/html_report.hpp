// `mpiscope report`: one self-contained HTML page (inline CSS, JavaScript and the plotting library
// Vega, no network) that plots the stored runs: every benchmark's time and bandwidth over its
// natural axis (message size, process count, chunks) with accurate mode's intervals and SKaMPI's
// standard errors, several runs overlaid (colour and marker unique within a plot), b_eff as one
// card per run, time over process count across launches, an optional two-sided comparison with
// compare's verdicts, each run's metadata and the runs' summary figures, in one bandwidth unit.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/results_db.hpp"
#include "report/compare.hpp"
#include "report/history.hpp"

namespace mpiscope::report {

// The bandwidth unit of a page: MiB/s (2^20 bytes per second, IMB's and mpiscope's) or MB/s
// (10^6 bytes per second, OSU's, b_eff's and current IMB's).
enum class BandwidthUnit { kMiB, kMB };

// How many bytes per second one unit of a stored bandwidth unit is ("MiB/s", "Mbytes/sec": 2^20;
// "MB/s (1e6 bytes/s)", "MB/s (10^6 ...)": 10^6); nullopt for a unit that is not a bandwidth,
// and for a bare "MB/s", which says nothing about its megabyte.
std::optional<double> bytes_per_second_of(const std::string& unit);

// A comparison of two sides to draw (mpiscope report --compare A:B), as compare computes it.
struct PageComparison {
  std::vector<db::StoredRun> a, b;
  Comparison result;
};

// The page's history view: every run the page covers, in date order, and the history of every
// benchmark over them (history.hpp), for the runs whose full detail the page leaves out.
struct HistoryView {
  HistoryRuns runs;
  History history;
  HistorySettings settings;
  std::size_t detail_runs = 0;  // the newest this many runs have their full detail on the page
};

struct ReportOptions {
  BandwidthUnit units = BandwidthUnit::kMiB;
  std::optional<PageComparison> comparison;
  const HistoryView* history = nullptr;
};

// The history view's numbers: the runs as [id, date, label, MPI library], each series' points as
// run indices (each the step from the one before) and times in microseconds to 4 significant
// digits (a year of nightly runs of IMB-MPI1 stays a few megabytes), with its changes.
nlohmann::json history_view_data(const HistoryView& view);

// A table's card on the page: its name, mode and the parameters that say what it measured
// ("PingPong", "osu_latency, datatype=MPI_CHAR"); the summary links its figures to it.
std::string table_key(const core::BenchmarkRun& b);

// The numbers the page shows: as stored, except bandwidths, converted to the page's one unit.
nlohmann::json report_data(const std::vector<db::StoredRun>& runs, const std::string& db_path,
                           const ReportOptions& options = {});
std::string render_html(const std::vector<db::StoredRun>& runs, const std::string& db_path,
                        const ReportOptions& options = {});

}  // namespace mpiscope::report
