#include "db/results_db.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <concepts>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/convergence.hpp"
#include "core/curve_model.hpp"
#include "core/text.hpp"

namespace mpiscope::db {

using nlohmann::json;

namespace {

std::optional<double> known(double v) {
  if (std::isnan(v)) return std::nullopt;
  return v;
}

std::string groups_as_json(const std::vector<core::GroupTimes>& groups) {
  json out = json::array();
  for (const auto& g : groups) {
    json gj = {{"t_min_us", g.t_min_us}, {"t_max_us", g.t_max_us}, {"t_avg_us", g.t_avg_us}};
    if (g.mbytes_per_sec) gj["mbytes_per_sec"] = *g.mbytes_per_sec;
    out.push_back(gj);
  }
  return out.dump();
}

std::vector<core::GroupTimes> groups_from_json(const std::string& text) {
  std::vector<core::GroupTimes> out;
  for (const auto& g : json::parse(text)) {
    core::GroupTimes gt{g.at("t_min_us"), g.at("t_max_us"), g.at("t_avg_us"), std::nullopt};
    if (g.contains("mbytes_per_sec")) gt.mbytes_per_sec = g["mbytes_per_sec"].get<double>();
    out.push_back(gt);
  }
  return out;
}

// One accessor per column serves both directions: called with a FieldWriter it binds the
// model's field to the column's `:name` parameter, with a FieldReader it fills the field from
// the column. What is written and what is read back therefore cannot drift apart.
// Arrays (per-rank times, raw samples, command line, groups) are JSON text: they are read
// whole, never queried by part. A double that is NaN (not recorded) is NULL.
class FieldWriter {
 public:
  FieldWriter(Statement& s, std::string parameter)
      : statement_(s), parameter_(std::move(parameter)) {}
  void operator()(const std::string& v) { statement_.bind(parameter_, v); }
  template <std::integral T>
  void operator()(T v) {
    statement_.bind(parameter_, static_cast<std::int64_t>(v));
  }
  void operator()(double v) { statement_.bind(parameter_, known(v)); }
  void operator()(const std::optional<double>& v) { statement_.bind(parameter_, v); }
  void operator()(const std::vector<core::GroupTimes>& v) {
    statement_.bind(parameter_, groups_as_json(v));
  }
  void operator()(const std::optional<core::CurveModel>& v) {
    statement_.bind(parameter_, v ? core::model_to_json(*v) : std::string());
  }
  template <class T>
  void operator()(const std::vector<T>& v) {
    statement_.bind(parameter_, json(v).dump());
  }
  void operator()(const std::map<std::string, std::string>& v) {
    statement_.bind(parameter_, json(v).dump());
  }
  // NULL unless `written` (a row that was not measured has no times, never a made-up zero).
  template <class T>
  void when(bool written, const T& v) {
    if (written) (*this)(v);
  }
  // A field of a part the model may lack (overlap times, sample summary): NULL without it.
  template <class Part, class T>
  void part(const std::optional<Part>& part, T Part::*field, bool written = true) {
    if (written && part) (*this)((*part).*field);
  }

 private:
  Statement& statement_;
  std::string parameter_;
};

class FieldReader {
 public:
  FieldReader(const Statement& s, int column) : statement_(s), column_(column) {}
  void operator()(std::string& v) { v = statement_.text(column_); }
  template <std::integral T>
  void operator()(T& v) {
    v = static_cast<T>(statement_.int64(column_));
  }
  void operator()(double& v) { v = statement_.optional_real(column_).value_or(kNotRecorded); }
  void operator()(std::optional<double>& v) { v = statement_.optional_real(column_); }
  void operator()(std::vector<core::GroupTimes>& v) {
    v = groups_from_json(statement_.text(column_));
  }
  void operator()(std::optional<core::CurveModel>& v) {
    const std::string text = statement_.text(column_);
    v = text.empty() ? std::nullopt : std::optional(core::model_from_json(text));
  }
  template <class T>
  void operator()(std::vector<T>& v) {
    v = json::parse(statement_.text(column_)).get<std::vector<T>>();
  }
  void operator()(std::map<std::string, std::string>& v) {
    v = json::parse(statement_.text(column_)).get<std::map<std::string, std::string>>();
  }
  template <class T>
  void when(bool, T& v) {
    (*this)(v);
  }
  template <class Part, class T>
  void part(std::optional<Part>& part, T Part::*field, bool = true) {
    if (statement_.is_null(column_)) return;
    if (!part) part.emplace();
    (*this)((*part).*field);
  }

