// The results database: one SQLite file holding every recorded or imported run with its
// metadata, tables, rows and summary figures (schema in docs/results-db.md). Written one
// transaction per table and per row, in WAL mode, so that a killed run keeps every finished
// measurement and several runs may write to the same file at once.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "db/sqlite.hpp"

namespace mpiscope::db {

// 1: the first release; 2: runs.label; 3: benchmarks.model; 4: runs.control_variables; 5: run
// ids are never given out twice (runs.id AUTOINCREMENT). Opening an older database for writing
// migrates it.
inline constexpr int kSchemaVersion = 5;

// A statistic the source did not record (an imported OSU table has only the average time):
// NaN in memory, NULL in the database.
inline constexpr double kNotRecorded = std::numeric_limits<double>::quiet_NaN();

// A run as stored: what the result model holds, plus where it came from.
struct StoredRun {
  std::int64_t id = 0;
  std::string source = "mpiscope";  // "mpiscope", "import:imb", "import:osu", "import:skampi"
  std::string source_file;          // imports: the file read
  bool complete = false;            // run_finished was recorded
  bool ok = false;                  // … and every measurement could run
  std::string recorded_host;        // host and pid of the process that wrote the run
  std::int64_t recorded_pid = 0;
  core::RunInfo info;
  std::vector<core::BenchmarkRun> benchmarks;
  std::vector<std::string> notes;
  std::vector<core::NamedValue> summary;
  // What a bounded load (LoadLimits) left in the database.
  std::size_t tables_left_out = 0;  // whole tables beyond the points budget
  std::size_t rows_left_out = 0;    // rows of loaded tables thinned to the per-table limit
};

// How much of a run to load: a report of a run with millions of rows shows a part of it, the
// database keeps all. A table longer than max_rows_per_table is thinned to every k-th row (its
// last row kept); tables that would take the run beyond max_points are left out.
struct LoadLimits {
  std::size_t max_points = static_cast<std::size_t>(-1);
  std::size_t max_rows_per_table = static_cast<std::size_t>(-1);
  // Only the tables of this benchmark (its name, case-insensitive); empty: every table.
  std::string benchmark;
};

// A row as the database holds it: accurate mode's statistics over repetitions and the overlap's
// raw figure and error become named values (median_us, ci95_low_us, ci95_high_us,
// ci_confidence, overlap_raw_percent, …; the schema has no columns of their own), from which
// compare and report take the median and its interval, and export its quantities.
core::Measurement row_as_stored(const core::Measurement& m);
// A table as the database holds it: an accurate table gets the parameter measurement=accurate,
// its rows as row_as_stored. The live recorder (output::DbReporter) and the import of
// mpiscope's own SKaMPI output files store through these two, so that both give the same table.
core::BenchmarkRun table_as_stored(const core::BenchmarkRun& b);
// Its parameters alone (without copying the rows).
std::map<std::string, std::string> parameters_as_stored(const core::BenchmarkRun& b);

// One line of `mpiscope runs`.
struct RunListing {
  std::int64_t id = 0;
  std::string date_iso, suite, mpi_library, mpi_version, source, source_file, machine;
  std::string date;         // as the source printed it (imports may lack date_iso)
  std::string recorded_at;  // when the database received it (UTC, ISO 8601)
  std::string label;        // --label / 'mpiscope label'; empty: none
  std::string method;       // the run's `method` setting (classic, imb, accurate); empty: unknown
  // Provenance (core/provenance.hpp): its `env:` settings as "NAME=value …" by name, and its
  // `cpu_binding`; both empty for a run recorded without provenance (or an import).
  std::string environment, cpu_binding;
  int world_size = 0;
  bool complete = false;
  std::int64_t tables = 0, rows = 0;
};

// $MPISCOPE_DB, else $XDG_DATA_HOME/mpiscope/results.sqlite, else
// ~/.local/share/mpiscope/results.sqlite.
std::string default_db_path();
// Creates the parent folders of the default location (never of a path the user chose).
void prepare_default_location(const std::string& path);

class ResultsDb {
 public:
  enum class Open { kWrite, kRead };
  // kWrite creates the file and schema when missing; kRead requires an existing mpiscope
  // database. Throws DbError (also for a file that is not an mpiscope database or has a newer
  // schema).
  explicit ResultsDb(const std::string& path, Open mode = Open::kWrite);

