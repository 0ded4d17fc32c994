// The results database: everything the result model holds comes back as it was written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "db/results_db.hpp"

using namespace mpiscope;

namespace {

std::string fresh_path(const std::string& name) {
  char tmpl[] = "/tmp/mpiscope_dbtest_XXXXXX";
  const char* d = mkdtemp(tmpl);
  if (!d) throw std::runtime_error("mkdtemp");
  return std::string(d) + "/" + name;
}

core::RunInfo sample_info() {
  core::RunInfo i;
  i.suite = "imb-mpi1";
  i.suite_title = "MPI-1 part";
  i.date = "Tue Mar  5 14:02:11 2024";
  i.date_iso = "2024-03-05T14:02:11+0100";
  i.machine = "x86_64";
  i.system = "Linux";
  i.release = "6.1";
  i.version = "#1 SMP";
  i.ranks_per_host = {{"node-a", 2}, {"node-b", 2}};
  i.world_size = 4;
  i.mpi_version = "3.1";
  i.mpi_library = "Open MPI v4.1.4, package: Debian";
  i.thread_level = "MPI_THREAD_SINGLE";
  i.mpiscope_version = "0.1.0";
  i.mpiscope_commit = "abc123";
  i.command_line = {"mpiscope", "imb-mpi1", "PingPong", "-iter", "20"};
  i.settings = {{"msgs_per_sample", "20"}, {"timer", "MPI_Wtime"}};
  i.user_lengths = true;
  i.min_length = 0;
  i.max_length = 4096;
  i.benchmarks = {"PingPong", "Alltoall"};
  i.multi = true;
  return i;
}

core::BenchmarkRun sample_table() {
  core::BenchmarkRun b;
  b.name = "Multi-Alltoall";
  b.family = "collective";
  b.mode = "aggregate";
  b.overlap = true;
  b.sized = true;
  b.has_throughput = true;
  b.multi = true;
  b.multi_outflag = 1;
  b.nprocs = 2;
  b.groups = {{0, 2}, {1, 3}};
  b.inactive = 0;
  b.map_order = {0, 2, 1, 3};
  b.map_rows = 2;
  b.map_cols = 2;
  b.check = true;
  b.parameters = {{"pattern", "ring"}, {"method", "Sendrecv"}};
  return b;
}

core::Measurement full_row() {
  core::Measurement m;
  m.bytes = 1024;
  m.repetitions = 640;
  m.measured = true;
  m.note = "a warning";
  m.t_min_us = 1.25;
  m.t_max_us = 2.5;
  m.t_avg_us = 1.875;
  m.mbytes_per_sec = 390.625;
  m.defects = 0;
  m.overlap = core::OverlapTimes{3.5, 4.25, 61.5};
  m.groups = {{1.0, 2.0, 1.5, 488.28125}, {1.25, 2.5, 1.875, std::nullopt}};
  m.rank_times_us = {1.25, 2.5, 1.5, 2.25};
  m.samples_us = core::summarize({1.0, 2.0, 3.0, 4.0, 10.0});
  m.raw_samples_us = {1.0, 2.0, 3.0, 4.0, 10.0};
  m.values = {{"b_eff", 123.5, "MB/s"}, {"ticks", 7, "MPI_Wtime ticks"}};
  return m;
}

}  // namespace

