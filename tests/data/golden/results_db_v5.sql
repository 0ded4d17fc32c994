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
, model TEXT NOT NULL DEFAULT '');
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
CREATE TABLE "runs" (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
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
  ok INTEGER NOT NULL DEFAULT 0,
  label TEXT NOT NULL DEFAULT '',
  control_variables TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE sqlite_sequence(name,seq);