 private:
  const Statement& statement_;
  int column_;
};

// Which statements write a column. kAlways: the row's insert and the run header's update
// (an import learns the header at the end of its file). kOnInsert: only the insert (where the
// row came from). kElsewhere: a statement of its own (finish_run) or SQLite's default.
enum class Written { kAlways, kOnInsert, kElsewhere };

// A column that holds one field of the result model. Adding a column to a table is one entry
// here: CREATE TABLE, INSERT, UPDATE and SELECT are generated from the list.
template <class Model>
struct Column {
  const char* name;
  const char* declaration;  // type and constraints, as in CREATE TABLE
  void (*write)(FieldWriter&, const Model&) = nullptr;
  void (*read)(FieldReader&, Model&) = nullptr;  // nullptr: never read back
  Written written = Written::kAlways;
  // The schema version that added the column: a newer one is added by ALTER TABLE when an older
  // database is opened for writing (migrate), and left out of reads of a database not yet
  // migrated (opened read-only).
  int since_version = 1;
};

// `access` is a generic lambda `[](auto& io, auto& model) { io(model.field); }`.
template <class Model, class Access>
Column<Model> column(const char* name, const char* declaration, Access access,
                     Written written = Written::kAlways, int since_version = 1) {
  return {name, declaration, access, access, written, since_version};
}

// A table of one part of the model: its row id, then the columns that tie a row to its parent
// (bound by name by the caller), then the model's columns.
template <class Model>
struct Table {
  std::string name;
  std::vector<std::pair<std::string, std::string>> parent_keys;  // name, declaration
  std::vector<Column<Model>> columns;
};

// Version 1 of the schema (docs/results-db.md describes every column).
const Table<StoredRun> kRuns{
    "runs",
    {},
    {
        column<StoredRun>("source", "TEXT NOT NULL", [](auto& io, auto& r) { io(r.source); }),
        column<StoredRun>(
            "source_file", "TEXT NOT NULL DEFAULT ''", [](auto& io, auto& r) { io(r.source_file); },
            Written::kOnInsert),
        column<StoredRun>("suite", "TEXT NOT NULL", [](auto& io, auto& r) { io(r.info.suite); }),
        column<StoredRun>("suite_title", "TEXT NOT NULL DEFAULT ''",
                          [](auto& io, auto& r) { io(r.info.suite_title); }),
        column<StoredRun>("date", "TEXT NOT NULL DEFAULT ''",
                          [](auto& io, auto& r) { io(r.info.date); }),
        column<StoredRun>("date_iso", "TEXT NOT NULL DEFAULT ''",
                          [](auto& io, auto& r) { io(r.info.date_iso); }),
        column<StoredRun>("machine", "TEXT NOT NULL DEFAULT ''",
                          [](auto& io, auto& r) { io(r.info.machine); }),
        column<StoredRun>("system", "TEXT NOT NULL DEFAULT ''",
                          [](auto& io, auto& r) { io(r.info.system); }),
        column<StoredRun>("release", "TEXT NOT NULL DEFAULT ''",
                          [](auto& io, auto& r) { io(r.info.release); }),
        column<StoredRun>("os_version", "TEXT NOT NULL DEFAULT ''",
                          [](auto& io, auto& r) { io(r.info.version); }),
        column<StoredRun>("world_size", "INTEGER NOT NULL DEFAULT 0",
                          [](auto& io, auto& r) { io(r.info.world_size); }),
        column<StoredRun>("mpi_version", "TEXT NOT NULL DEFAULT ''",
                          [](auto& io, auto& r) { io(r.info.mpi_version); }),
        column<StoredRun>("mpi_library", "TEXT NOT NULL DEFAULT ''",
                          [](auto& io, auto& r) { io(r.info.mpi_library); }),
        column<StoredRun>("thread_level", "TEXT NOT NULL DEFAULT ''",
                          [](auto& io, auto& r) { io(r.info.thread_level); }),
        column<StoredRun>("mpiscope_version", "TEXT NOT NULL DEFAULT ''",
                          [](auto& io, auto& r) { io(r.info.mpiscope_version); }),
        column<StoredRun>("mpiscope_commit", "TEXT NOT NULL DEFAULT ''",
                          [](auto& io, auto& r) { io(r.info.mpiscope_commit); }),
        column<StoredRun>("command_line", "TEXT NOT NULL DEFAULT '[]'",
                          [](auto& io, auto& r) { io(r.info.command_line); }),
        column<StoredRun>("benchmarks", "TEXT NOT NULL DEFAULT '[]'",
                          [](auto& io, auto& r) { io(r.info.benchmarks); }),
        column<StoredRun>("user_lengths", "INTEGER NOT NULL DEFAULT 0",
                          [](auto& io, auto& r) { io(r.info.user_lengths); }),
        column<StoredRun>("min_length", "INTEGER NOT NULL DEFAULT 0",
                          [](auto& io, auto& r) { io(r.info.min_length); }),
        column<StoredRun>("max_length", "INTEGER NOT NULL DEFAULT 0",
                          [](auto& io, auto& r) { io(r.info.max_length); }),
        column<StoredRun>("multi", "INTEGER NOT NULL DEFAULT 0",
                          [](auto& io, auto& r) { io(r.info.multi); }),
        column<StoredRun>(
            "recorded_host", "TEXT NOT NULL DEFAULT ''",
            [](auto& io, auto& r) { io(r.recorded_host); }, Written::kOnInsert),
        column<StoredRun>(
            "recorded_pid", "INTEGER NOT NULL DEFAULT 0",
            [](auto& io, auto& r) { io(r.recorded_pid); }, Written::kOnInsert),
        {"recorded_at", "TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))", nullptr,
         nullptr, Written::kElsewhere},
        column<StoredRun>(
            "complete", "INTEGER NOT NULL DEFAULT 0", [](auto& io, auto& r) { io(r.complete); },
            Written::kElsewhere),
        column<StoredRun>(
            "ok", "INTEGER NOT NULL DEFAULT 0", [](auto& io, auto& r) { io(r.ok); },
            Written::kElsewhere),
        // Version 2: --label TEXT ('mpiscope label' changes it; imports have none).
        column<StoredRun>(
            "label", "TEXT NOT NULL DEFAULT ''", [](auto& io, auto& r) { io(r.info.label); },
            Written::kOnInsert, 2),
        // Version 4: the MPI library's control variables (core/control_variables.hpp) as a JSON
        // object, name -> value; '{}' for an import or a run recorded before them.
        column<StoredRun>(
            "control_variables", "TEXT NOT NULL DEFAULT '{}'",
            [](auto& io, auto& r) { io(r.info.control_variables); }, Written::kOnInsert, 4),
    }};

const char* const kRunDetailsV1 = R"sql(CREATE TABLE run_hosts (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  host TEXT NOT NULL,
  ranks INTEGER NOT NULL,
  PRIMARY KEY (run_id, host)
);
CREATE TABLE run_settings (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (run_id, name)
);
CREATE TABLE run_notes (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  text TEXT NOT NULL
);
CREATE TABLE run_summary (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value REAL NOT NULL,
  unit TEXT NOT NULL
);
)sql";

