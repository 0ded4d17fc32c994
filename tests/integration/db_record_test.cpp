// The results database as the suites write it: what a run records, where, a run killed with
// SIGKILL in the middle, two runs writing the same file at once, and an unusable --db.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>
#include <tuple>

#include "harness.hpp"

using namespace harness;
using nlohmann::json;

namespace {

// Read-only queries with SQLite's C API: independent of mpiscope's own reader.
class Db {
 public:
  explicit Db(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
      throw std::runtime_error("cannot open " + path);
    sqlite3_busy_timeout(db_, 10000);
  }
  ~Db() { sqlite3_close(db_); }
  std::vector<std::vector<std::string>> query(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("bad query: ") + sqlite3_errmsg(db_));
    std::vector<std::vector<std::string>> rows;
    while (sqlite3_step(s) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int c = 0; c < sqlite3_column_count(s); ++c) {
        if (sqlite3_column_type(s, c) == SQLITE_FLOAT) {  // every digit of the stored double
          char buf[40];
          std::snprintf(buf, sizeof buf, "%.17g", sqlite3_column_double(s, c));
          row.push_back(buf);
          continue;
        }
        const auto* t = sqlite3_column_text(s, c);
        row.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
      }
      rows.push_back(row);
    }
    sqlite3_finalize(s);
    return rows;
  }
  long long count(const std::string& sql) { return std::stoll(query(sql).at(0).at(0)); }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace

TEST(DbRecord, RunIsRecordedWithTheSameNumbersAsTheJson) {
  const auto dir = temp_dir();
  const auto lengths = write_file(dir, "l", "0\n1024\n65536\n");
  const auto r = run_mpi(3, {"imb-mpi1", "PingPong", "Allreduce", "Barrier", "-iter", "20",
                             "-msglen", lengths, "--json", dir + "/r.json", "--db", dir + "/r.db"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // On stdout, as the last comment line: on stderr it could land inside a table when merged.
  EXPECT_EQ(count_of(r.out, "# mpiscope: results recorded as run 1 in " + dir + "/r.db"), 1)
      << r.out;
  const json j = json::parse(read_file(dir + "/r.json"));
  Db db(dir + "/r.db");
  // 2: runs.label, 3: benchmarks.model, 4: runs.control_variables, 5: runs.id AUTOINCREMENT
  EXPECT_EQ(db.count("PRAGMA user_version"), 5);
  const auto run = db.query(
      "SELECT suite, world_size, mpi_library, mpiscope_commit, command_line, complete, ok FROM "
      "runs");
  ASSERT_EQ(run.size(), 1u);
  EXPECT_EQ(run[0][0], "imb-mpi1");
  EXPECT_EQ(run[0][1], "3");
  EXPECT_EQ(run[0][2], j["run"]["mpi_library"].get<std::string>());
  EXPECT_EQ(run[0][3], j["run"]["mpiscope_commit"].get<std::string>());
  EXPECT_EQ(json::parse(run[0][4]), j["run"]["command_line"]);
  EXPECT_EQ(run[0][5], "1");
  EXPECT_EQ(run[0][6], "1");
  EXPECT_EQ(db.count("SELECT sum(ranks) FROM run_hosts"), 3);
  // The settings known at the start, and those only the end knows (the most a rank waited for a
  // CPU).
  ASSERT_EQ(j["settings_at_end"].size(), 1u) << j.dump();
  const std::string share = j["settings_at_end"]["max_cpu_wait_percent"].get<std::string>();
  EXPECT_GE(std::stod(share), 0.0);
  EXPECT_LE(std::stod(share), 100.0);
  EXPECT_EQ(db.count("SELECT count(*) FROM run_settings"),
            static_cast<long long>(j["run"]["settings"].size() + j["settings_at_end"].size()));
  EXPECT_EQ(db.query("SELECT value FROM run_settings WHERE name = 'max_cpu_wait_percent'")[0][0],
            share);

  // Every table and row of the JSON, in order, with the same statistics.
  const auto tables = db.query("SELECT id, name, nprocs FROM benchmarks ORDER BY seq");
  ASSERT_EQ(tables.size(), j["benchmarks"].size());
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const auto& jt = j["benchmarks"][t];
    EXPECT_EQ(tables[t][1], jt["name"].get<std::string>());
    EXPECT_EQ(std::stoi(tables[t][2]), jt["nprocs"].get<int>());
    const auto rows = db.query(
        "SELECT bytes, repetitions, t_min_us, t_max_us, t_avg_us, mbytes_per_sec, rank_times_us "
        "FROM measurements WHERE benchmark_id = " +
        tables[t][0] + " ORDER BY seq");
    ASSERT_EQ(rows.size(), jt["rows"].size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& jr = jt["rows"][i];
      EXPECT_EQ(std::stoull(rows[i][0]), jr["bytes"].get<std::size_t>());
      EXPECT_EQ(std::stoi(rows[i][1]), jr["repetitions"].get<int>());
      EXPECT_DOUBLE_EQ(std::stod(rows[i][2]), jr["t_min_us"].get<double>());
      EXPECT_DOUBLE_EQ(std::stod(rows[i][3]), jr["t_max_us"].get<double>());
      EXPECT_DOUBLE_EQ(std::stod(rows[i][4]), jr["t_avg_us"].get<double>());
      if (jr.contains("mbytes_per_sec"))
        EXPECT_DOUBLE_EQ(std::stod(rows[i][5]), jr["mbytes_per_sec"].get<double>());
      else
        EXPECT_EQ(rows[i][5], "NULL");
      EXPECT_EQ(json::parse(rows[i][6]), jr["rank_times_us"]);
    }
  }
}

TEST(DbRecord, DefaultLocationComesFromTheEnvironmentAndNoDbWritesNothing) {
  const auto dir = temp_dir();
  const auto r =
      run_mpi(2, {"imb-mpi1", "PingPong", "-iter", "10", "-msglen", write_file(dir, "l", "8\n")},
              "MPISCOPE_DB=" + dir + "/default.sqlite");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_of(r.out, "results recorded as run 1 in " + dir + "/default.sqlite"), 1) << r.out;
  EXPECT_EQ(Db(dir + "/default.sqlite").count("SELECT count(*) FROM measurements"), 1);

  const auto none = run_mpi(2, {"imb-mpi1", "PingPong", "-iter", "10", "--no-db"},
                            "MPISCOPE_DB=" + dir + "/never.sqlite");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/never.sqlite"));
  EXPECT_EQ(count_of(none.out + none.err, "results recorded"), 0);
}

