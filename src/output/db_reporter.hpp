#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "core/reporter.hpp"

namespace mpiscope::db {
class ResultsDb;
}

namespace mpiscope::output {

// Records the run in the results database (db/results_db.hpp) as it goes: the run's metadata at
// the start, each table when it starts, each row as it is measured, each in its own transaction,
// so that a run that is killed keeps every finished measurement. A database that cannot be
// written never stops the measurements: one warning, and the run goes on without it. After the
// run it tells where the results went. Both messages are '#' comment lines on stdout, after
// everything printed before them: on stderr the launcher could deliver them into the middle of a
// table when stdout and stderr are merged (2>&1, Slurm's default).
class DbReporter : public core::Reporter {
 public:
  explicit DbReporter(std::string path, std::FILE* messages = stdout);
  ~DbReporter() override;
  void run_started(const core::RunInfo&) override;
  void benchmark_started(const core::BenchmarkRun&) override;
  void row(const core::BenchmarkRun&, const core::Measurement&) override;
  void benchmark_finished(const core::BenchmarkRun&) override;
  void note(const std::string&) override;
  void summary(const core::NamedValue&) override;
  void run_finished(const core::RunInfo&, bool ok) override;

  std::int64_t run_id() const { return run_id_; }

 private:
  template <class F>
  void guarded(F&& f);
  std::string path_;
  std::FILE* messages_;
  std::unique_ptr<db::ResultsDb> db_;
  bool failed_ = false;
  std::int64_t run_id_ = 0, benchmark_id_ = 0;
  int benchmark_seq_ = 0, row_seq_ = 0;
};

// The database a run records into: FILE of --db, else the default location (MPISCOPE_DB,
// XDG_DATA_HOME, ~/.local/share/mpiscope/results.sqlite); empty with --no-db.
std::string db_path_for(const std::string& chosen, bool disabled);
// Opens (creating) a database the user chose, so that an unusable --db FILE is one error
// before anything runs. Throws OutputError.
void check_db_path(const std::string& chosen);

}  // namespace mpiscope::output