const Table<core::BenchmarkRun> kBenchmarks{
    "benchmarks",
    {{"run_id", "INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE"},
     {"seq", "INTEGER NOT NULL"}},
    {
        column<core::BenchmarkRun>("name", "TEXT NOT NULL", [](auto& io, auto& b) { io(b.name); }),
        column<core::BenchmarkRun>("family", "TEXT NOT NULL DEFAULT ''",
                                   [](auto& io, auto& b) { io(b.family); }),
        column<core::BenchmarkRun>("mode", "TEXT NOT NULL DEFAULT ''",
                                   [](auto& io, auto& b) { io(b.mode); }),
        column<core::BenchmarkRun>("nprocs", "INTEGER NOT NULL",
                                   [](auto& io, auto& b) { io(b.nprocs); }),
        column<core::BenchmarkRun>("overlap", "INTEGER NOT NULL DEFAULT 0",
                                   [](auto& io, auto& b) { io(b.overlap); }),
        column<core::BenchmarkRun>("sized", "INTEGER NOT NULL DEFAULT 1",
                                   [](auto& io, auto& b) { io(b.sized); }),
        column<core::BenchmarkRun>("has_throughput", "INTEGER NOT NULL DEFAULT 0",
                                   [](auto& io, auto& b) { io(b.has_throughput); }),
        column<core::BenchmarkRun>("multi", "INTEGER NOT NULL DEFAULT 0",
                                   [](auto& io, auto& b) { io(b.multi); }),
        column<core::BenchmarkRun>("multi_outflag", "INTEGER NOT NULL DEFAULT 0",
                                   [](auto& io, auto& b) { io(b.multi_outflag); }),
        column<core::BenchmarkRun>("groups", "TEXT NOT NULL DEFAULT '[]'",
                                   [](auto& io, auto& b) { io(b.groups); }),
        column<core::BenchmarkRun>("inactive", "INTEGER NOT NULL DEFAULT 0",
                                   [](auto& io, auto& b) { io(b.inactive); }),
        column<core::BenchmarkRun>("map_order", "TEXT NOT NULL DEFAULT '[]'",
                                   [](auto& io, auto& b) { io(b.map_order); }),
        column<core::BenchmarkRun>("map_rows", "INTEGER NOT NULL DEFAULT 0",
                                   [](auto& io, auto& b) { io(b.map_rows); }),
        column<core::BenchmarkRun>("map_cols", "INTEGER NOT NULL DEFAULT 0",
                                   [](auto& io, auto& b) { io(b.map_cols); }),
        column<core::BenchmarkRun>("checked", "INTEGER NOT NULL DEFAULT 0",
                                   [](auto& io, auto& b) { io(b.check); }),
        // Version 3: a point-to-point curve's model (core/curve_model.hpp) as the JSON output's
        // "model" object; '' when none. Known when the table is finished (set_model).
        column<core::BenchmarkRun>(
            "model", "TEXT NOT NULL DEFAULT ''", [](auto& io, auto& b) { io(b.model); },
            Written::kOnInsert, 3),
    }};

const char* const kBenchmarkDetailsV1 =
    R"sql(CREATE INDEX benchmarks_by_run ON benchmarks(run_id, seq);
CREATE TABLE benchmark_parameters (
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (benchmark_id, name)
);
)sql";

using core::Measurement;
using core::OverlapTimes;
using core::SampleSummary;

const Table<Measurement> kMeasurements{
    "measurements",
    {{"benchmark_id", "INTEGER NOT NULL REFERENCES benchmarks(id) ON DELETE CASCADE"},
     {"seq", "INTEGER NOT NULL"}},
    {
        column<Measurement>("bytes", "INTEGER NOT NULL", [](auto& io, auto& m) { io(m.bytes); }),
        column<Measurement>("repetitions", "INTEGER",
                            [](auto& io, auto& m) { io.when(m.measured, m.repetitions); }),
        column<Measurement>("measured", "INTEGER NOT NULL",
                            [](auto& io, auto& m) { io(m.measured); }),
        column<Measurement>("note", "TEXT NOT NULL DEFAULT ''",
                            [](auto& io, auto& m) { io(m.note); }),
        column<Measurement>("t_min_us", "REAL",
                            [](auto& io, auto& m) { io.when(m.measured, m.t_min_us); }),
        column<Measurement>("t_max_us", "REAL",
                            [](auto& io, auto& m) { io.when(m.measured, m.t_max_us); }),
        column<Measurement>("t_avg_us", "REAL",
                            [](auto& io, auto& m) { io.when(m.measured, m.t_avg_us); }),
        column<Measurement>("mbytes_per_sec", "REAL",
                            [](auto& io, auto& m) { io.when(m.measured, m.mbytes_per_sec); }),
        column<Measurement>("defects", "REAL",
                            [](auto& io, auto& m) { io.when(m.measured, m.defects); }),
        column<Measurement>(
            "t_pure_us", "REAL",
            [](auto& io, auto& m) { io.part(m.overlap, &OverlapTimes::t_pure_us, m.measured); }),
        column<Measurement>(
            "t_cpu_us", "REAL",
            [](auto& io, auto& m) { io.part(m.overlap, &OverlapTimes::t_cpu_us, m.measured); }),
        column<Measurement>("overlap_percent", "REAL",
                            [](auto& io, auto& m) {
                              io.part(m.overlap, &OverlapTimes::overlap_percent, m.measured);
                            }),
        column<Measurement>("rank_times_us", "TEXT NOT NULL DEFAULT '[]'",
                            [](auto& io, auto& m) { io(m.rank_times_us); }),
        column<Measurement>("groups", "TEXT NOT NULL DEFAULT '[]'",
                            [](auto& io, auto& m) { io(m.groups); }),
        column<Measurement>("samples_n", "INTEGER",
                            [](auto& io, auto& m) { io.part(m.samples_us, &SampleSummary::n); }),
        column<Measurement>("samples_min_us", "REAL",
                            [](auto& io, auto& m) { io.part(m.samples_us, &SampleSummary::min); }),
        column<Measurement>("samples_max_us", "REAL",
                            [](auto& io, auto& m) { io.part(m.samples_us, &SampleSummary::max); }),
        column<Measurement>("samples_mean_us", "REAL",
                            [](auto& io, auto& m) { io.part(m.samples_us, &SampleSummary::mean); }),
        column<Measurement>(
            "samples_median_us", "REAL",
            [](auto& io, auto& m) { io.part(m.samples_us, &SampleSummary::median); }),
        column<Measurement>("samples_p05_us", "REAL",
                            [](auto& io, auto& m) { io.part(m.samples_us, &SampleSummary::p05); }),
        column<Measurement>("samples_p25_us", "REAL",
                            [](auto& io, auto& m) { io.part(m.samples_us, &SampleSummary::p25); }),
        column<Measurement>("samples_p75_us", "REAL",
                            [](auto& io, auto& m) { io.part(m.samples_us, &SampleSummary::p75); }),
        column<Measurement>("samples_p95_us", "REAL",
                            [](auto& io, auto& m) { io.part(m.samples_us, &SampleSummary::p95); }),
        column<Measurement>("samples_p99_us", "REAL",
                            [](auto& io, auto& m) { io.part(m.samples_us, &SampleSummary::p99); }),
        column<Measurement>("raw_samples_us", "TEXT NOT NULL DEFAULT '[]'",
                            [](auto& io, auto& m) { io(m.raw_samples_us); }),
    }};