TEST(DbRecord, UnusableDatabaseIsOneUsageErrorBeforeAnythingRuns) {
  const auto dir = temp_dir();
  const auto r = run_mpi(2, {"imb-mpi1", "PingPong", "--db", dir + "/no/such/dir/r.db"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(count_of(r.err, "--db"), 1) << r.err;
  EXPECT_EQ(count_of(r.out, "# Benchmarking"), 0);
  const auto garbage = write_file(dir, "text.db", "not a database at all, only some text\n");
  const auto g = run_mpi(2, {"imb-mpi1", "PingPong", "--db", garbage});
  EXPECT_EQ(g.exit_code, 2) << g.err;
  EXPECT_NE(g.err.find("not an mpiscope results database"), std::string::npos) << g.err;
  EXPECT_EQ(read_file(garbage), "not a database at all, only some text\n");  // left untouched
}

TEST(DbRecord, SigkillInTheMiddleLeavesEveryFinishedMeasurement) {
  const auto dir = temp_dir();
  const std::string path = dir + "/k.db";
  // Long enough (several seconds) that the kill comes in the middle.
  std::thread job([&] {
    run_mpi(2, {"imb-mpi1", "PingPong", "Sendrecv", "Exchange", "-iter", "300", "--db", path}, "",
            120);
  });
  long long pid = 0, rows = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!std::filesystem::exists(path)) continue;
    try {
      Db db(path);
      if (db.count("SELECT count(*) FROM runs") == 0) continue;
      rows = db.count("SELECT count(*) FROM measurements");
      if (rows >= 5) {
        pid = db.count("SELECT recorded_pid FROM runs");
        break;
      }
    } catch (const std::exception&) {
      // The schema is being created.
    }
  }
  ASSERT_GT(pid, 0) << "the run never recorded 5 rows";
  ASSERT_EQ(kill(static_cast<pid_t>(pid), SIGKILL), 0);
  job.join();

  Db db(path);
  EXPECT_EQ(db.query("PRAGMA integrity_check").at(0).at(0), "ok");
  const auto run = db.query("SELECT complete, ok FROM runs");
  ASSERT_EQ(run.size(), 1u);
  EXPECT_EQ(run[0][0], "0");  // never finished
  const auto after = db.count("SELECT count(*) FROM measurements");
  EXPECT_GE(after, rows);
  EXPECT_EQ(db.count("SELECT count(*) FROM measurements WHERE t_max_us IS NULL OR repetitions "
                     "IS NULL"),
            0);
  // The stored rows are readable by mpiscope itself.
  const auto listing = run_plain({"runs", "--db", path, "--long"});
  EXPECT_EQ(listing.exit_code, 0) << listing.err;
  EXPECT_NE(listing.out.find(" no "), std::string::npos) << listing.out;
  // The short listing marks the unfinished run's row count instead.
  EXPECT_NE(run_plain({"runs", "--db", path}).out.find("# rows*: the run did not finish"),
            std::string::npos);
}

