#include "output/db_reporter.hpp"

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
    core::BenchmarkRun table = b;
    if (b.accurate)
      table.parameters["measurement"] = "accurate";  // rows carry the statistics below
    benchmark_id_ = db_->add_benchmark(run_id_, benchmark_seq_++, table);
    row_seq_ = 0;
  });
}

namespace {
// Accurate mode's statistics over repetitions, kept as named values (schema version 1 has no
// columns of their own): compare and report take the median and its interval from them.
core::Measurement with_accurate_values(const core::Measurement& m) {
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
}  // namespace

void DbReporter::row(const core::BenchmarkRun&, const core::Measurement& m) {
  guarded([&] { db_->add_row(benchmark_id_, row_seq_++, with_accurate_values(m)); });
}

void DbReporter::note(const std::string& text) {
  guarded([&] { db_->add_note(run_id_, text); });
}

void DbReporter::summary(const core::NamedValue& v) {
  guarded([&] { db_->add_summary(run_id_, v); });
}

void DbReporter::run_finished(const core::RunInfo&, bool ok) {
  guarded([&] {
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
