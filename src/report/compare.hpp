// `mpiscope compare`: two stored runs side by side, per benchmark table and message length, as
// the ratio B/A of the reported time, with whether the difference is larger than the spread the
// runs themselves measured.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/results_db.hpp"

namespace mpiscope::report {

// The time a run reports for a row: t_max (IMB's figure, the slowest rank), else t_avg (OSU's
// and SKaMPI's only figure), else t_min; NaN when the row has none.
double reported_time_us(const core::Measurement& m);

// The interval a row's time is known to within, from what the run measured: [t_min, t_max] over
// the ranks when they differ, else the 25-75 % quantiles of the kept samples, else the time
// +/- 2 standard errors (SKaMPI); nullopt when the source recorded no spread.
struct Interval {
  double low = 0, high = 0;
};
std::optional<Interval> measured_spread(const core::Measurement& m);

struct ComparedRow {
  std::string table;  // "PingPong, 2 processes" (+ mode and parameters)
  std::size_t bytes = 0;
  bool sized = true;
  double a_us = 0, b_us = 0;
  double ratio = 0;                  // b / a
  std::optional<bool> beyond;        // the two spreads do not overlap; nullopt: no spread known
  bool slowdown_over_limit = false;  // ratio above 1 + fail_above/100 and not within the spread
};

struct Comparison {
  std::vector<ComparedRow> rows;
  std::vector<std::string> only_in_a, only_in_b;  // tables measured by one run only
};

// fail_above_percent < 0: no limit.
Comparison compare_runs(const db::StoredRun& a, const db::StoredRun& b, double fail_above_percent);
// The readable tables (one per benchmark table) and a closing verdict.
std::string render_comparison(const db::StoredRun& a, const db::StoredRun& b, const Comparison& c,
                              double fail_above_percent);
// The MPI library's first line up to its first comma, blanks collapsed ("MPICH Version: 4.0.2").
std::string short_library_name(const std::string& mpi_library);
// "3 (imb-mpi1, Open MPI v4.1.4, 2024-05-01T10:00:00)"
std::string run_label(const db::StoredRun& r);
// "PingPong, 2 processes, mode aggregate, pattern=ring"
std::string table_label(const core::BenchmarkRun& b);

}  // namespace mpiscope::report