TEST(DbRecord, TwoRunsWritingTheSameFileAtOnceBothSucceed) {
  const auto dir = temp_dir();
  const std::string path = dir + "/shared.db";
  harness::Result a, b;
  // Each launcher a session folder of its own (two Open MPI launchers under one $TMPDIR race to
  // make and remove the same one).
  const std::string first_tmp = "TMPDIR=" + temp_dir();
  std::thread first([&] {
    a = run_mpi(2, {"imb-mpi1", "PingPong", "Sendrecv", "-iter", "30", "--db", path}, first_tmp);
  });
  // The harness's temporary folders are made by the calling thread: start the second after the
  // first has made its own.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  b = run_mpi(2, {"imb-mpi1", "PingPong", "Sendrecv", "-iter", "30", "--db", path});
  first.join();
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  Db db(path);
  EXPECT_EQ(db.query("PRAGMA integrity_check").at(0).at(0), "ok");
  const auto runs = db.query(
      "SELECT r.id, r.complete, (SELECT count(*) FROM measurements m JOIN benchmarks t ON "
      "m.benchmark_id = t.id WHERE t.run_id = r.id) FROM runs r ORDER BY r.id");
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& r : runs) {
    EXPECT_EQ(r[1], "1");
    EXPECT_EQ(r[2], runs[0][2]);  // the same plan, the same number of rows
  }
  EXPECT_GT(std::stoi(runs[0][2]), 20);
}

// Issue 14: `-off_cache -1` with a cache whose rotation (twice the cache per buffer) exceeds
// -mem measures with as many buffers as fit (at most one per repetition); only a length whose
// single buffer pair exceeds -mem is skipped, and then the run says so on stdout, in the JSON, in
// the database and in its exit status (5). A complete run of the same kind says 0, true and ok.
TEST(IncompleteRun, OffCacheFitsItsRotationInMemAndASkippedLengthIsReportedEverywhere) {
  const auto dir = temp_dir();
  // -mem: below PingPong's 16 slots of 64 KiB per buffer (n under -iter 20,1,4), above one slot
  // pair of Unidir_Put's aggregate mode (16 · 64 KiB to receive).
  for (const auto& [suite, benchmark, mem] : {std::tuple{"imb-mpi1", "PingPong", "0.0019"},
                                              std::tuple{"imb-ext", "Unidir_Put", "0.002"}}) {
    for (const bool with_skip : {false, true}) {
      SCOPED_TRACE(std::string(suite) + (with_skip ? " with a 4 MiB length" : " complete"));
      const std::string tag = std::string(suite) + (with_skip ? "_skip" : "_all");
      const auto lengths =
          write_file(dir, tag + ".l", with_skip ? "0\n1024\n4194304\n" : "0\n1024\n65536\n");
      const auto r = run_mpi(2, {suite, benchmark, "-off_cache", "-1", "-mem", mem, "-check",
                                 "-iter", "20,1,4", "-msglen", lengths, "--json",
                                 dir + "/" + tag + ".json", "--db", dir + "/" + tag + ".db"});
      EXPECT_EQ(r.exit_code, with_skip ? 5 : 0) << r.out << r.err;
      EXPECT_EQ(count_of(r.out, "# Off-cache: "), 1) << r.out;
      const auto tables = parse_imb(r.out);
      ASSERT_FALSE(tables.empty());
      int measured = 0, cut = 0;
      for (const auto& t : tables)
        for (std::size_t i = 0; i < t.rows.size(); ++i) {
          const bool skipped = t.rows[i].find("out of memory limit") != std::string::npos;
          EXPECT_EQ(skipped, with_skip && t.cells[i][0] == "4194304") << t.rows[i];
          measured += !skipped;
        }
      const json j = json::parse(read_file(dir + "/" + tag + ".json"));
      for (const auto& b : j["benchmarks"])
        for (const auto& row : b["rows"])
          if (row["measured"] == true) {
            const auto& values = row["values"];
            const double buffers = values["off_cache_buffers"]["value"].get<double>();
            EXPECT_GE(buffers, 1);
            // A cut rotation is said by its values (and once in the header), not by a row note.
            EXPECT_EQ(row.value("note", ""), "");
            if (values.contains("off_cache_buffers_wanted")) {
              EXPECT_LT(buffers, values["off_cache_buffers_wanted"]["value"].get<double>());
              ++cut;
            }
          }
      EXPECT_GE(cut, with_skip ? 0 : 1) << "the 65536-byte row rotated through what fits";
      EXPECT_GE(measured, 2);
      EXPECT_EQ(j["all_points_ran"], !with_skip);
      EXPECT_NE(r.out.find("ALL BENCHMARKS SUCCESSFUL"), std::string::npos) << "data is right";
      EXPECT_EQ(count_of(r.out, "# Incomplete run: "), with_skip ? 1 : 0) << r.out;
      Db db(dir + "/" + tag + ".db");
      EXPECT_EQ(db.query("SELECT complete, ok FROM runs").at(0),
                (std::vector<std::string>{"1", with_skip ? "0" : "1"}));
    }
  }
}