  // Recording as a run goes: each call is its own transaction.
  std::int64_t begin_run(const core::RunInfo& info, const std::string& source = "mpiscope",
                         const std::string& source_file = "");
  std::int64_t add_benchmark(std::int64_t run_id, int seq, const core::BenchmarkRun& b);
  void add_row(std::int64_t benchmark_id, int seq, const core::Measurement& m);
  // A finished table's curve model (core/curve_model.hpp).
  void set_model(std::int64_t benchmark_id, const core::CurveModel& model);
  void add_note(std::int64_t run_id, const std::string& text);
  void add_summary(std::int64_t run_id, const core::NamedValue& v);
  void finish_run(std::int64_t run_id, bool ok);
  // Adds settings known only at the end of a recorded run (rank 0's CPU share).
  void add_settings(std::int64_t run_id, const std::map<std::string, std::string>& settings);

  // A whole run (imports) in one transaction; returns its id.
  std::int64_t store(const StoredRun& run);

  // A run written as its file is read, inside one Transaction the caller holds, so that no
  // file is ever held whole in memory: begin_import, import_table for each table, then
  // end_import with the run's header (some of which the file tells only at its end).
  std::int64_t begin_import(const std::string& source, const std::string& source_file);
  void import_table(std::int64_t run_id, int seq, const core::BenchmarkRun& b);
  void end_import(std::int64_t run_id, const StoredRun& header);

  std::vector<RunListing> list_runs();
  bool has_run(std::int64_t id);
  // The runs holding a table of this benchmark (its name in any case), in id order.
  std::vector<std::int64_t> runs_holding(const std::string& benchmark);
  // The names of the table parameters of these runs, sorted (`mpiscope export`'s columns).
  std::vector<std::string> parameter_names(const std::vector<std::int64_t>& run_ids);
  // 'mpiscope label': replaces the run's label (empty: none). DbError for an unknown run.
  void set_label(std::int64_t id, const std::string& label);
  // 'mpiscope delete': removes the runs with everything they hold, all or none (one
  // transaction). DbError, with nothing removed, when one of them is not in the database.
  void delete_runs(const std::vector<std::int64_t>& ids);
  StoredRun load_run(std::int64_t id, const LoadLimits& limits = {});  // DbError: no such run

  Connection& connection() { return conn_; }
  const std::string& path() const { return conn_.path(); }

 private:
  void refuse_foreign();
  void ensure_schema();
  void check_schema();
  std::int64_t insert_run(const core::RunInfo& info, const std::string& source,
                          const std::string& source_file);
  // The header's columns (all but where the run came from), then its hosts and settings.
  void write_run_header(std::int64_t id, const StoredRun& header);
  void write_run_details(std::int64_t id, const core::RunInfo& info);
  std::int64_t insert_benchmark(std::int64_t run_id, int seq, const core::BenchmarkRun& b);
  void insert_row(std::int64_t benchmark_id, int seq, const core::Measurement& m);

  // A database file this object created: removed again unless its schema was written, so that
  // a full disk leaves no empty file that later reads as "not an mpiscope results database".
  class NewFile {
   public:
    NewFile(const std::string& path, Open mode);
    ~NewFile();
    NewFile(const NewFile&) = delete;
    NewFile& operator=(const NewFile&) = delete;
    void keep() { path_.clear(); }

   private:
    std::string path_;  // empty: nothing to remove
  };

  NewFile new_file_;  // before conn_: it outlives the connection
  Connection conn_;
  int schema_version_ = kSchemaVersion;  // of the file (a read-only one may be older)
};

}  // namespace mpiscope::db