TEST(DbSchema, EveryFieldOfTheResultModelRoundTrips) {
  const auto path = fresh_path("r.sqlite");
  std::int64_t id = 0;
  {
    db::ResultsDb d(path);
    id = d.begin_run(sample_info());
    const auto bid = d.add_benchmark(id, 0, sample_table());
    d.add_row(bid, 0, full_row());
    core::Measurement skipped;
    skipped.bytes = 1 << 22;
    skipped.measured = false;
    skipped.note = "out-of-mem.";
    d.add_row(bid, 1, skipped);
    d.add_note(id, "Alltoall skipped on 3 processes");
    d.add_summary(id, {"b_eff", 1234.5, "MB/s (10^6 bytes per second)"});
    d.finish_run(id, true);
  }
  db::ResultsDb d(path, db::ResultsDb::Open::kRead);
  const auto r = d.load_run(id);
  EXPECT_TRUE(r.complete);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.source, "mpiscope");
  EXPECT_EQ(r.recorded_pid, getpid());
  const auto want = sample_info();
  EXPECT_EQ(r.info.suite, want.suite);
  EXPECT_EQ(r.info.suite_title, want.suite_title);
  EXPECT_EQ(r.info.date, want.date);
  EXPECT_EQ(r.info.date_iso, want.date_iso);
  EXPECT_EQ(r.info.machine, want.machine);
  EXPECT_EQ(r.info.system, want.system);
  EXPECT_EQ(r.info.release, want.release);
  EXPECT_EQ(r.info.version, want.version);
  EXPECT_EQ(r.info.ranks_per_host, want.ranks_per_host);
  EXPECT_EQ(r.info.world_size, 4);
  EXPECT_EQ(r.info.mpi_version, want.mpi_version);
  EXPECT_EQ(r.info.mpi_library, want.mpi_library);
  EXPECT_EQ(r.info.thread_level, want.thread_level);
  EXPECT_EQ(r.info.mpiscope_version, want.mpiscope_version);
  EXPECT_EQ(r.info.mpiscope_commit, want.mpiscope_commit);
  EXPECT_EQ(r.info.command_line, want.command_line);
  EXPECT_EQ(r.info.settings, want.settings);
  EXPECT_EQ(r.info.benchmarks, want.benchmarks);
  EXPECT_TRUE(r.info.user_lengths);
  EXPECT_EQ(r.info.max_length, 4096u);
  EXPECT_TRUE(r.info.multi);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0], "Alltoall skipped on 3 processes");
  ASSERT_EQ(r.summary.size(), 1u);
  EXPECT_EQ(r.summary[0].name, "b_eff");
  EXPECT_DOUBLE_EQ(r.summary[0].value, 1234.5);
  EXPECT_EQ(r.summary[0].unit, "MB/s (10^6 bytes per second)");

  ASSERT_EQ(r.benchmarks.size(), 1u);
  const auto& b = r.benchmarks[0];
  const auto wb = sample_table();
  EXPECT_EQ(b.name, wb.name);
  EXPECT_EQ(b.family, wb.family);
  EXPECT_EQ(b.mode, wb.mode);
  EXPECT_TRUE(b.overlap && b.sized && b.has_throughput && b.multi && b.check);
  EXPECT_EQ(b.multi_outflag, 1);
  EXPECT_EQ(b.nprocs, 2);
  EXPECT_EQ(b.groups, wb.groups);
  EXPECT_EQ(b.map_order, wb.map_order);
  EXPECT_EQ(b.map_rows, 2);
  EXPECT_EQ(b.map_cols, 2);
  EXPECT_EQ(b.parameters, wb.parameters);
  ASSERT_EQ(b.rows.size(), 2u);

  const auto& m = b.rows[0];
  const auto w = full_row();
  EXPECT_EQ(m.bytes, w.bytes);
  EXPECT_EQ(m.repetitions, w.repetitions);
  EXPECT_TRUE(m.measured);
  EXPECT_EQ(m.note, w.note);
  EXPECT_DOUBLE_EQ(m.t_min_us, 1.25);
  EXPECT_DOUBLE_EQ(m.t_max_us, 2.5);
  EXPECT_DOUBLE_EQ(m.t_avg_us, 1.875);
  EXPECT_DOUBLE_EQ(m.mbytes_per_sec.value(), 390.625);
  EXPECT_DOUBLE_EQ(m.defects.value(), 0);
  ASSERT_TRUE(m.overlap);
  EXPECT_DOUBLE_EQ(m.overlap->t_pure_us, 3.5);
  EXPECT_DOUBLE_EQ(m.overlap->t_cpu_us, 4.25);
  EXPECT_DOUBLE_EQ(m.overlap->overlap_percent, 61.5);
  ASSERT_EQ(m.groups.size(), 2u);
  EXPECT_DOUBLE_EQ(m.groups[0].mbytes_per_sec.value(), 488.28125);
  EXPECT_FALSE(m.groups[1].mbytes_per_sec);
  EXPECT_DOUBLE_EQ(m.groups[1].t_avg_us, 1.875);
  EXPECT_EQ(m.rank_times_us, w.rank_times_us);
  ASSERT_TRUE(m.samples_us);
  EXPECT_EQ(m.samples_us->n, 5u);
  EXPECT_DOUBLE_EQ(m.samples_us->median, 3.0);
  EXPECT_DOUBLE_EQ(m.samples_us->p25, w.samples_us->p25);
  EXPECT_DOUBLE_EQ(m.samples_us->p99, w.samples_us->p99);
  EXPECT_DOUBLE_EQ(m.samples_us->max, 10.0);
  EXPECT_EQ(m.raw_samples_us, w.raw_samples_us);
  ASSERT_EQ(m.values.size(), 2u);
  EXPECT_EQ(m.values[0].name, "b_eff");
  EXPECT_DOUBLE_EQ(m.values[0].value, 123.5);
  EXPECT_EQ(m.values[1].unit, "MPI_Wtime ticks");

  const auto& s = b.rows[1];
  EXPECT_FALSE(s.measured);
  EXPECT_EQ(s.note, "out-of-mem.");
  EXPECT_EQ(s.bytes, 4194304u);
  EXPECT_TRUE(std::isnan(s.t_max_us));  // no times exist for a skipped row
}