const char* const kMeasurementDetailsV1 =
    R"sql(CREATE INDEX measurements_by_benchmark ON measurements(benchmark_id, seq);
CREATE TABLE measurement_values (
  measurement_id INTEGER NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  name TEXT NOT NULL,
  value REAL NOT NULL,
  unit TEXT NOT NULL,
  PRIMARY KEY (measurement_id, seq)
);
CREATE TABLE units (
  quantity TEXT PRIMARY KEY,
  unit TEXT NOT NULL
);
INSERT INTO units VALUES
  ('bytes', 'bytes (message length per process and call)'),
  ('t_min_us, t_max_us, t_avg_us', 'microseconds'),
  ('rank_times_us, raw_samples_us, samples_*_us', 'microseconds'),
  ('t_pure_us, t_cpu_us', 'microseconds'),
  ('mbytes_per_sec', 'MiB/s (2^20 bytes per second)'),
  ('overlap_percent', 'percent'),
  ('defects', 'count of wrong bytes (floats for reductions)'),
  ('measurement_values.value, run_summary.value', 'the unit stored beside the value');
)sql";

// Version 1's tables, exactly as released; later columns come from migration_sql, so that a new
// database and a migrated one have the same schema.
template <class Model>
std::string create_table_sql(const Table<Model>& t) {
  std::string sql = "CREATE TABLE " + t.name + " (\n  id INTEGER PRIMARY KEY";
  for (const auto& [name, declaration] : t.parent_keys) sql += ",\n  " + name + " " + declaration;
  for (const auto& c : t.columns)
    if (c.since_version == 1) sql += ",\n  " + std::string(c.name) + " " + c.declaration;
  return sql + "\n);\n";
}

// The columns schema version `version` added to one table.
template <class Model>
std::string added_columns_sql(const Table<Model>& t, int version) {
  std::string sql;
  for (const auto& c : t.columns)
    if (c.since_version == version)
      sql += "ALTER TABLE " + t.name + " ADD COLUMN " + c.name + " " + c.declaration + ";\n";
  return sql;
}

std::string schema_v1_sql() {
  return create_table_sql(kRuns) + kRunDetailsV1 + create_table_sql(kBenchmarks) +
         kBenchmarkDetailsV1 + create_table_sql(kMeasurements) + kMeasurementDetailsV1;
}

// Version 5: runs.id becomes AUTOINCREMENT, so that SQLite never hands out the id of a deleted
// run again (without it, a new run takes the largest id + 1: delete the newest run and the next
// one gets its id, and a saved `compare 41 42` names another run). A column's key cannot be
// changed in place: the table is rebuilt with every column of version 4 in the same order, its
// rows copied with their ids (SQLite then starts counting above the largest), and renamed. Needs
// foreign keys off (the children keep REFERENCES runs, which names the new table after the
// rename); ensure_schema checks that, and the children's keys after.
std::string runs_with_autoincrement_sql() {
  std::string declarations, names;
  for (const auto& c : kRuns.columns) {
    if (c.since_version > 4) continue;
    declarations += ",\n  " + std::string(c.name) + " " + c.declaration;
    names += std::string(", ") + c.name;
  }
  return "CREATE TABLE runs_v5 (\n  id INTEGER PRIMARY KEY AUTOINCREMENT" + declarations +
         "\n);\nINSERT INTO runs_v5 (id" + names + ") SELECT id" + names +
         " FROM runs;\nDROP TABLE runs;\nALTER TABLE runs_v5 RENAME TO runs;\n";
}

// From version - 1 to version.
std::string migration_sql(int version) {
  return (version == 5 ? runs_with_autoincrement_sql() : std::string()) +
         added_columns_sql(kRuns, version) + added_columns_sql(kBenchmarks, version) +
         added_columns_sql(kMeasurements, version);
}

template <class Model>
bool present(const Column<Model>& c, int schema_version) {
  return c.since_version <= schema_version;
}

template <class Model>
bool inserted(const Column<Model>& c) {
  return c.write && c.written != Written::kElsewhere;
}

template <class Model>
bool readable(const Column<Model>& c, int schema_version) {
  return c.read && present(c, schema_version);
}

// INSERT INTO t (parent keys, written columns) VALUES (:parent keys, :written columns).
template <class Model>
std::string insert_sql(const Table<Model>& t) {
  std::string names, values;
  auto add = [&](const std::string& name) {
    names += (names.empty() ? "" : ", ") + name;
    values += (values.empty() ? ":" : ", :") + name;
  };
  for (const auto& key : t.parent_keys) add(key.first);
  for (const auto& c : t.columns)
    if (inserted(c)) add(c.name);
  return "INSERT INTO " + t.name + " (" + names + ") VALUES (" + values + ")";
}

// UPDATE t SET column = :column, … WHERE id = :id, for the columns written kAlways.
template <class Model>
std::string update_sql(const Table<Model>& t) {
  std::string sets;
  for (const auto& c : t.columns)
    if (c.write && c.written == Written::kAlways)
      sets += (sets.empty() ? "" : ", ") + std::string(c.name) + " = :" + c.name;
  return "UPDATE " + t.name + " SET " + sets + " WHERE id = :id";
}

