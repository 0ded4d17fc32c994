// `mpiscope history`: one figure of one benchmark over the stored runs in date order (a series
// per table and length), where it changed, by how much, and what else changed with it
// (docs/results-db.md, "History"). The method, in find_changes: binary segmentation, each
// segment split where the standardized Wilcoxon-Mann-Whitney statistic of "before" against
// "after" is largest, and only when a permutation test of that largest statistic finds it
// beyond what the segment's own values in random order give, at a level shared by every series
// tested (Bonferroni). Ranks make it indifferent to the scale and to outliers (a time-sliced
// night); the permutations make its false-alarm rate the level whatever the noise's shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "db/results_db.hpp"
#include "report/compare.hpp"

namespace mpiscope::report {

struct HistorySettings {
  // The chance that a series of identical runs shows a change, for all series tested together.
  double level = 0.01;
  std::size_t min_segment = 5;    // runs on each side of a change, at least
  double min_change_percent = 5;  // smaller changes are counted, not reported
  std::size_t recent_runs = 10;   // --fail-on-change: a change among the newest this many runs
};

// ---- the method, on one series of values (testable alone) --------------------------------

struct Split {
  std::size_t index = 0;  // the first value after the change
  double p_value = 1;     // of the permutation test that split its segment
  // How far apart the two sides' medians lie (log values) in units of their runs' spread (the
  // pooled median absolute deviation, scaled to a standard deviation, at least 1 %).
  double spreads = 0;
};

// The splits of `values` (in order), found by binary segmentation at `level` each, every segment
// at least `min_segment` values long; sorted by index. Deterministic: the permutations come from
// a fixed seed, so that the same series gives the same answer every time.
std::vector<Split> find_changes(const std::vector<double>& values, double level,
                                std::size_t min_segment);

// The same segmentation, keeping also the splits whose test did not reach `level` but that a
// flat segment would rarely give: its p at most `possible_level` (larger), or its sides'
// medians kPossibleChangeSpreads or more of their spread apart (an outlier or two can keep a
// rank test of a few runs from a large change). Too little evidence to show a change, too much
// to call the segment flat; such a split is not segmented further.
struct Segmentation {
  std::vector<Split> changes;   // p at most `level`
  std::vector<Split> possible;  // p above `level`, at most `possible_level`
};
Segmentation segment_series(const std::vector<double>& values, double level, double possible_level,
                            std::size_t min_segment);
// A possible change's level: this many times the series' level, so that over all series
// identical runs give one at most this many times as often as they give a change.
inline constexpr double kPossibleChangeFactor = 20;
inline constexpr double kPossibleChangeSpreads = 4;

// The smallest p-value a series of n values can give: the permutations that put the n/2 smallest
// values first or last, 2 / C(n, n/2), or the Monte Carlo test's resolution at this level.
double smallest_change_p(std::size_t n, double level);

// ---- a history ------------------------------------------------------------------------------

struct HistoryPoint {
  std::int64_t run = 0;
  std::string date;  // the run's date (ISO 8601 where the run has one)
  double us = 0;     // the reported time (compare's: median, else t_max, t_avg, t_min)
  bool converged = true;
};

struct ChangePoint {
  std::size_t index = 0;  // within the series' points: the first run after the change
  double p_value = 1;
  // After against before (times), Hodges-Lehmann's estimate with its distribution-free 95 %
  // bounds, from the up to 200 runs nearest the change on each side; NaN where the
  // runs cannot give bounds.
  double ratio = 1, ratio_low = std::numeric_limits<double>::quiet_NaN(),
         ratio_high = std::numeric_limits<double>::quiet_NaN();
  double spreads = 0;                  // Split::spreads
  double before_us = 0, after_us = 0;  // medians of the segments on either side
  std::size_t before_runs = 0, after_runs = 0;
  bool reported = false;  // |ratio - 1| at least the minimum change
  // What differs between the min_segment runs on each side: "MPI library: before …; after …".
  std::vector<std::string> changed_with_it;
};

struct Series {
  std::string table;  // "Allreduce, 2 processes" (+ mode and parameters)
  std::size_t bytes = 0;
  bool sized = true;
  std::optional<double> argument;    // compare's RowKey beyond the length
  std::vector<HistoryPoint> points;  // in date order
  std::size_t left_out = 0;          // runs whose time is no figure (not physical, no range)
  std::size_t unconverged = 0;       // points whose figure did not converge (taken as measured)
  std::vector<ChangePoint> changes;  // every split found, reported or smaller
  // Splits whose test fell between the level and kPossibleChangeFactor times it: "cannot tell"
  // where one of at least the minimum change lies among the newest runs.
  std::vector<ChangePoint> possible;
  std::string cannot_tell;  // why this series could not show a change; empty: it could
};

struct History {
  std::string benchmark;
  std::vector<Series> series;
  std::size_t tested = 0;   // series with enough runs to be tested
  double series_level = 0;  // the level each of them was tested at
  std::size_t runs = 0;     // runs that measured the benchmark
};

// The runs of a history, gathered one at a time in date order so that a year of nightly runs is
// never held whole: each run's tables become its figures (compare's), and the run is kept
// without them (what changed with a change is read from its header and settings).
struct HistoryRuns {
  std::vector<db::StoredRun> runs;  // in date order, without their tables
  RunFigures figures;
  std::size_t with_tables = 0;  // runs that measured something of it
  void add(db::StoredRun run);
};

// One series per table and row of `runs`; `benchmark` names what they are (the report: every
// benchmark).
History history_of(const std::string& benchmark, const HistoryRuns& runs,
                   const HistorySettings& settings);
// The runs, in date order, each holding the benchmark's tables (load_run with
// LoadLimits::benchmark).
History history_of(const std::string& benchmark, const std::vector<db::StoredRun>& runs,
                   const HistorySettings& settings);

// The reported changes whose first run after is among the newest `recent_runs` of its series.
std::size_t recent_changes(const History& h, const HistorySettings& settings);
// The same count for the possible changes of at least the minimum change.
std::size_t recent_possible_changes(const History& h, const HistorySettings& settings);

// A change's figures, as `history --json` and the report's history view both give them.
nlohmann::json change_json(const ChangePoint& c);
nlohmann::json history_json(const History& h, const HistorySettings& settings);
std::string render_history(const History& h, const HistorySettings& settings,
                           const std::string& db_path);

}  // namespace mpiscope::report