TEST(DbSchema, SchemaIsVersionedAndAnUnfinishedRunIsMarkedIncomplete) {
  const auto path = fresh_path("v.sqlite");
  db::ResultsDb d(path);
  {
    auto v = d.connection().prepare("PRAGMA user_version");
    ASSERT_TRUE(v.step());
    EXPECT_EQ(v.int64(0), db::kSchemaVersion);
    auto mode = d.connection().prepare("PRAGMA journal_mode");
    ASSERT_TRUE(mode.step());
    EXPECT_EQ(mode.text(0), "wal");
  }
  const auto id = d.begin_run(sample_info());
  const auto listing = d.list_runs();
  ASSERT_EQ(listing.size(), 1u);
  EXPECT_EQ(listing[0].id, id);
  EXPECT_FALSE(listing[0].complete);
  EXPECT_FALSE(d.load_run(id).complete);
  EXPECT_THROW(d.load_run(id + 1), db::DbError);
  // Opening it again (a second run) keeps what is there.
  db::ResultsDb again(path);
  EXPECT_EQ(again.list_runs().size(), 1u);
}

TEST(DbSchema, ForeignFilesAndNewerSchemasAreRefused) {
  const auto garbage = fresh_path("g.sqlite");
  std::ofstream(garbage) << "this is not a database, just text that is long enough to matter\n";
  EXPECT_THROW(db::ResultsDb{garbage}, db::DbError);
  EXPECT_THROW(db::ResultsDb(garbage, db::ResultsDb::Open::kRead), db::DbError);

  const auto other = fresh_path("o.sqlite");
  {
    db::Connection c(other);
    c.exec("CREATE TABLE unrelated (x INTEGER)");
  }
  try {
    db::ResultsDb d(other);
    FAIL() << "an SQLite file of another program was taken";
  } catch (const db::DbError& e) {
    EXPECT_NE(std::string(e.what()).find("not an mpiscope"), std::string::npos) << e.what();
  }

  const auto newer = fresh_path("n.sqlite");
  {
    db::ResultsDb d(newer);
    d.connection().exec("PRAGMA user_version = 99");
  }
  try {
    db::ResultsDb d(newer, db::ResultsDb::Open::kRead);
    FAIL() << "a newer schema was read";
  } catch (const db::DbError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99"), std::string::npos) << e.what();
  }
}

TEST(DbSchema, DefaultLocationFollowsTheEnvironment) {
  const char* old = std::getenv("MPISCOPE_DB");
  const std::string saved = old ? old : "";
  setenv("MPISCOPE_DB", "/somewhere/x.sqlite", 1);
  EXPECT_EQ(db::default_db_path(), "/somewhere/x.sqlite");
  unsetenv("MPISCOPE_DB");
  const char* xdg = std::getenv("XDG_DATA_HOME");
  const std::string saved_xdg = xdg ? xdg : "";
  setenv("XDG_DATA_HOME", "/data", 1);
  EXPECT_EQ(db::default_db_path(), "/data/mpiscope/results.sqlite");
  unsetenv("XDG_DATA_HOME");
  setenv("HOME", std::getenv("HOME") ? std::getenv("HOME") : "/root", 1);
  EXPECT_EQ(db::default_db_path(),
            std::string(std::getenv("HOME")) + "/.local/share/mpiscope/results.sqlite");
  // XDG rules: a relative XDG_DATA_HOME is ignored; with no usable HOME either, no location at
  // all is an error (never a file in whatever the current directory is).
  const std::string home = std::getenv("HOME");
  setenv("XDG_DATA_HOME", "relative/data", 1);
  EXPECT_EQ(db::default_db_path(), home + "/.local/share/mpiscope/results.sqlite");
  unsetenv("HOME");
  EXPECT_THROW(db::default_db_path(), db::DbError);
  unsetenv("XDG_DATA_HOME");
  EXPECT_THROW(db::default_db_path(), db::DbError);
  setenv("HOME", home.c_str(), 1);
  if (!saved_xdg.empty()) setenv("XDG_DATA_HOME", saved_xdg.c_str(), 1);
  if (!saved.empty()) setenv("MPISCOPE_DB", saved.c_str(), 1);
}

