#include "output/db_reporter.hpp"

#include <cmath>

#include "core/run_info.hpp"
#include "db/results_db.hpp"
#include "output/files.hpp"

namespace mpiscope::output {

DbReporter::DbReporter(std::string path, std::FILE* messages)
    : path_(std::move(path)), messages_(messages) {}

DbReporter::~DbReporter() = default;

template <class F>
void DbReporter::guarded(F&& f) {
  if (failed_) return;
  try {
    f();
  } catch (const std::exception& e) {
    failed_ = true;
    db_.reset();
    std::fprintf(messages_,
                 "# mpiscope: warning: results database: %s; the run goes on without it\n",
                 e.what());
    std::fflush(messages_);
  }
}

void DbReporter::run_started(const core::RunInfo& info) {
  guarded([&] {
    if (path_ == db::default_db_path()) db::prepare_default_location(path_);
    db_ = std::make_unique<db::ResultsDb>(path_);
    run_id_ = db_->begin_run(info);
  });
}

void DbReporter::benchmark_started(const core::BenchmarkRun& b) {
  guarded([&] {
    benchmark_id_ = db_->add_benchmark(run_id_, benchmark_seq_++, db::table_as_stored(b));
    row_seq_ = 0;
  });
}

void DbReporter::row(const core::BenchmarkRun&, const core::Measurement& m) {
  guarded([&] { db_->add_row(benchmark_id_, row_seq_++, db::row_as_stored(m)); });
}

void DbReporter::benchmark_finished(const core::BenchmarkRun& b) {
  if (b.model) guarded([&] { db_->set_model(benchmark_id_, *b.model); });
}

void DbReporter::note(const std::string& text) {
  guarded([&] { db_->add_note(run_id_, text); });
}

void DbReporter::summary(const core::NamedValue& v) {
  guarded([&] { db_->add_summary(run_id_, v); });
}

void DbReporter::run_finished(const core::RunInfo& info, bool ok) {
  guarded([&] {
    // Whether rank 0 kept its core for the whole run: compare trusts one run per side only then.
    std::map<std::string, std::string> at_end;
    for (const char* name : core::kEndOfRunSettings)
      if (const auto it = info.settings.find(name); it != info.settings.end()) at_end.insert(*it);
    db_->add_settings(run_id_, at_end);
    db_->finish_run(run_id_, ok);
    std::fprintf(messages_, "# mpiscope: results recorded as run %lld in %s\n",
                 static_cast<long long>(run_id_), path_.c_str());
    std::fflush(messages_);
  });
}

std::string db_path_for(const std::string& chosen, bool disabled) {
  if (disabled) return "";
  return chosen.empty() ? db::default_db_path() : chosen;
}

void check_db_path(const std::string& chosen) {
  try {
    db::ResultsDb check(chosen);
  } catch (const db::DbError& e) {
    throw OutputError(std::string("--db: ") + e.what());
  }
}

}  // namespace mpiscope::output
