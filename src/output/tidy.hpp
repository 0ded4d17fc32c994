// The long ("tidy") layout of results, shared by the per-run CSV file (--csv) and
// `mpiscope export`: one measured quantity per row, with the run, suite, benchmark, mode, process
// count and message length beside it and every table parameter in a column of its own, so that
// pandas.read_csv (comment='#') or read_json gives a data frame without any hand parsing.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace mpiscope::output {

// What every row of a run repeats.
struct TidyRun {
  std::string run;  // the run's id in the results database; empty when not recorded
  std::string label, date, suite;
};
TidyRun tidy_run(const core::RunInfo& info);

struct TidyRow {
  std::string benchmark, family, mode, method, group = "all";
  int processes = 0;
  std::optional<std::size_t> bytes;  // none: a figure of the whole run (b_eff, …)
  std::optional<int> repetitions;
  std::string quantity;  // e.g. t_avg_us, mbytes_per_sec, median_us; empty: a skipped point
  std::optional<double> value;
  std::string unit, note;
  const std::map<std::string, std::string>* parameters = nullptr;  // the table's
};

// The fixed columns, in order; parameters follow in columns of their own.
const std::vector<std::string>& tidy_columns();
// A parameter's column: its name, or parameter_NAME when a fixed column has that name.
std::string parameter_column(const std::string& name);

// The rows of one table row as the database stores it (db::table_as_stored, db::row_as_stored:
// accurate mode's median and interval are quantities like the others). Statistics the source did
// not record (NaN) give no row; a point that was not measured gives one row without a quantity.
std::vector<TidyRow> tidy_rows(const core::BenchmarkRun& table, const core::Measurement& row);
// A point-to-point curve's model (core/curve_model.hpp) in group "model": for each protocol
// region, at its first length, model_alpha_us, model_beta_mb_per_s (10^6 bytes/s; none for a flat
// region), model_last_bytes and model_error_percent, the note naming the time fitted. None
// without a model.
std::vector<TidyRow> tidy_model_rows(const core::BenchmarkRun& table);
// A summary figure of the run (b_eff, b_eff_io, …): a row without benchmark and length.
TidyRow tidy_summary(const core::NamedValue& figure);

// CSV: the header and one line, parameters in `parameter_names` order (absent ones empty).
std::string tidy_csv_header(const std::vector<std::string>& parameter_names);
std::string tidy_csv_line(const TidyRun& run, const TidyRow& row,
                          const std::vector<std::string>& parameter_names);
// JSON: one object per row with the same keys (parameters the table lacks are left out).
nlohmann::json tidy_json(const TidyRun& run, const TidyRow& row);

}  // namespace mpiscope::output