namespace {

std::string golden_text(const std::string& name) {
  const auto path =
      std::filesystem::path(__FILE__).parent_path().parent_path() / "data" / "golden" / name;
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string schema_of(db::ResultsDb& d) {
  auto tables =
      d.connection().prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid");
  std::string schema;
  while (tables.step()) schema += tables.text(0) + ";\n";
  return schema;
}

// A database as a build of schema version 1 left it: version 1's tables exactly as released
// (tests/data/golden/results_db_v1.sql, never edited), holding one run.
std::string version_1_database() {
  const auto path = fresh_path("v1.sqlite");
  {
    db::Connection c(path, db::Connection::Mode::kReadWrite);
    c.exec(golden_text("results_db_v1.sql"));
    c.exec("PRAGMA user_version = 1");
    c.exec(
        "INSERT INTO runs (source, suite, date_iso, world_size) VALUES ('mpiscope', 'imb-mpi1', "
        "'2025-01-02T03:04:05Z', 2)");
    c.exec("INSERT INTO benchmarks (run_id, seq, name, nprocs) VALUES (1, 0, 'PingPong', 2)");
    c.exec(
        "INSERT INTO measurements (benchmark_id, seq, bytes, measured, t_max_us) VALUES (1, 0, 8, "
        "1, 2.5)");
  }
  return path;
}

}  // namespace

// The schema of a new database is tests/data/golden/results_db_v5.sql: a change of any table needs
// a new schema version and a migration (Column::since_version), and this file is then rewritten.
TEST(DbSchema, TablesAreAsReleased) {
  db::ResultsDb d(fresh_path("s.sqlite"));
  EXPECT_EQ(schema_of(d), golden_text("results_db_v5.sql"));
}

// A version 1 database opened for writing gains the label column, keeps its runs, and ends with
// the schema of a new database; opened read-only it is read as it is (without labels).
TEST(DbSchema, Version1DatabasesAreMigratedAndKeepTheirRuns) {
  const auto path = version_1_database();
  {
    db::ResultsDb reader(path, db::ResultsDb::Open::kRead);
    const auto runs = reader.list_runs();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].label, "");
    EXPECT_EQ(reader.load_run(1).benchmarks.at(0).rows.at(0).t_max_us, 2.5);
  }
  db::ResultsDb d(path);
  auto v = d.connection().prepare("PRAGMA user_version");
  ASSERT_TRUE(v.step());
  EXPECT_EQ(v.int64(0), db::kSchemaVersion);
  db::ResultsDb fresh(fresh_path("new.sqlite"));
  EXPECT_EQ(schema_of(d), schema_of(fresh));
  d.set_label(1, "before the upgrade");
  const auto run = d.load_run(1);
  EXPECT_EQ(run.info.label, "before the upgrade");
  EXPECT_EQ(run.info.date_iso, "2025-01-02T03:04:05Z");
  EXPECT_EQ(run.benchmarks.at(0).rows.at(0).t_max_us, 2.5);
}

TEST(DbSchema, LabelsAreStoredChangedAndListed) {
  db::ResultsDb d(fresh_path("l.sqlite"));
  auto info = sample_info();
  info.label = "baseline";
  const auto id = d.begin_run(info);
  EXPECT_EQ(d.load_run(id).info.label, "baseline");
  EXPECT_EQ(d.list_runs().at(0).label, "baseline");
  EXPECT_EQ(d.list_runs().at(0).method, "");
  d.set_label(id, "after the fix");
  EXPECT_EQ(d.list_runs().at(0).label, "after the fix");
  EXPECT_THROW(d.set_label(id + 1, "x"), db::DbError);
}