// SELECT id, readable columns FROM t: read_columns fills the model from the second on.
template <class Model>
std::string select_sql(const Table<Model>& t, int schema_version) {
  std::string sql = "SELECT id";
  for (const auto& c : t.columns)
    if (readable(c, schema_version)) sql += ", " + std::string(c.name);
  return sql + " FROM " + t.name;
}

template <class Model>
void write_columns(Statement& s, const Table<Model>& t, const Model& model, bool inserting) {
  for (const auto& c : t.columns) {
    if (!(inserting ? inserted(c) : c.write && c.written == Written::kAlways)) continue;
    FieldWriter w(s, std::string(":") + c.name);
    c.write(w, model);
  }
}

template <class Model>
void read_columns(const Statement& s, const Table<Model>& t, Model& model, int schema_version) {
  int column = 1;  // 0 is the id
  for (const auto& c : t.columns) {
    if (!readable(c, schema_version)) continue;
    FieldReader r(s, column++);
    c.read(r, model);
  }
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

std::int64_t single_integer(Connection& c, const std::string& sql) {
  auto s = c.prepare(sql);
  if (!s.step()) c.fail("no result from '" + sql + "'");
  return s.int64(0);
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

core::Measurement row_as_stored(const core::Measurement& m) {
  if (!m.measured || (!m.accurate && !m.overlap)) return m;
  core::Measurement out = m;
  if (m.overlap) {  // the overlap's figures beyond its three columns
    out.values.push_back({"overlap_raw_percent", m.overlap->raw_percent, "percent (not clamped)"});
    out.values.push_back({"overlap_error_percent", m.overlap->error_percent, "percent"});
    out.values.push_back({"overlap_doubtful", m.overlap->doubtful ? 1.0 : 0.0,
                          "1: the raw figure is outside 0-100 by more than its error"});
  }
  if (!m.accurate) return out;
  const auto& a = *m.accurate;
  const auto& s = a.summary_us;
  const char* us = "microseconds";
  out.values.push_back({"median_us", s.median, us});
  out.values.push_back({"ci95_low_us", s.median_ci.lower, us});
  out.values.push_back({"ci95_high_us", s.median_ci.upper, us});
  out.values.push_back(
      {"ci_confidence", s.median_ci.confidence, "probability that the interval holds the median"});
  out.values.push_back({"p05_us", s.p05, us});
  out.values.push_back({"p95_us", s.p95, us});
  out.values.push_back({"valid_repetitions", static_cast<double>(a.valid), "repetitions"});
  out.values.push_back({"invalid_repetitions", static_cast<double>(a.late + a.overrun),
                        "repetitions (started late or overran their window)"});
  out.values.push_back({"outliers", static_cast<double>(s.outliers), "samples beyond Q3 + 3 IQR"});
  out.values.push_back({"repetitions_per_sample", static_cast<double>(a.repetitions_per_sample),
                        "repetitions timed back to back as one sample"});
  if (a.level_shift.detected)
    out.values.push_back({"level_shift_ratio",
                          a.level_shift.second_median / a.level_shift.first_median,
                          "second half's median / first half's"});
  // The verdict of core::not_converged_reason(), kept where a row read back has no statistics to
  // decide from (the reason is in the note). SKaMPI's rows carry their own.
  if (!m.value("converged"))
    out.values.push_back({"converged", core::not_converged_reason(m) ? 0.0 : 1.0, "bool"});
  return out;
}

std::map<std::string, std::string> parameters_as_stored(const core::BenchmarkRun& b) {
  auto parameters = b.parameters;
  if (b.accurate) parameters["measurement"] = "accurate";  // rows carry the statistics
  return parameters;
}

core::BenchmarkRun table_as_stored(const core::BenchmarkRun& b) {
  core::BenchmarkRun table = b;
  table.parameters = parameters_as_stored(b);
  for (auto& m : table.rows) m = row_as_stored(m);
  return table;
}

std::string default_db_path() {
  if (auto p = env_or_empty("MPISCOPE_DB"); !p.empty()) return p;
  // The XDG base directory rules: a relative XDG_DATA_HOME is invalid and ignored.
  if (auto x = env_or_empty("XDG_DATA_HOME"); !x.empty() && x[0] == '/')
    return x + "/mpiscope/results.sqlite";
  if (auto h = env_or_empty("HOME"); !h.empty() && h[0] == '/')
    return h + "/.local/share/mpiscope/results.sqlite";
  // Not the current directory: a database that lands wherever the job happened to start is lost.
  throw DbError(
      "no location for the results database: HOME and XDG_DATA_HOME are unset or not absolute; "
      "set MPISCOPE_DB, or pass --db FILE or --no-db");
}

void prepare_default_location(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw DbError("cannot create the folder '" + parent.string() + "': " + ec.message());
}

ResultsDb::NewFile::NewFile(const std::string& path, Open mode) {
  // The same words from every command and suite for a folder given as the database.
  if (std::error_code ignored; std::filesystem::is_directory(path, ignored))
    throw DbError("'" + path + "' is a directory, not a results database file");
  if (mode != Open::kWrite) return;
  // Created here, exclusively, to know that it is this run's own (0644, as SQLite makes it);
  // any other failure is left to SQLite to report.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ::close(fd);
  path_ = path;
}

ResultsDb::NewFile::~NewFile() {
  if (path_.empty()) return;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) ::unlink((path_ + suffix).c_str());
}

ResultsDb::ResultsDb(const std::string& path, Open mode)
    : new_file_(path, mode),
      conn_(path,
            mode == Open::kRead ? Connection::Mode::kReadOnly : Connection::Mode::kReadWrite) {
  if (mode == Open::kRead)
    check_schema();
  else
    ensure_schema();
  conn_.exec("PRAGMA foreign_keys = ON");
  new_file_.keep();
}

void ResultsDb::check_schema() {
  std::int64_t v = 0;
  try {
    v = single_integer(conn_, "PRAGMA user_version");
  } catch (const DbError&) {
    throw DbError("'" + conn_.path() + "' is not an mpiscope results database");
  }
  if (v == 0) throw DbError("'" + conn_.path() + "' is not an mpiscope results database");
  if (v > kSchemaVersion)
    throw DbError("'" + conn_.path() + "' has schema version " + std::to_string(v) +
                  "; this mpiscope reads up to version " + std::to_string(kSchemaVersion));
  schema_version_ = static_cast<int>(v);
}

// Throws unless the file is empty (new) or an mpiscope database of a schema this build writes.
// Only reads: a refused file is left exactly as it was.
void ResultsDb::refuse_foreign() {
  std::int64_t v = 0, tables = 0;
  try {
    v = single_integer(conn_, "PRAGMA user_version");
    tables = single_integer(conn_, "SELECT count(*) FROM sqlite_master");
  } catch (const DbError& e) {
    throw DbError("'" + conn_.path() + "' is not an mpiscope results database (" + e.what() + ")");
  }
  if (v == 0 && tables != 0)
    throw DbError("'" + conn_.path() + "' is an SQLite database but not an mpiscope one");
  if (v > kSchemaVersion)
    throw DbError("'" + conn_.path() + "' has schema version " + std::to_string(v) +
                  "; this mpiscope writes version " + std::to_string(kSchemaVersion));
}

void ResultsDb::ensure_schema() {
  refuse_foreign();
  // WAL lets readers and one writer proceed together; NORMAL synchronisation keeps every
  // committed transaction after a crash of the process (only a power loss may lose the last).
  // The busy timeout also covers this switch, which needs the file to itself for a moment.
  {
    auto mode = conn_.prepare("PRAGMA journal_mode = WAL");
    mode.step();
  }
  conn_.exec("PRAGMA synchronous = NORMAL");
  Transaction t(conn_);  // IMMEDIATE: two first writers do not both create the schema
  refuse_foreign();      // again under the write lock: another program may have been first
  // refuse_foreign() left a version of at most kSchemaVersion.
  auto version = static_cast<int>(single_integer(conn_, "PRAGMA user_version"));
  if (version == 0) {
    conn_.exec(schema_v1_sql());
    version = 1;
  }
  // An older database is brought up to this build's version, in the same transaction: a
  // failure leaves it as it was.
  if (version < 5 && single_integer(conn_, "PRAGMA foreign_keys") != 0)
    throw DbError("cannot migrate '" + conn_.path() + "': foreign keys are on (a bug)");
  for (auto next = version + 1; next <= kSchemaVersion; ++next) conn_.exec(migration_sql(next));
  if (version < 5) {  // the rebuilt runs table holds every run its children name
    auto check = conn_.prepare("PRAGMA foreign_key_check");
    if (check.step())
      throw DbError("cannot migrate '" + conn_.path() + "': table " + check.text(0) +
                    " names a run the database does not hold");
  }
  if (version != kSchemaVersion)
    conn_.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
  schema_version_ = kSchemaVersion;
  t.commit();
}

std::int64_t ResultsDb::insert_run(const core::RunInfo& info, const std::string& source,
                                   const std::string& source_file) {
  StoredRun run;
  run.source = source;
  run.source_file = source_file;
  run.info = info;
  run.recorded_host = host_name();
  run.recorded_pid = getpid();
  auto s = conn_.prepare(insert_sql(kRuns));
  write_columns(s, kRuns, run, true);
  s.run();
  const auto id = conn_.last_insert_id();
  write_run_details(id, info);
  return id;
}

void ResultsDb::write_run_header(std::int64_t id, const StoredRun& header) {
  auto s = conn_.prepare(update_sql(kRuns));
  s.bind(":id", id);
  write_columns(s, kRuns, header, false);
  s.run();
  write_run_details(id, header.info);
}

void ResultsDb::write_run_details(std::int64_t id, const core::RunInfo& i) {
  conn_.prepare("DELETE FROM run_hosts WHERE run_id = :run_id").bind(":run_id", id).run();
  auto host =
      conn_.prepare("INSERT INTO run_hosts (run_id, host, ranks) VALUES (:run_id, :host, :ranks)");
  for (const auto& [name, ranks] : i.ranks_per_host) {
    host.bind(":run_id", id).bind(":host", name).bind(":ranks", ranks).run();
    host.reset();
  }
  conn_.prepare("DELETE FROM run_settings WHERE run_id = :run_id").bind(":run_id", id).run();
  auto setting = conn_.prepare(
      "INSERT INTO run_settings (run_id, name, value) VALUES (:run_id, :name, :value)");
  for (const auto& [name, value] : i.settings) {
    setting.bind(":run_id", id).bind(":name", name).bind(":value", value).run();
    setting.reset();
  }
}

std::int64_t ResultsDb::insert_benchmark(std::int64_t run_id, int seq,
                                         const core::BenchmarkRun& b) {
  auto s = conn_.prepare(insert_sql(kBenchmarks));
  s.bind(":run_id", run_id).bind(":seq", seq);
  write_columns(s, kBenchmarks, b, true);
  s.run();
  const auto id = conn_.last_insert_id();
  auto p = conn_.prepare(
      "INSERT INTO benchmark_parameters (benchmark_id, name, value) VALUES (:benchmark_id, :name, "
      ":value)");
  for (const auto& [name, value] : b.parameters) {
    p.bind(":benchmark_id", id).bind(":name", name).bind(":value", value).run();
    p.reset();
  }
  return id;
}

void ResultsDb::insert_row(std::int64_t benchmark_id, int seq, const core::Measurement& m) {
  static const std::string insert_measurement = insert_sql(kMeasurements);
  auto& s = conn_.cached(insert_measurement);
  s.bind(":benchmark_id", benchmark_id).bind(":seq", seq);
  write_columns(s, kMeasurements, m, true);
  s.run();
  const auto id = conn_.last_insert_id();
  auto& v = conn_.cached(
      "INSERT INTO measurement_values (measurement_id, seq, name, value, unit) VALUES "
      "(:measurement_id, :seq, :name, :value, :unit)");
  for (std::size_t k = 0; k < m.values.size(); ++k) {
    v.bind(":measurement_id", id).bind(":seq", k).bind(":name", m.values[k].name);
    v.bind(":value", m.values[k].value).bind(":unit", m.values[k].unit).run();
    v.reset();
  }
}

std::int64_t ResultsDb::begin_run(const core::RunInfo& info, const std::string& source,
                                  const std::string& source_file) {
  Transaction t(conn_);
  const auto id = insert_run(info, source, source_file);
  t.commit();
  return id;
}

std::int64_t ResultsDb::add_benchmark(std::int64_t run_id, int seq, const core::BenchmarkRun& b) {
  Transaction t(conn_);
  const auto id = insert_benchmark(run_id, seq, b);
  t.commit();
  return id;
}

void ResultsDb::set_model(std::int64_t benchmark_id, const core::CurveModel& model) {
  conn_.prepare("UPDATE benchmarks SET model = :model WHERE id = :id")
      .bind(":id", benchmark_id)
      .bind(":model", core::model_to_json(model))
      .run();
}

void ResultsDb::add_row(std::int64_t benchmark_id, int seq, const core::Measurement& m) {
  Transaction t(conn_);
  insert_row(benchmark_id, seq, m);
  t.commit();
}

void ResultsDb::add_note(std::int64_t run_id, const std::string& text) {
  conn_.prepare("INSERT INTO run_notes (run_id, text) VALUES (:run_id, :text)")
      .bind(":run_id", run_id)
      .bind(":text", text)
      .run();
}

void ResultsDb::add_summary(std::int64_t run_id, const core::NamedValue& v) {
  conn_
      .prepare(
          "INSERT INTO run_summary (run_id, name, value, unit) VALUES (:run_id, :name, :value, "
          ":unit)")
      .bind(":run_id", run_id)
      .bind(":name", v.name)
      .bind(":value", v.value)
      .bind(":unit", v.unit)
      .run();
}

void ResultsDb::finish_run(std::int64_t run_id, bool ok) {
  conn_.prepare("UPDATE runs SET complete = 1, ok = :ok WHERE id = :id")
      .bind(":id", run_id)
      .bind(":ok", ok)
      .run();
}

void ResultsDb::add_settings(std::int64_t run_id,
                             const std::map<std::string, std::string>& settings) {
  auto insert = conn_.prepare(
      "INSERT OR REPLACE INTO run_settings (run_id, name, value) VALUES (:run_id, :name, :value)");
  for (const auto& [name, value] : settings) {
    insert.bind(":run_id", run_id).bind(":name", name).bind(":value", value).run();
    insert.reset();
  }
}

std::int64_t ResultsDb::store(const StoredRun& run) {
  Transaction t(conn_);
  const auto id = insert_run(run.info, run.source, run.source_file);
  for (std::size_t b = 0; b < run.benchmarks.size(); ++b) {
    const auto bid = insert_benchmark(id, static_cast<int>(b), run.benchmarks[b]);
    for (std::size_t r = 0; r < run.benchmarks[b].rows.size(); ++r)
      insert_row(bid, static_cast<int>(r), run.benchmarks[b].rows[r]);
  }
  for (const auto& n : run.notes) add_note(id, n);
  for (const auto& v : run.summary) add_summary(id, v);
  finish_run(id, run.ok);
  t.commit();
  return id;
}

std::int64_t ResultsDb::begin_import(const std::string& source, const std::string& source_file) {
  return insert_run(core::RunInfo{}, source, source_file);
}

void ResultsDb::import_table(std::int64_t run_id, int seq, const core::BenchmarkRun& b) {
  const auto bid = insert_benchmark(run_id, seq, b);
  for (std::size_t r = 0; r < b.rows.size(); ++r) insert_row(bid, static_cast<int>(r), b.rows[r]);
}

void ResultsDb::end_import(std::int64_t run_id, const StoredRun& header) {
  write_run_header(run_id, header);
  for (const auto& n : header.notes) add_note(run_id, n);
  for (const auto& v : header.summary) add_summary(run_id, v);
  finish_run(run_id, header.ok);
}

std::vector<RunListing> ResultsDb::list_runs() {
  auto s = conn_.prepare(
      "SELECT r.id, r.date_iso, r.suite, r.mpi_library, r.source, r.source_file, r.machine, "
      "r.world_size, r.complete, (SELECT count(*) FROM benchmarks b WHERE b.run_id = r.id), "
      "(SELECT count(*) FROM measurements m JOIN benchmarks b ON m.benchmark_id = b.id WHERE "
      "b.run_id = r.id), r.date, r.recorded_at, " +
      std::string(schema_version_ >= 2 ? "r.label" : "''") +
      ", coalesce((SELECT value FROM run_settings s WHERE s.run_id = r.id AND s.name = "
      "'method'), ''), coalesce((SELECT group_concat(e, ' ') FROM (SELECT substr(s.name, 5) || "
      "'=' || s.value AS e FROM run_settings s WHERE s.run_id = r.id AND s.name GLOB 'env:*' "
      "ORDER BY s.name)), ''), coalesce((SELECT value FROM run_settings s WHERE s.run_id = r.id "
      "AND s.name = 'cpu_binding'), ''), r.mpi_version FROM runs r ORDER BY r.id");
  std::vector<RunListing> out;
  while (s.step()) {
    RunListing l;
    l.id = s.int64(0);
    l.date_iso = s.text(1);
    l.suite = s.text(2);
    l.mpi_library = s.text(3);
    l.source = s.text(4);
    l.source_file = s.text(5);
    l.machine = s.text(6);
    l.world_size = static_cast<int>(s.int64(7));
    l.complete = s.int64(8) != 0;
    l.tables = s.int64(9);
    l.rows = s.int64(10);
    l.date = s.text(11);
    l.recorded_at = s.text(12);
    l.label = s.text(13);
    l.method = s.text(14);
    l.environment = s.text(15);
    l.cpu_binding = s.text(16);
    l.mpi_version = s.text(17);
    out.push_back(l);
  }
  return out;
}

std::vector<std::int64_t> ResultsDb::runs_holding(const std::string& benchmark) {
  auto s = conn_.prepare(
      "SELECT DISTINCT run_id FROM benchmarks WHERE name = :name COLLATE NOCASE ORDER BY run_id");
  s.bind(":name", benchmark);
  std::vector<std::int64_t> ids;
  while (s.step()) ids.push_back(s.int64(0));
  return ids;
}

bool ResultsDb::has_run(std::int64_t id) {
  auto s = conn_.prepare("SELECT 1 FROM runs WHERE id = :id");
  s.bind(":id", id);
  return s.step();
}

std::vector<std::string> ResultsDb::parameter_names(const std::vector<std::int64_t>& run_ids) {
  std::set<std::string> names;
  auto s = conn_.prepare(
      "SELECT DISTINCT p.name FROM benchmark_parameters p JOIN benchmarks b ON p.benchmark_id = "
      "b.id WHERE b.run_id = :run_id");
  for (const auto id : run_ids) {
    s.reset();
    s.bind(":run_id", id);
    while (s.step()) names.insert(s.text(0));
  }
  return {names.begin(), names.end()};
}

void ResultsDb::set_label(std::int64_t id, const std::string& label) {
  Transaction t(conn_);
  if (!has_run(id)) throw DbError("no run " + std::to_string(id) + " in '" + conn_.path() + "'");
  conn_.prepare("UPDATE runs SET label = :label WHERE id = :id")
      .bind(":label", label)
      .bind(":id", id)
      .run();
  t.commit();
}

void ResultsDb::delete_runs(const std::vector<std::int64_t>& ids) {
  Transaction t(conn_);
  for (const auto id : ids) {
    if (!has_run(id)) throw DbError("no run " + std::to_string(id) + " in '" + conn_.path() + "'");
    // The tables of a run hang off it by ON DELETE CASCADE (foreign keys are on).
    conn_.prepare("DELETE FROM runs WHERE id = :id").bind(":id", id).run();
  }
  t.commit();
}

StoredRun ResultsDb::load_run(std::int64_t id, const LoadLimits& limits) {
  StoredRun run;
  auto r = conn_.prepare(select_sql(kRuns, schema_version_) + " WHERE id = :id");
  r.bind(":id", id);
  if (!r.step())
    throw DbError("no run " + std::to_string(id) + " in '" + conn_.path() +
                  "' ('mpiscope runs' lists them)");
  run.id = r.int64(0);
  read_columns(r, kRuns, run, schema_version_);
  run.info.run_id = run.id;
  auto& i = run.info;

  auto hosts =
      conn_.prepare("SELECT host, ranks FROM run_hosts WHERE run_id = :run_id ORDER BY host");
  hosts.bind(":run_id", id);
  while (hosts.step()) i.ranks_per_host[hosts.text(0)] = static_cast<int>(hosts.int64(1));
  auto settings = conn_.prepare("SELECT name, value FROM run_settings WHERE run_id = :run_id");
  settings.bind(":run_id", id);
  while (settings.step()) i.settings[settings.text(0)] = settings.text(1);
  auto notes = conn_.prepare("SELECT text FROM run_notes WHERE run_id = :run_id ORDER BY id");
  notes.bind(":run_id", id);
  while (notes.step()) run.notes.push_back(notes.text(0));
  auto summary =
      conn_.prepare("SELECT name, value, unit FROM run_summary WHERE run_id = :run_id ORDER BY id");
  summary.bind(":run_id", id);
  while (summary.step()) run.summary.push_back({summary.text(0), summary.real(1), summary.text(2)});

  auto b = conn_.prepare(select_sql(kBenchmarks, schema_version_) +
                         " WHERE run_id = :run_id ORDER BY seq");
  b.bind(":run_id", id);
  auto params = conn_.prepare(
      "SELECT name, value FROM benchmark_parameters WHERE benchmark_id = :benchmark_id ORDER BY "
      "name");
  // Every step-th row, and the last.
  auto rows = conn_.prepare(select_sql(kMeasurements, schema_version_) +
                            " WHERE benchmark_id = :benchmark_id AND (seq % :step = 0 OR seq = "
                            ":last) ORDER BY seq");
  auto row_count =
      conn_.prepare("SELECT count(*) FROM measurements WHERE benchmark_id = :benchmark_id");
  std::size_t points = 0;
  auto values = conn_.prepare(
      "SELECT name, value, unit FROM measurement_values WHERE measurement_id = :measurement_id "
      "ORDER BY seq");
  while (b.step()) {
    core::BenchmarkRun t;
    const auto bid = b.int64(0);
    if (!limits.benchmark.empty()) {
      read_columns(b, kBenchmarks, t, schema_version_);
      if (core::to_lower(t.name) != core::to_lower(limits.benchmark)) continue;
    }
    row_count.reset();
    row_count.bind(":benchmark_id", bid);
    row_count.step();
    const auto n = static_cast<std::size_t>(row_count.int64(0));
    const std::size_t step = n > limits.max_rows_per_table
                                 ? (n + limits.max_rows_per_table - 1) / limits.max_rows_per_table
                                 : 1;
    const std::size_t kept = n == 0 ? 0 : (n - 1) / step + 1 + ((n - 1) % step != 0);
    if (points + kept > limits.max_points) {
      ++run.tables_left_out;
      continue;
    }
    points += kept;
    run.rows_left_out += n - kept;
    read_columns(b, kBenchmarks, t, schema_version_);
    params.reset();
    params.bind(":benchmark_id", bid);
    while (params.step()) t.parameters[params.text(0)] = params.text(1);
    rows.reset();
    rows.bind(":benchmark_id", bid).bind(":step", step);
    rows.bind(":last", n == 0 ? std::int64_t{0} : static_cast<std::int64_t>(n - 1));
    while (rows.step()) {
      core::Measurement m;
      const auto mid = rows.int64(0);
      read_columns(rows, kMeasurements, m, schema_version_);
      values.reset();
      values.bind(":measurement_id", mid);
      while (values.step()) m.values.push_back({values.text(0), values.real(1), values.text(2)});
      t.rows.push_back(std::move(m));
    }
    run.benchmarks.push_back(std::move(t));
  }
  return run;
}

}  // namespace mpiscope::db
