// Which stored runs a command works on. One grammar for every command that reads sets of runs
// (compare's two sides, report --runs and --compare, export, summary), and one filter for the
// commands that take filter options (runs, history):
//
//   12, last, last-3          runs by id (last-N: the run N before the newest)
//   baseline                  the runs labelled 'baseline' (a word that is not an id)
//   label=TEXT  suite=SUITE  benchmark=NAME  mpi=TEXT  since=DAY  until=DAY
//
// A set is a comma-separated list of either ids (their union) or filters (a run must match each
// key; a key given twice matches either value), never both: "3,label=x" is refused rather than
// guessed at. A set that matches no run is an error that says why.
#pragma once

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/results_db.hpp"

namespace mpiscope::report {

// A set that names no run, a malformed term, an unknown key: said to the user as it is.
class RunSetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs chosen by what they are rather than by id. An empty list chooses all.
struct RunFilter {
  std::vector<std::string> suites;      // a suite takes its tests too (presta: presta-*)
  std::vector<std::string> labels;      // exactly this label
  std::vector<std::string> benchmarks;  // runs holding a table of this benchmark (any case)
  std::vector<std::string> mpis;        // text in the MPI library's name or version (any case)
  std::string since, until;             // "YYYY-MM-DD[THH:MM]", inclusive

  bool empty() const;
  // `date` as run_date() gives it; `with_benchmark`: the runs holding one of `benchmarks`.
  bool matches(const db::RunListing& r, const std::string& date,
               const std::set<std::int64_t>& with_benchmark) const;
  // RunSetError for a day that does not exist or a suite nobody has, named as the user wrote
  // it: before + "since" + after ("--since", "since=").
  void check(const std::string& before, const std::string& after,
             const std::vector<db::RunListing>& listing) const;
  // The runs of `listing` it keeps, in the listing's order.
  std::vector<std::int64_t> select(db::ResultsDb& database,
                                   const std::vector<db::RunListing>& listing) const;
};

// When the run was made, as "YYYY-MM-DD HH:MM" (the date its source printed, else when it was
// recorded); "-" when unknown.
std::string run_date(const db::RunListing& r);

// A day (or time) that exists, in the form YYYY-MM-DD[THH:MM]; `option` names where it came
// from in the error (--since, until=).
void check_day(const std::string& option, const std::string& day);

// A suite mpiscope runs (presta-com: a test of presta), "imb" (an IMB file whose title was not
// recognised), or one the database holds; anything else is a typo that would select nothing.
void check_suite(const std::string& option, const std::string& suite,
                 const std::vector<db::RunListing>& runs);

// One run: an id, last or last-N (label, delete: commands that change runs take no sets).
std::int64_t resolve_run(db::ResultsDb& database, const std::string& spec);

// The runs of every set in `sets`, in order, each once. A run named by id in two places is an
// error (export would write it twice); runs a filter chose again are taken once. `what` names
// the option or argument in errors ("--runs", "RUN_A").
std::vector<std::int64_t> select_runs(db::ResultsDb& database, const std::vector<std::string>& sets,
                                      const std::string& what);

}  // namespace mpiscope::report