// A table's curve model (version 3) is stored when the table is finished and read back whole; a
// table without one reads back without one.
TEST(DbSchema, ACurveModelIsStoredWhenItsTableEndsAndReadBack) {
  db::ResultsDb d(fresh_path("m.sqlite"));
  const auto id = d.begin_run(sample_info());
  core::BenchmarkRun pingpong;
  pingpong.name = "PingPong";
  pingpong.nprocs = 2;
  const auto with_model = d.add_benchmark(id, 0, pingpong);
  d.add_benchmark(id, 1, pingpong);
  core::CurveModel model;
  model.time_column = "t_max";
  model.rms_relative_error = 0.07;
  model.regions.push_back({.first_bytes = 0,
                           .last_bytes = 2048,
                           .points = 12,
                           .alpha_us = 0.22,
                           .beta_mb_per_s = std::nullopt,
                           .rms_relative_error = 0.09});
  model.regions.push_back({.first_bytes = 4096,
                           .last_bytes = 1048576,
                           .points = 9,
                           .alpha_us = 2.53,
                           .beta_mb_per_s = 12012.0,
                           .rms_relative_error = 0.04});
  d.set_model(with_model, model);
  const auto run = d.load_run(id);
  ASSERT_EQ(run.benchmarks.size(), 2u);
  ASSERT_TRUE(run.benchmarks[0].model);
  const auto& back = *run.benchmarks[0].model;
  EXPECT_EQ(back.time_column, "t_max");
  ASSERT_EQ(back.regions.size(), 2u);
  EXPECT_FALSE(back.regions[0].beta_mb_per_s);
  EXPECT_EQ(back.regions[1].first_bytes, 4096u);
  EXPECT_EQ(back.regions[1].beta_mb_per_s, 12012.0);
  EXPECT_EQ(back.regions[1].points, 9);
  EXPECT_FALSE(run.benchmarks[1].model);
}

// Deleting is all or nothing: an unknown id among known ones deletes none of them; a deleted
// run leaves no table, row, value, parameter, setting or host behind.
TEST(DbSchema, DeleteRemovesEverythingOfTheRunsOrNothing) {
  db::ResultsDb d(fresh_path("d.sqlite"));
  db::StoredRun run;
  run.info = sample_info();
  run.benchmarks.push_back(sample_table());
  run.notes = {"a note"};
  run.summary = {{"b_eff", 1.5, "MB/s"}};
  const auto first = d.store(run);
  const auto second = d.store(run);
  EXPECT_THROW(d.delete_runs({first, second + 10}), db::DbError);
  EXPECT_EQ(d.list_runs().size(), 2u);
  d.delete_runs({first});
  ASSERT_EQ(d.list_runs().size(), 1u);
  EXPECT_EQ(d.list_runs()[0].id, second);
  auto count = [&](const std::string& table) {
    auto s = d.connection().prepare("SELECT count(*) FROM " + table);
    s.step();
    return s.int64(0);
  };
  const auto rows_per_run = static_cast<std::int64_t>(run.benchmarks[0].rows.size());
  EXPECT_EQ(count("benchmarks"), 1);
  EXPECT_EQ(count("measurements"), rows_per_run);
  EXPECT_EQ(count("run_notes"), 1);
  EXPECT_EQ(count("run_summary"), 1);
  EXPECT_EQ(count("run_hosts"), 2);
  EXPECT_EQ(count("run_settings"), static_cast<std::int64_t>(run.info.settings.size()));
  d.delete_runs({second});
  for (const char* table :
       {"runs", "benchmarks", "benchmark_parameters", "measurements", "measurement_values",
        "run_notes", "run_summary", "run_hosts", "run_settings"})
    EXPECT_EQ(count(table), 0) << table;
}

// A run id names one run for ever: after the newest runs are deleted, a new run gets a new id
// (SQLite's plain INTEGER PRIMARY KEY would hand out the largest id + 1 again), in a new
// database and in one migrated from version 1, whose runs keep their ids.
TEST(DbSchema, RunIdsAreNeverGivenOutTwice) {
  db::ResultsDb d(fresh_path("ids.sqlite"));
  db::StoredRun run;
  run.info = sample_info();
  const auto first = d.store(run);
  const auto second = d.begin_run(sample_info());
  d.delete_runs({second});
  const auto third = d.store(run);
  EXPECT_GT(third, second);
  d.delete_runs({first, third});
  EXPECT_GT(d.begin_run(sample_info()), third);

  const auto path = version_1_database();
  db::ResultsDb migrated(path);
  ASSERT_EQ(migrated.list_runs().size(), 1u);
  EXPECT_EQ(migrated.list_runs()[0].id, 1);
  EXPECT_EQ(migrated.load_run(1).benchmarks.at(0).rows.at(0).t_max_us, 2.5);
  migrated.delete_runs({1});
  EXPECT_EQ(migrated.store(run), 2);
}

TEST(DbSchema, AParameterTheStatementLacksIsAnError) {
  db::ResultsDb d(fresh_path("p.sqlite"));
  auto s = d.connection().prepare("SELECT id FROM runs WHERE id = :id");
  EXPECT_NO_THROW(s.bind(":id", 1));
  try {
    s.bind(":run_id", 1);
    FAIL() << "a name the statement lacks was bound";
  } catch (const db::DbError& e) {
    EXPECT_NE(std::string(e.what()).find(":run_id"), std::string::npos) << e.what();
  }
}
