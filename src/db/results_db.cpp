#include "db/results_db.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace mpiscope::db {

using nlohmann::json;

namespace {

// Version 1 of the schema (docs/results-db.md describes every column). Arrays (per-rank times,
// raw samples, command line, groups) are JSON text: they are read whole, never queried by part.
const char* const kSchemaV1 = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL,
  source_file TEXT NOT NULL DEFAULT '',
  suite TEXT NOT NULL,
  suite_title TEXT NOT NULL DEFAULT '',
  date TEXT NOT NULL DEFAULT '',
  date_iso TEXT NOT NULL DEFAULT '',
  machine TEXT NOT NULL DEFAULT '',
  system TEXT NOT NULL DEFAULT '',
  release TEXT NOT NULL DEFAULT '',
  os_version TEXT NOT NULL DEFAULT '',
  world_size INTEGER NOT NULL DEFAULT 0,
  mpi_version TEXT NOT NULL DEFAULT '',
  mpi_library TEXT NOT NULL DEFAULT '',
  thread_level TEXT NOT NULL DEFAULT '',
  mpiscope_version TEXT NOT NULL DEFAULT '',
  mpiscope_commit TEXT NOT NULL DEFAULT '',
  command_line TEXT NOT NULL DEFAULT '[]',
  benchmarks TEXT NOT NULL DEFAULT '[]',
  user_lengths INTEGER NOT NULL DEFAULT 0,
  min_length INTEGER NOT NULL DEFAULT 0,
  max_length INTEGER NOT NULL DEFAULT 0,
  multi INTEGER NOT NULL DEFAULT 0,
  recorded_host TEXT NOT NULL DEFAULT '',
  recorded_pid INTEGER NOT NULL DEFAULT 0,
  recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  complete INTEGER NOT NULL DEFAULT 0,
  ok INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE run_hosts (
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
CREATE TABLE benchmarks (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  name TEXT NOT NULL,
  family TEXT NOT NULL DEFAULT '',
  mode TEXT NOT NULL DEFAULT '',
  nprocs INTEGER NOT NULL,
  overlap INTEGER NOT NULL DEFAULT 0,
  sized INTEGER NOT NULL DEFAULT 1,
  has_throughput INTEGER NOT NULL DEFAULT 0,
  multi INTEGER NOT NULL DEFAULT 0,
  multi_outflag INTEGER NOT NULL DEFAULT 0,
  groups TEXT NOT NULL DEFAULT '[]',
  inactive INTEGER NOT NULL DEFAULT 0,
  map_order TEXT NOT NULL DEFAULT '[]',
  map_rows INTEGER NOT NULL DEFAULT 0,
  map_cols INTEGER NOT NULL DEFAULT 0,
  checked INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX benchmarks_by_run ON benchmarks(run_id, seq);
CREATE TABLE benchmark_parameters (
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (benchmark_id, name)
);
CREATE TABLE measurements (
  id INTEGER PRIMARY KEY,
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  repetitions INTEGER,
  measured INTEGER NOT NULL,
  note TEXT NOT NULL DEFAULT '',
  t_min_us REAL,
  t_max_us REAL,
  t_avg_us REAL,
  mbytes_per_sec REAL,
  defects REAL,
  t_pure_us REAL,
  t_cpu_us REAL,
  overlap_percent REAL,
  rank_times_us TEXT NOT NULL DEFAULT '[]',
  groups TEXT NOT NULL DEFAULT '[]',
  samples_n INTEGER,
  samples_min_us REAL,
  samples_max_us REAL,
  samples_mean_us REAL,
  samples_median_us REAL,
  samples_p05_us REAL,
  samples_p25_us REAL,
  samples_p75_us REAL,
  samples_p95_us REAL,
  samples_p99_us REAL,
  raw_samples_us TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX measurements_by_benchmark ON measurements(benchmark_id, seq);
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

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

std::optional<double> known(double v) {
  if (std::isnan(v)) return std::nullopt;
  return v;
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
  if (!m.accurate || !m.measured) return m;
  core::Measurement out = m;
  const auto& a = *m.accurate;
  const auto& s = a.summary_us;
  const char* us = "microseconds";
  out.values.push_back({"median_us", s.median, us});
  out.values.push_back({"ci95_low_us", s.median_ci.lower, us});
  out.values.push_back({"ci95_high_us", s.median_ci.upper, us});
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
  return out;
}

core::BenchmarkRun table_as_stored(const core::BenchmarkRun& b) {
  core::BenchmarkRun table = b;
  if (b.accurate) table.parameters["measurement"] = "accurate";  // rows carry the statistics
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

ResultsDb::ResultsDb(const std::string& path, Open mode)
    : conn_(path,
            mode == Open::kRead ? Connection::Mode::kReadOnly : Connection::Mode::kReadWrite) {
  if (mode == Open::kRead)
    check_schema();
  else
    ensure_schema();
  conn_.exec("PRAGMA foreign_keys = ON");
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
  if (single_integer(conn_, "PRAGMA user_version") == 0) {
    conn_.exec(kSchemaV1);
    conn_.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
  }
  t.commit();
}

std::int64_t ResultsDb::insert_run(const core::RunInfo& i, const std::string& source,
                                   const std::string& source_file) {
  conn_
      .prepare(
          "INSERT INTO runs (source, source_file, suite, recorded_host, recorded_pid) VALUES "
          "(?1, ?2, ?3, ?4, ?5)")
      .bind(1, source)
      .bind(2, source_file)
      .bind(3, i.suite)
      .bind(4, host_name())
      .bind(5, static_cast<std::int64_t>(getpid()))
      .run();
  const auto id = conn_.last_insert_id();
  write_run_info(id, i);
  return id;
}

void ResultsDb::write_run_info(std::int64_t id, const core::RunInfo& i) {
  auto s = conn_.prepare(
      "UPDATE runs SET suite = ?2, suite_title = ?3, date = ?4, date_iso = ?5, machine = ?6, "
      "system = ?7, release = ?8, os_version = ?9, world_size = ?10, mpi_version = ?11, "
      "mpi_library = ?12, thread_level = ?13, mpiscope_version = ?14, mpiscope_commit = ?15, "
      "command_line = ?16, benchmarks = ?17, user_lengths = ?18, min_length = ?19, "
      "max_length = ?20, multi = ?21 WHERE id = ?1");
  s.bind(1, id).bind(2, i.suite).bind(3, i.suite_title).bind(4, i.date).bind(5, i.date_iso);
  s.bind(6, i.machine).bind(7, i.system).bind(8, i.release).bind(9, i.version);
  s.bind(10, i.world_size).bind(11, i.mpi_version).bind(12, i.mpi_library);
  s.bind(13, i.thread_level).bind(14, i.mpiscope_version).bind(15, i.mpiscope_commit);
  s.bind(16, json(i.command_line).dump()).bind(17, json(i.benchmarks).dump());
  s.bind(18, i.user_lengths).bind(19, i.min_length).bind(20, i.max_length).bind(21, i.multi);
  s.run();
  conn_.prepare("DELETE FROM run_hosts WHERE run_id = ?1").bind(1, id).run();
  auto host = conn_.prepare("INSERT INTO run_hosts (run_id, host, ranks) VALUES (?1, ?2, ?3)");
  for (const auto& [name, ranks] : i.ranks_per_host) {
    host.bind(1, id).bind(2, name).bind(3, ranks).run();
    host.reset();
  }
  conn_.prepare("DELETE FROM run_settings WHERE run_id = ?1").bind(1, id).run();
  auto setting =
      conn_.prepare("INSERT INTO run_settings (run_id, name, value) VALUES (?1, ?2, ?3)");
  for (const auto& [name, value] : i.settings) {
    setting.bind(1, id).bind(2, name).bind(3, value).run();
    setting.reset();
  }
}

std::int64_t ResultsDb::insert_benchmark(std::int64_t run_id, int seq,
                                         const core::BenchmarkRun& b) {
  auto s = conn_.prepare(
      "INSERT INTO benchmarks (run_id, seq, name, family, mode, nprocs, overlap, sized, "
      "has_throughput, multi, multi_outflag, groups, inactive, map_order, map_rows, map_cols, "
      "checked) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
      "?17)");
  s.bind(1, run_id).bind(2, seq).bind(3, b.name).bind(4, b.family).bind(5, b.mode);
  s.bind(6, b.nprocs).bind(7, b.overlap).bind(8, b.sized).bind(9, b.has_throughput);
  s.bind(10, b.multi).bind(11, b.multi_outflag).bind(12, json(b.groups).dump());
  s.bind(13, b.inactive).bind(14, json(b.map_order).dump()).bind(15, b.map_rows);
  s.bind(16, b.map_cols).bind(17, b.check);
  s.run();
  const auto id = conn_.last_insert_id();
  auto p = conn_.prepare(
      "INSERT INTO benchmark_parameters (benchmark_id, name, value) VALUES (?1, ?2, ?3)");
  for (const auto& [name, value] : b.parameters) {
    p.bind(1, id).bind(2, name).bind(3, value).run();
    p.reset();
  }
  return id;
}

void ResultsDb::insert_row(std::int64_t benchmark_id, int seq, const core::Measurement& m) {
  auto s = conn_.prepare(
      "INSERT INTO measurements (benchmark_id, seq, bytes, repetitions, measured, note, t_min_us, "
      "t_max_us, t_avg_us, mbytes_per_sec, defects, t_pure_us, t_cpu_us, overlap_percent, "
      "rank_times_us, groups, samples_n, samples_min_us, samples_max_us, samples_mean_us, "
      "samples_median_us, samples_p05_us, samples_p25_us, samples_p75_us, samples_p95_us, "
      "samples_p99_us, raw_samples_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
      "?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27)");
  s.bind(1, benchmark_id).bind(2, seq).bind(3, m.bytes).bind(5, m.measured).bind(6, m.note);
  if (m.measured) {
    // A row that was not measured has no times: NULL, never a made-up zero.
    // Imported rows may lack a statistic (OSU prints only the average): NaN there, NULL here.
    s.bind(4, m.repetitions).bind(7, known(m.t_min_us)).bind(8, known(m.t_max_us));
    s.bind(9, known(m.t_avg_us));
    s.bind(10, m.mbytes_per_sec).bind(11, m.defects);
    if (m.overlap)
      s.bind(12, m.overlap->t_pure_us)
          .bind(13, m.overlap->t_cpu_us)
          .bind(14, m.overlap->overlap_percent);
  }
  s.bind(15, json(m.rank_times_us).dump());
  json groups = json::array();
  for (const auto& g : m.groups) {
    json gj = {{"t_min_us", g.t_min_us}, {"t_max_us", g.t_max_us}, {"t_avg_us", g.t_avg_us}};
    if (g.mbytes_per_sec) gj["mbytes_per_sec"] = *g.mbytes_per_sec;
    groups.push_back(gj);
  }
  s.bind(16, groups.dump());
  if (m.samples_us) {
    const auto& q = *m.samples_us;
    s.bind(17, q.n).bind(18, q.min).bind(19, q.max).bind(20, q.mean).bind(21, q.median);
    s.bind(22, q.p05).bind(23, q.p25).bind(24, q.p75).bind(25, q.p95).bind(26, q.p99);
  }
  s.bind(27, json(m.raw_samples_us).dump());
  s.run();
  const auto id = conn_.last_insert_id();
  auto v = conn_.prepare(
      "INSERT INTO measurement_values (measurement_id, seq, name, value, unit) VALUES (?1, ?2, "
      "?3, ?4, ?5)");
  for (std::size_t k = 0; k < m.values.size(); ++k) {
    v.bind(1, id).bind(2, k).bind(3, m.values[k].name).bind(4, m.values[k].value);
    v.bind(5, m.values[k].unit).run();
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

void ResultsDb::add_row(std::int64_t benchmark_id, int seq, const core::Measurement& m) {
  Transaction t(conn_);
  insert_row(benchmark_id, seq, m);
  t.commit();
}

void ResultsDb::add_note(std::int64_t run_id, const std::string& text) {
  conn_.prepare("INSERT INTO run_notes (run_id, text) VALUES (?1, ?2)")
      .bind(1, run_id)
      .bind(2, text)
      .run();
}

void ResultsDb::add_summary(std::int64_t run_id, const core::NamedValue& v) {
  conn_.prepare("INSERT INTO run_summary (run_id, name, value, unit) VALUES (?1, ?2, ?3, ?4)")
      .bind(1, run_id)
      .bind(2, v.name)
      .bind(3, v.value)
      .bind(4, v.unit)
      .run();
}

void ResultsDb::finish_run(std::int64_t run_id, bool ok) {
  conn_.prepare("UPDATE runs SET complete = 1, ok = ?2 WHERE id = ?1")
      .bind(1, run_id)
      .bind(2, ok)
      .run();
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
  conn_.prepare("UPDATE runs SET source = ?2 WHERE id = ?1")
      .bind(1, run_id)
      .bind(2, header.source)
      .run();
  write_run_info(run_id, header.info);
  for (const auto& n : header.notes) add_note(run_id, n);
  for (const auto& v : header.summary) add_summary(run_id, v);
  finish_run(run_id, header.ok);
}

std::vector<RunListing> ResultsDb::list_runs() {
  auto s = conn_.prepare(
      "SELECT r.id, r.date_iso, r.suite, r.mpi_library, r.source, r.source_file, r.machine, "
      "r.world_size, r.complete, (SELECT count(*) FROM benchmarks b WHERE b.run_id = r.id), "
      "(SELECT count(*) FROM measurements m JOIN benchmarks b ON m.benchmark_id = b.id WHERE "
      "b.run_id = r.id) FROM runs r ORDER BY r.id");
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
    out.push_back(l);
  }
  return out;
}

bool ResultsDb::has_run(std::int64_t id) {
  auto s = conn_.prepare("SELECT 1 FROM runs WHERE id = ?1");
  s.bind(1, id);
  return s.step();
}

StoredRun ResultsDb::load_run(std::int64_t id, const LoadLimits& limits) {
  StoredRun run;
  auto r = conn_.prepare(
      "SELECT id, source, source_file, suite, suite_title, date, date_iso, machine, system, "
      "release, os_version, world_size, mpi_version, mpi_library, thread_level, mpiscope_version, "
      "mpiscope_commit, command_line, benchmarks, user_lengths, min_length, max_length, multi, "
      "recorded_host, recorded_pid, complete, ok FROM runs WHERE id = ?1");
  r.bind(1, id);
  if (!r.step())
    throw DbError("no run " + std::to_string(id) + " in '" + conn_.path() +
                  "' ('mpiscope runs' lists them)");
  auto& i = run.info;
  run.id = r.int64(0);
  run.source = r.text(1);
  run.source_file = r.text(2);
  i.suite = r.text(3);
  i.suite_title = r.text(4);
  i.date = r.text(5);
  i.date_iso = r.text(6);
  i.machine = r.text(7);
  i.system = r.text(8);
  i.release = r.text(9);
  i.version = r.text(10);
  i.world_size = static_cast<int>(r.int64(11));
  i.mpi_version = r.text(12);
  i.mpi_library = r.text(13);
  i.thread_level = r.text(14);
  i.mpiscope_version = r.text(15);
  i.mpiscope_commit = r.text(16);
  i.command_line = json::parse(r.text(17)).get<std::vector<std::string>>();
  i.benchmarks = json::parse(r.text(18)).get<std::vector<std::string>>();
  i.user_lengths = r.int64(19) != 0;
  i.min_length = static_cast<std::size_t>(r.int64(20));
  i.max_length = static_cast<std::size_t>(r.int64(21));
  i.multi = r.int64(22) != 0;
  run.recorded_host = r.text(23);
  run.recorded_pid = r.int64(24);
  run.complete = r.int64(25) != 0;
  run.ok = r.int64(26) != 0;

  auto hosts = conn_.prepare("SELECT host, ranks FROM run_hosts WHERE run_id = ?1 ORDER BY host");
  hosts.bind(1, id);
  while (hosts.step()) i.ranks_per_host[hosts.text(0)] = static_cast<int>(hosts.int64(1));
  auto settings = conn_.prepare("SELECT name, value FROM run_settings WHERE run_id = ?1");
  settings.bind(1, id);
  while (settings.step()) i.settings[settings.text(0)] = settings.text(1);
  auto notes = conn_.prepare("SELECT text FROM run_notes WHERE run_id = ?1 ORDER BY id");
  notes.bind(1, id);
  while (notes.step()) run.notes.push_back(notes.text(0));
  auto summary =
      conn_.prepare("SELECT name, value, unit FROM run_summary WHERE run_id = ?1 ORDER BY id");
  summary.bind(1, id);
  while (summary.step()) run.summary.push_back({summary.text(0), summary.real(1), summary.text(2)});

  auto b = conn_.prepare(
      "SELECT id, name, family, mode, nprocs, overlap, sized, has_throughput, multi, "
      "multi_outflag, groups, inactive, map_order, map_rows, map_cols, checked FROM benchmarks "
      "WHERE run_id = ?1 ORDER BY seq");
  b.bind(1, id);
  auto params = conn_.prepare(
      "SELECT name, value FROM benchmark_parameters WHERE benchmark_id = ?1 ORDER BY name");
  auto rows = conn_.prepare(
      "SELECT id, bytes, repetitions, measured, note, t_min_us, t_max_us, t_avg_us, "
      "mbytes_per_sec, defects, t_pure_us, t_cpu_us, overlap_percent, rank_times_us, groups, "
      "samples_n, samples_min_us, samples_max_us, samples_mean_us, samples_median_us, "
      "samples_p05_us, samples_p25_us, samples_p75_us, samples_p95_us, samples_p99_us, "
      "raw_samples_us FROM measurements WHERE benchmark_id = ?1 AND (seq % ?2 = 0 OR seq = ?3) "
      "ORDER BY seq");
  auto row_count = conn_.prepare("SELECT count(*) FROM measurements WHERE benchmark_id = ?1");
  std::size_t points = 0;
  auto values = conn_.prepare(
      "SELECT name, value, unit FROM measurement_values WHERE measurement_id = ?1 ORDER BY seq");
  while (b.step()) {
    core::BenchmarkRun t;
    const auto bid = b.int64(0);
    row_count.reset();
    row_count.bind(1, bid);
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
    t.name = b.text(1);
    t.family = b.text(2);
    t.mode = b.text(3);
    t.nprocs = static_cast<int>(b.int64(4));
    t.overlap = b.int64(5) != 0;
    t.sized = b.int64(6) != 0;
    t.has_throughput = b.int64(7) != 0;
    t.multi = b.int64(8) != 0;
    t.multi_outflag = static_cast<int>(b.int64(9));
    t.groups = json::parse(b.text(10)).get<std::vector<std::vector<int>>>();
    t.inactive = static_cast<int>(b.int64(11));
    t.map_order = json::parse(b.text(12)).get<std::vector<int>>();
    t.map_rows = static_cast<int>(b.int64(13));
    t.map_cols = static_cast<int>(b.int64(14));
    t.check = b.int64(15) != 0;
    params.reset();
    params.bind(1, bid);
    while (params.step()) t.parameters[params.text(0)] = params.text(1);
    rows.reset();
    rows.bind(1, bid).bind(2, step).bind(
        3, n == 0 ? std::int64_t{0} : static_cast<std::int64_t>(n - 1));
    while (rows.step()) {
      core::Measurement m;
      const auto mid = rows.int64(0);
      m.bytes = static_cast<std::size_t>(rows.int64(1));
      m.repetitions = static_cast<int>(rows.int64(2));
      m.measured = rows.int64(3) != 0;
      m.note = rows.text(4);
      m.t_min_us = rows.optional_real(5).value_or(kNotRecorded);
      m.t_max_us = rows.optional_real(6).value_or(kNotRecorded);
      m.t_avg_us = rows.optional_real(7).value_or(kNotRecorded);
      m.mbytes_per_sec = rows.optional_real(8);
      m.defects = rows.optional_real(9);
      if (!rows.is_null(10))
        m.overlap = core::OverlapTimes{rows.real(10), rows.real(11), rows.real(12)};
      m.rank_times_us = json::parse(rows.text(13)).get<std::vector<double>>();
      for (const auto& g : json::parse(rows.text(14))) {
        core::GroupTimes gt{g.at("t_min_us"), g.at("t_max_us"), g.at("t_avg_us"), std::nullopt};
        if (g.contains("mbytes_per_sec")) gt.mbytes_per_sec = g["mbytes_per_sec"].get<double>();
        m.groups.push_back(gt);
      }
      if (!rows.is_null(15)) {
        core::SampleSummary q;
        q.n = static_cast<std::size_t>(rows.int64(15));
        q.min = rows.real(16);
        q.max = rows.real(17);
        q.mean = rows.real(18);
        q.median = rows.real(19);
        q.p05 = rows.real(20);
        q.p25 = rows.real(21);
        q.p75 = rows.real(22);
        q.p95 = rows.real(23);
        q.p99 = rows.real(24);
        m.samples_us = q;
      }
      m.raw_samples_us = json::parse(rows.text(25)).get<std::vector<double>>();
      values.reset();
      values.bind(1, mid);
      while (values.step()) m.values.push_back({values.text(0), values.real(1), values.text(2)});
      t.rows.push_back(std::move(m));
    }
    run.benchmarks.push_back(std::move(t));
  }
  return run;
}

}  // namespace mpiscope::db
