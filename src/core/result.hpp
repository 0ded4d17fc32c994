// The result model: every output (IMB text tables, JSON, CSV, later the database and reports) is
// written from these structures, never from the measuring code directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/overlap.hpp"
#include "core/stats.hpp"

namespace mpiscope::core {

struct RunInfo {
  std::string suite;  // e.g. "imb-mpi1"
  std::string suite_title;
  std::string date;  // local time, as IMB prints it
  std::string date_iso;
  std::string machine, system, release, version;  // uname
  std::map<std::string, int> ranks_per_host;
  int world_size = 0;
  std::string mpi_version;  // MPI_Get_version, "3.1"
  std::string mpi_library;  // MPI_Get_library_version
  std::string thread_level;
  std::string mpiscope_version, mpiscope_commit;
  std::vector<std::string> command_line;
  std::map<std::string, std::string> settings;  // name -> value, as used
  // The MPI library's control variables as rank 0 read them after MPI_Init, name -> value
  // (core/control_variables.hpp); empty for an import or a run recorded before them.
  std::map<std::string, std::string> control_variables;
  bool user_lengths = false;
  std::size_t min_length = 0, max_length = 0;
  std::vector<std::string> benchmarks;  // as listed in the header
  bool multi = false;
  std::string label;        // --label TEXT ('mpiscope label' changes it in the database)
  std::int64_t run_id = 0;  // the run's id in the results database; 0: not recorded (yet)
};

struct GroupTimes {
  double t_min_us = 0, t_max_us = 0, t_avg_us = 0;
  std::optional<double> mbytes_per_sec;  // from t_max, when the benchmark defines a throughput
};

// Non-blocking I/O (guide 4.2.5.2) or collectives (IMB-NBC, OSU) overlapped with CPU work; t_ovrl
// is the row's t_max (its median in accurate mode) unless t_ovrl_us says otherwise.
// core/overlap.hpp computes the figures.
struct OverlapTimes {
  double t_pure_us = 0, t_cpu_us = 0;
  double overlap_percent = 0;  // clamped to [0, 100], as printed
  double raw_percent = 0;      // before clamping
  double error_us = 0;         // plausible error of t_pure + t_CPU - t_ovrl (timer and load)
  double error_percent = 0;    // the same in percent of the base
  double cpu_spread = 0;       // relative spread of the CPU_Exploit calls timed at this point
  bool doubtful = false;       // raw_percent outside [0, 100] by more than error_percent
  OverlapBase base = OverlapBase::Smaller;  // IMB-IO: min(t_pure, t_CPU); IMB-NBC: max; OSU: t_pure
  std::optional<double> t_ovrl_us = std::nullopt;  // OSU: the ranks' mean (the row's t_avg)
};

// A figure a suite defines beyond the IMB columns (b_eff's bandwidth of a pattern, PRESTA's
// MPI_Wtime ticks, …); its unit is always stated.
struct NamedValue {
  std::string name;
  double value = 0;
  std::string unit;
};

// Accurate mode (--method accurate): the statistics over repetitions of one point, each
// repetition's time being the slowest rank's (max-local) or last exit minus first start on
// synchronised clocks (global).
struct AccurateStats {
  std::string sync;             // mpi-barrier | own-barrier | window, as used for this row
  std::string time_definition;  // max-local | global
  std::string stop_reason;      // converged | max-repetitions | time-budget
  int attempted = 0, valid = 0;
  // The stopping rule the point ran under (0: not known, e.g. a row read back from a file).
  int min_repetitions = 0;
  double target_relative_half_width = 0;
  int late = 0, overrun = 0;  // invalid repetitions: started after their window, or overran it
  bool fell_back = false;     // the window scheme failed here; own-barrier was used instead
  double window_us = 0;       // window sync: the window length used
  double clock_offset_max_us = 0, clock_drift_max = 0;  // the clock model's largest corrections
  int repetitions_per_sample = 1;  // timed back to back as one sample (short operations)
  double timer_floor_us = 0;       // the timer's resolution or reading cost, the larger
  LevelShift level_shift;          // medians of the first and second half of the samples (us)
  SampleSummary summary_us;  // over the valid repetitions: median, its interval, outliers, …
};

// One row of a table: one benchmark, one process layout, one message length.
struct Measurement {
  std::size_t bytes = 0;
  int repetitions = 0;
  bool measured = false;  // false: skipped (see note); no times exist for this row
  std::string note;       // why a row was skipped, or a warning
  double t_min_us = 0, t_max_us = 0, t_avg_us = 0;  // over the reported ranks
  std::optional<double> mbytes_per_sec;             // 2^20 bytes per second, from t_max
  std::optional<double> defects;                    // with -check
  std::optional<OverlapTimes> overlap;              // non-blocking I/O
  std::vector<GroupTimes> groups;                   // per group (Multi mode)
  std::vector<double> rank_times_us;                // every active rank, in active order
  std::optional<SampleSummary> samples_us;          // per-repetition samples (rank 0), on request
  std::vector<double> raw_samples_us;
  std::vector<NamedValue> values;  // suite-specific figures of this row
  std::optional<AccurateStats> accurate;

  // The suite-specific figure of that name, or nullptr.
  const NamedValue* value(std::string_view name) const {
    for (const auto& v : values)
      if (v.name == name) return &v;
    return nullptr;
  }

  // The row's representative time: the median in accurate mode, IMB's t_max otherwise.
  double headline_us() const { return accurate ? accurate->summary_us.median : t_max_us; }
};

// A point-to-point curve's model (core/curve_model.hpp): Hockney's t(X) = alpha + X / beta per
// protocol region. One region: the measured lengths first_bytes … last_bytes, and its line.
struct ProtocolRegion {
  std::size_t first_bytes = 0, last_bytes = 0;
  int points = 0;
  double alpha_us = 0;  // the line's time at X = 0
  // 10^6 bytes per second; none when the region's time does not grow with X (a flat line).
  std::optional<double> beta_mb_per_s;
  double rms_relative_error = 0;  // of the region's points against its line
};

struct CurveModel {
  std::vector<ProtocolRegion> regions;  // in order of length
  double rms_relative_error = 0;        // over every point
  std::string time_column;              // what was fitted: "t_max" or "median" (accurate mode)
};

struct BenchmarkRun {
  std::string name;                 // e.g. "PingPong" or "Multi-PingPong"
  std::string family;               // single_transfer | parallel_transfer | collective
  std::string mode;                 // "", "non-aggregate" or "aggregate"
  bool overlap = false;             // non-blocking I/O: t_ovrl, t_pure, t_CPU, overlap columns
  bool pure_and_ovrl_only = false;  // overlap table printing t_pure, t_ovrl (IMB-RMA)
  bool accurate = false;            // --method accurate: rows carry AccurateStats
  bool sized = true;
  bool has_throughput = false;
  bool message_rate = false;  // windowed bandwidth: rows carry "message_rate" (messages/s)
  bool multi = false;
  int multi_outflag = 0;
  int nprocs = 0;                        // active processes per group
  std::vector<std::vector<int>> groups;  // world ranks
  int inactive = 0;
  std::vector<int> map_order;  // non-empty when -map was given
  int map_rows = 0, map_cols = 0;
  bool check = false;
  // What distinguishes this table within its benchmark beyond the process count (b_eff's pattern
  // and method, PRESTA's direction, …), as name -> value.
  std::map<std::string, std::string> parameters;
  std::vector<Measurement> rows;
  std::optional<CurveModel> model;  // a point-to-point curve's, once the table is finished
};

}  // namespace mpiscope::core
