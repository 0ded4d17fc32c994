// Reporters turn the result model into outputs. They are called on world rank 0 only, between
// measurements, never inside a timed region (the Google Benchmark split of measuring and
// reporting).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/run_info.hpp"
#include "core/scratch_files.hpp"

namespace mpiscope::core {

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void run_started(const RunInfo&) {}
  virtual void benchmark_started(const BenchmarkRun&) {}
  virtual void row(const BenchmarkRun&, const Measurement&) {}
  virtual void benchmark_finished(const BenchmarkRun&) {}
  virtual void note(const std::string&) {}  // a remark for the reader (skipped benchmark, …)
  // A figure derived from the whole run (b_eff, b_eff_io, …), with its unit.
  virtual void summary(const NamedValue&) {}
  virtual void run_finished(const RunInfo&, bool ok) { (void)ok; }
};

// Passes every event on to another reporter; a subclass overrides only the events it changes.
class ForwardingReporter : public Reporter {
 public:
  explicit ForwardingReporter(Reporter& inner) : inner_(inner) {}
  void run_started(const RunInfo& i) override { inner_.run_started(i); }
  void benchmark_started(const BenchmarkRun& b) override { inner_.benchmark_started(b); }
  void row(const BenchmarkRun& b, const Measurement& m) override { inner_.row(b, m); }
  void benchmark_finished(const BenchmarkRun& b) override { inner_.benchmark_finished(b); }
  void note(const std::string& n) override { inner_.note(n); }
  void summary(const NamedValue& v) override { inner_.summary(v); }
  void run_finished(const RunInfo& i, bool ok) override { inner_.run_finished(i, ok); }

 protected:
  Reporter& inner() { return inner_; }

 private:
  Reporter& inner_;
};

// Adds to each measured row of the tables `applies` picks the time its suite's text prints when
// that is the ranks' mean, not t_max (IMB-P2P's t[usec], IMB-MT's UniBandMT and BiBandMT), as the
// row's "headline_us", which compare and the curve model read.
class MeanTimeHeadline : public ForwardingReporter {
 public:
  MeanTimeHeadline(Reporter& inner, std::function<bool(const BenchmarkRun&)> applies)
      : ForwardingReporter(inner), applies_(std::move(applies)) {}
  void row(const BenchmarkRun& b, const Measurement& m) override {
    if (!m.measured || m.accurate || !applies_(b)) return inner().row(b, m);
    Measurement copy = m;
    copy.values.push_back(
        {"headline_us", m.t_avg_us, "microseconds: the mean time the text prints"});
    inner().row(b, copy);
  }

 private:
  std::function<bool(const BenchmarkRun&)> applies_;
};

// Sends every event to each reporter in turn, with SIGINT/SIGTERM held until all have it.
class ReporterList : public Reporter {
 public:
  void add(std::unique_ptr<Reporter> r) { list_.push_back(std::move(r)); }
  void run_started(const RunInfo& i) override { each(&Reporter::run_started, i); }
  void benchmark_started(const BenchmarkRun& b) override { each(&Reporter::benchmark_started, b); }
  void row(const BenchmarkRun& b, const Measurement& m) override { each(&Reporter::row, b, m); }
  void benchmark_finished(const BenchmarkRun& b) override {
    each(&Reporter::benchmark_finished, b);
  }
  void note(const std::string& n) override { each(&Reporter::note, n); }
  void summary(const NamedValue& v) override { each(&Reporter::summary, v); }
  void run_finished(const RunInfo& i, bool ok) override { each(&Reporter::run_finished, i, ok); }

 private:
  template <class Event, class... Args>
  void each(Event event, const Args&... args) {
    const scratch_files::DeferSignals whole_event;
    for (auto& r : list_) ((*r).*event)(args...);
  }
  std::vector<std::unique_ptr<Reporter>> list_;
};

}  // namespace mpiscope::core
