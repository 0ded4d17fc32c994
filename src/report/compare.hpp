// `mpiscope compare`: two sets of stored runs side by side, per benchmark table and message
// length, as the ratio B/A of the reported time, with whether the difference is larger than the
// run-to-run noise (an exact Wilcoxon-Mann-Whitney rank test on the runs' figures, and the
// distribution-free bounds of B/A it gives) and whether the data could have shown a change of
// the size asked about at all: rows that could not say "cannot tell" (docs/results-db.md).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "db/results_db.hpp"

namespace mpiscope::report {

// The time a run reports for a row: the median (accurate mode), else t_max (IMB's figure, the
// slowest rank), else t_avg (OSU's and SKaMPI's only figure), else t_min; NaN when it has none.
double reported_time_us(const core::Measurement& m);

// Accurate mode's 95 % interval of the median: how the repetitions within one launch spread
// (the report's error bars), never how a figure moves from launch to launch; nullopt otherwise.
struct Interval {
  double low = 0, high = 0;
};
std::optional<Interval> median_interval(const core::Measurement& m);

// Table parameters that record how a run went rather than what its table measures: the
// measuring method (`measurement`, classic and accurate runs compare) and SKaMPI's
// `refinement_max_error` (the error estimate left when refinement stopped, different in every
// run). Tables that differ only in these share compare's rows and the report's card.
bool is_outcome_parameter(const std::string& name);

// ---- statistics ---------------------------------------------------------------------------

double median_of(std::vector<double> values);             // NaN for none
std::vector<double> logs_of(std::vector<double> values);  // each value's natural logarithm
// The standard normal quantile of 1 - alpha (alpha in (0, 0.5)), by bisection on erfc.
double normal_quantile_upper(double alpha);

// The exact permutation distribution of the Wilcoxon-Mann-Whitney rank sum of `b` among all
// values (ties get mid-ranks): the one-sided p-values that B is stochastically larger (slower)
// and smaller (faster) than A. Both are 1 when either side is empty.
struct RankTest {
  double p_slower = 1, p_faster = 1;
};
RankTest rank_test(const std::vector<double>& a, const std::vector<double>& b);
// The smallest one-sided p-value the rank test can give with na and nb values: 1 / C(na+nb, na).
double smallest_rank_test_p(std::size_t na, std::size_t nb);

// The distribution-free bounds of the shift of B against A (Hodges-Lehmann's, from the exact
// distribution of the Mann-Whitney count): with d the na x nb differences b_j - a_i in ascending
// order, [d(k), d(na nb + 1 - k)] where k is the largest count whose one-sided tail probability
// is at most `alpha`. nullopt when na and nb cannot reach `alpha` (smallest_rank_test_p).
std::optional<Interval> shift_bounds(const std::vector<double>& a, const std::vector<double>& b,
                                     double alpha);

// The runs per side the gate needs to be able to fail with `rows` rows judged by the rank test:
// the smallest n with 1 / C(2n, n) <= gate_level / rows (5 for up to 12 rows at 0.05).
std::size_t runs_for_gate(std::size_t rows, double gate_level);

// ---- the figures of a set of runs, by table and row (compare's sides, history's series) ---

// One run's figure for one row of a table.
struct RunFigure {
  double us = 0;
  std::int64_t run = 0;
  std::string not_a_figure;  // why this time cannot be judged (not converged, not physical)
  double cpu_wait_percent = std::nan("");  // the most any rank waited for a CPU (NaN: unknown)
  // Where the run's figure could lie: `us` itself when it converged; for one that did not, its
  // own range (core::unconverged_range), each end taken where it works against the verdict.
  double low = 0, high = 0;
  bool converged = true;
};

// A row within its table: the length and, where the suite varies something else at one length
// (SKaMPI's process count or chunks), that argument.
using RowKey = std::pair<std::size_t, std::optional<double>>;

// One table over a set of runs (a side of compare, a series of history): its rows' times, one per
// run that measured them.
struct FigureTable {
  std::string label;
  bool sized = true;
  std::map<RowKey, std::vector<RunFigure>> points;  // row -> one point per run
};

// A set of runs' tables by what they measure (name, processes, parameters), then by mode, each in
// the order the runs first measured them.
struct RunFigures {
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, FigureTable>>>> tables;
  std::vector<std::pair<std::string, FigureTable>>* find(const std::string& key) {
    for (auto& [k, modes] : tables)
      if (k == key) return &modes;
    return nullptr;
  }
};

// The runs' figures, in the order of `runs`: each measured row's reported_time_us, judged
// (not converged, not physical) and with its run's CPU wait. Within a run, a later table of
// the same key and mode (a repeated benchmark) replaces the earlier one.
RunFigures figures_by_table(const std::vector<db::StoredRun>& runs);
// One run more, after those already in `figures` (history reads a year of runs one at a time).
void add_figures(RunFigures& figures, const db::StoredRun& run);

// ---- the comparison -----------------------------------------------------------------------

// One launch's figure differs from the next identical launch's by less than this factor when
// neither was time-sliced by other work (core::kDisturbedCpuWaitPercent); with fewer runs than
// the rank test needs, only a change beyond it decides. Conservative: the largest ratio of
// identical single launches seen on the 2-core test machine was 3.4 (bench/README.md,
// compare_false_alarms.sh), and a gate must not fail identical reruns.
inline constexpr double kSingleRunBound = 10.0;

struct CompareSettings {
  double fail_above_percent = -1;  // < 0: no limit
  // Without a limit, the smallest change a row's data must be able to show for the row to be
  // called "within the noise" (--noise-floor); with one, the limit is that change.
  double noise_floor_percent = 5;
  // One-sided level of the rank test per row, and of each bound of B/A without a limit.
  double significance = 0.025;
  // The gate's level over all rows the rank test judges together (Holm's procedure): the
  // largest chance that identical launches fail --fail-above; also the one-sided level of the
  // upper bound of B/A that passes a row.
  double gate_level = 0.05;
};

// What a row's verdict rests on.
enum class NoiseBasis {
  kRankTest,    // several runs per side: the rank test and the bounds of B/A it gives
  kBound,       // too few runs for the rank test: only a change beyond kSingleRunBound counts
  kNotAFigure,  // a side's figure is not physical, or did not converge and bounds nothing
};

struct ComparedRow {
  std::string table;  // "PingPong, 2 processes" (+ mode and parameters), as A's runs name it
  std::size_t bytes = 0;
  bool sized = true;
  // The point within its table beyond the length (SKaMPI's argument when the suite varies the
  // process count or chunks); nullopt when the length alone names the row.
  std::optional<double> argument;
  std::size_t a_runs = 0, b_runs = 0;  // runs of each side that measured the row
  // Of those, the runs whose figure did not converge but whose range is known: each counts at
  // the end of its range that works against the verdict (core::unconverged_range).
  std::size_t unconverged_runs = 0;
  double a_us = 0, b_us = 0;  // the median over those runs of each run's time
  double ratio = 0;           // b / a
  NoiseBasis basis = NoiseBasis::kBound;
  double p_value = 1;        // kRankTest: the one-sided p in the direction of the ratio
  double limit_p_value = 1;  // kRankTest with a limit: p that B is slower than A x (1 + limit)
  // kRankTest: the distribution-free confidence bounds of B/A, each one-sided at
  // `significance` (at `gate_level` with a limit), from the ratios of every pair of runs; NaN
  // where the run counts cannot give them.
  double ratio_low = 0, ratio_high = 0;
  bool beyond = false;  // the difference exceeds the noise
  // Slower than 1 + fail_above/100 beyond the noise: several runs, the rank test of B against
  // A's times x (1 + fail_above/100), its p-values taken together over the rows at gate_level
  // (Holm); fewer, B/A above (1 + fail_above/100) x kSingleRunBound.
  bool slowdown_over_limit = false;
  // The data could have shown a change of the size asked about (the limit, else the noise
  // floor): with a limit, a slowdown was found or B/A's upper bound lies below the limit;
  // without, the difference is beyond the noise or B/A's bounds lie within the noise floor.
  // A row that is not conclusive is "cannot tell", never "within the noise".
  bool conclusive = false;
  std::string why_not_conclusive;  // empty when conclusive
  // How many runs per side would have made the row conclusive, from the spread of its runs
  // (0: the spread cannot be estimated; SIZE_MAX: no number, B/A lies at the limit).
  std::size_t runs_needed = 0;
};

// "SLOWDOWN", "slower", "faster", "" (within the noise), "cannot tell" or "slower, cannot tell":
// the verdict column of compare and the report.
std::string verdict_text(const ComparedRow& r);

struct Comparison {
  std::vector<ComparedRow> rows;
  std::vector<std::string> only_in_a, only_in_b;  // tables measured by one side only
  // Tables both sides have, but without one row (length, argument) measured on both: listed, as
  // the tables of one side are, rather than left out without a word.
  std::vector<std::string> no_row_in_common;
  std::size_t gate_rows = 0;        // rows the gate judged by the rank test together
  bool gate_too_weak = false;       // too few runs to reach gate_level / gate_rows in a row
  bool rank_test_too_weak = false;  // several runs, but too few for the rank test's level
  std::size_t inconclusive = 0;     // rows whose verdict is "cannot tell"
  // Rules of timing the two sides do not share ("collectives' root: A round robin (IMB 3.1);
  // B rank 0 (current IMB)"): the rows they govern differ by rule as well as by whatever the
  // comparison looks for.
  std::vector<std::string> rule_differences;
  // How MPI was configured or where its ranks ran, where the sides differ ("UCX_TLS: A unset;
  // B tcp", "CPU binding: A …; B …"; core/provenance.hpp): a cause to rule out before the machine.
  std::vector<std::string> provenance_differences;
  // Where a point-to-point curve's model (core/curve_model.hpp) switches protocol, where the sides
  // differ ("PingPong (2 processes): A at 4096 bytes; B at 16384 bytes"): what changed with it.
  std::vector<std::string> switch_differences;
};

// The rules a run was timed under that change what its rows measure (IMB's warm-up, collectives'
// root and synchronisation, repetition policy), by a readable name; a run recorded before the
// root and synchronisation were stored apart says them in its `collectives_rule` text. Runs that
// record none (imports, other suites) give an empty map.
std::map<std::string, std::string> timing_rules(const db::StoredRun& run);

// A run's provenance by a readable name: each recorded MPI environment variable (its value, or
// "unset" when the run recorded its environment without it), each of `control_variables` as
// "control variable NAME" (the library's reading, where the run recorded one), "CPU binding" and
// "oversubscribed". Runs recorded before the provenance (and imports) give an empty map.
std::map<std::string, std::string> provenance_of(const db::StoredRun& run,
                                                 const std::set<std::string>& variables,
                                                 const std::set<std::string>& control_variables);

// Every MPI variable the runs of either side recorded, so that one set on one side only reads
// "unset" on the other, and the library's control variables they name (read on both sides, so
// that the default shows where it was not set): provenance_of's names.
struct ProvenanceNames {
  std::set<std::string> variables, control_variables;
};
ProvenanceNames provenance_names(const std::vector<db::StoredRun>& a,
                                 const std::vector<db::StoredRun>& b);

// "collectives' root: A round robin (IMB 3.1); B rank 0 (current IMB)" for each named value (a
// rule, a variable) that differs among the runs that record it; `sides` names the two sides.
std::vector<std::string> value_differences(
    const std::vector<db::StoredRun>& a, const std::vector<db::StoredRun>& b,
    const std::function<std::map<std::string, std::string>(const db::StoredRun&)>& named,
    const std::pair<std::string, std::string>& sides = {"A", "B"});

// Where each modelled table of a run switches protocol ("at 4096 bytes", "none found"), by the
// table's name and process count; tables without a model are left out.
std::map<std::string, std::string> protocol_switches(const db::StoredRun& run);

// Each side is one or more runs (repetitions of the same measurement). Tables match on the
// benchmark name (case-insensitive: Intel's S_Write_Indv is mpiscope's S_Write_indv), process
// count and parameters other than the measuring method (classic and accurate runs compare, each
// by its own time); on the mode when both sides measured the benchmark in several modes.
Comparison compare_runs(const std::vector<db::StoredRun>& a, const std::vector<db::StoredRun>& b,
                        const CompareSettings& settings);
// A figure as JSON: the number, or null where it is NaN or infinite (JSON has neither).
nlohmann::json number_or_null(double v);

// The comparison as data (compare --json, the report's comparison): the runs of each side and
// every row with its verdict and the reason a row cannot tell.
nlohmann::json comparison_json(const std::vector<db::StoredRun>& a,
                               const std::vector<db::StoredRun>& b, const Comparison& c);

// The readable tables (one per benchmark table) and a closing verdict.
std::string render_comparison(const std::vector<db::StoredRun>& a,
                              const std::vector<db::StoredRun>& b, const Comparison& c,
                              const CompareSettings& settings);
// The MPI library's first line up to its first comma, blanks collapsed ("MPICH Version: 4.0.2").
std::string short_library_name(const std::string& mpi_library);
// When a run was made, as "YYYY-MM-DD HH:MM": its ISO date, else the date its file printed (IMB:
// "Mon Nov 23 12:00:00 2026"), else (a file without a date) when it was imported; "-" if none.
std::string run_date_text(const std::string& date_iso, const std::string& date,
                          const std::string& recorded_at = "");
// "3 (imb-mpi1, Open MPI v4.1.4, 2024-05-01T10:00:00)"
std::string run_label(const db::StoredRun& r);
// "PingPong, 2 processes, mode aggregate, pattern=ring"
std::string table_label(const core::BenchmarkRun& b);

}  // namespace mpiscope::report
