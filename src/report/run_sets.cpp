#include "report/run_sets.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>

#include "cli/registry.hpp"
#include "core/text.hpp"
#include "report/compare.hpp"

namespace mpiscope::report {

namespace {

bool all_digits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// "12", "last", "last-3": a run named by position; anything else in a set is a filter.
bool is_run_reference(const std::string& term) {
  if (all_digits(term)) return true;
  return term == "last" || (term.rfind("last-", 0) == 0 && all_digits(term.substr(5)));
}

bool contains_any_case(const std::string& text, const std::string& part) {
  return core::to_lower(text).find(core::to_lower(part)) != std::string::npos;
}

// A set's terms at commas; an empty term ("1,", "1,,2") is a mistake, not "every run".
std::vector<std::string> terms_of(const std::string& set, const std::string& what) {
  std::vector<std::string> terms;
  for (const auto& part : core::split(set, ',')) {
    if (core::trim(part).empty())
      throw RunSetError(what + " '" + set + "': an empty run between commas");
    terms.push_back(core::trim(part));
  }
  return terms;
}

std::int64_t run_at(const std::vector<db::RunListing>& listing, const std::string& spec,
                    const std::string& path) {
  if (spec.rfind("last", 0) == 0) {
    std::size_t back = 0;
    try {
      back = spec.size() > 4 ? std::stoul(spec.substr(5)) : 0;
    } catch (...) {  // beyond any count of runs
      back = listing.size();
    }
    if (back >= listing.size())
      throw RunSetError("run '" + spec + "': the database holds " + std::to_string(listing.size()) +
                        " runs");
    return listing[listing.size() - 1 - back].id;
  }
  std::int64_t id = 0;
  try {
    id = std::stoll(spec);
  } catch (...) {
    throw RunSetError("run '" + spec + "': no such run id");
  }
  for (const auto& r : listing)
    if (r.id == id) return id;
  throw RunSetError("no run " + spec + " in '" + path + "' ('mpiscope runs' lists them)");
}

// Why a filter chose nothing: the first of its conditions no run meets alone (with the labels
// there are: a mistyped label is the commonest case), else that none meets them all together.
std::string why_none(const RunFilter& f, db::ResultsDb& database,
                     const std::vector<db::RunListing>& listing) {
  // A filter of one condition: `set` fills it in.
  auto none_alone = [&](auto set) {
    RunFilter one;
    set(one);
    return one.select(database, listing).empty();
  };
  for (const auto& label : f.labels)
    if (none_alone([&](RunFilter& one) { one.labels = {label}; })) {
      std::set<std::string> labels;
      for (const auto& r : listing)
        if (!r.label.empty()) labels.insert(r.label);
      std::string known;
      for (const auto& l : labels) known += (known.empty() ? "'" : ", '") + l + "'";
      return "no run is labelled '" + label + "' (" +
             (known.empty() ? "no run has a label" : "labels: " + known) + ")";
    }
  for (const auto& suite : f.suites)
    if (none_alone([&](RunFilter& one) { one.suites = {suite}; }))
      return "no run is of suite " + suite;
  for (const auto& b : f.benchmarks)
    if (none_alone([&](RunFilter& one) { one.benchmarks = {b}; }))
      return "no run holds a table of " + b;
  for (const auto& mpi : f.mpis)
    if (none_alone([&](RunFilter& one) { one.mpis = {mpi}; }))
      return "no run's MPI library or version contains '" + mpi + "'";
  if (!f.since.empty() && none_alone([&](RunFilter& one) { one.since = f.since; }))
    return "no run was made on or after " + f.since;
  if (!f.until.empty() && none_alone([&](RunFilter& one) { one.until = f.until; }))
    return "no run was made on or before " + f.until;
  return "each of its conditions is met by some run, but no run meets them all";
}

}  // namespace

bool RunFilter::empty() const {
  return suites.empty() && labels.empty() && benchmarks.empty() && mpis.empty() && since.empty() &&
         until.empty();
}

// Dates compare as text, "2026-11-23 12:00" against "2026-11-23" or "2026-11-23T12:00".
bool RunFilter::matches(const db::RunListing& r, const std::string& date,
                        const std::set<std::int64_t>& with_benchmark) const {
  auto any = [](const std::vector<std::string>& wanted, auto&& test) {
    return wanted.empty() || std::any_of(wanted.begin(), wanted.end(), test);
  };
  if (!any(suites,
           [&](const std::string& s) { return r.suite == s || r.suite.rfind(s + "-", 0) == 0; }))
    return false;
  if (!any(labels, [&](const std::string& l) { return r.label == l; })) return false;
  if (!any(mpis, [&](const std::string& m) {
        return contains_any_case(r.mpi_library, m) || contains_any_case(r.mpi_version, m);
      }))
    return false;
  if (!benchmarks.empty() && !with_benchmark.count(r.id)) return false;
  std::string from = since, to = until;
  if (from.size() > 10) from[10] = ' ';
  if (to.size() > 10) to[10] = ' ';
  if (!since.empty() && date.compare(0, from.size(), from) < 0) return false;
  return until.empty() || date.compare(0, to.size(), to) <= 0;
}

void RunFilter::check(const std::string& before, const std::string& after,
                      const std::vector<db::RunListing>& listing) const {
  if (!since.empty()) check_day(before + "since" + after, since);
  if (!until.empty()) check_day(before + "until" + after, until);
  for (const auto& s : suites) check_suite(before + "suite" + after, s, listing);
}

std::vector<std::int64_t> RunFilter::select(db::ResultsDb& database,
                                            const std::vector<db::RunListing>& listing) const {
  std::set<std::int64_t> with_benchmark;
  for (const auto& b : benchmarks)
    for (const auto id : database.runs_holding(b)) with_benchmark.insert(id);
  std::vector<std::int64_t> ids;
  for (const auto& r : listing)
    if (matches(r, run_date(r), with_benchmark)) ids.push_back(r.id);
  return ids;
}

std::string run_date(const db::RunListing& r) {
  return run_date_text(r.date_iso, r.date, r.recorded_at);
}

// strptime alone takes 2024-02-30.
void check_day(const std::string& option, const std::string& day) {
  const std::string usage = option + " takes YYYY-MM-DD or YYYY-MM-DDTHH:MM, got '" + day + "'";
  std::tm t{};
  const char* end = strptime(day.c_str(), day.size() > 10 ? "%Y-%m-%dT%H:%M" : "%Y-%m-%d", &t);
  if (day.empty() || !end || *end != '\0') throw RunSetError(usage);
  std::tm normalised = t;
  normalised.tm_isdst = 0;
  timegm(&normalised);  // rolls 30 February over into March
  if (normalised.tm_mday != t.tm_mday || normalised.tm_mon != t.tm_mon)
    throw RunSetError(option + " '" + day + "': no such day");
}

void check_suite(const std::string& option, const std::string& suite,
                 const std::vector<db::RunListing>& runs) {
  static const std::set<std::string> commands = {"import", "runs",    "export",  "label",  "delete",
                                                 "report", "summary", "compare", "history"};
  std::set<std::string> known = {"imb"};
  for (const auto& entry : cli::registered_suites())
    if (!commands.count(entry.name)) known.insert(entry.name);
  for (const auto& r : runs) known.insert(r.suite);
  if (known.count(suite)) return;
  for (const auto& k : known)
    if (suite.rfind(k + "-", 0) == 0 && suite.size() > k.size() + 1) return;
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  throw RunSetError(option + " '" + suite + "': no such suite (known: " + list + ")");
}

std::int64_t resolve_run(db::ResultsDb& database, const std::string& spec) {
  if (!is_run_reference(spec))
    throw RunSetError("run '" + spec +
                      "': use a run id ('mpiscope runs' lists them), last or last-N");
  return run_at(database.list_runs(), spec, database.path());
}

std::vector<std::int64_t> select_runs(db::ResultsDb& database, const std::vector<std::string>& sets,
                                      const std::string& what) {
  const auto listing = database.list_runs();
  std::vector<std::int64_t> ids;
  std::set<std::int64_t> named, taken;
  for (const auto& set : sets) {
    std::vector<std::pair<std::string, std::int64_t>> by_id;  // term, run
    RunFilter filter;
    for (const auto& term : terms_of(set, what)) {
      if (is_run_reference(term)) {
        by_id.emplace_back(term, run_at(listing, term, database.path()));
        continue;
      }
      const auto eq = term.find('=');
      if (eq == std::string::npos) {  // a bare word is a label: `compare baseline candidate`
        filter.labels.push_back(term);
        continue;
      }
      const std::string key = term.substr(0, eq), value = term.substr(eq + 1);
      if (value.empty()) throw RunSetError(what + " '" + set + "': '" + key + "=' needs a value");
      if (key == "label") {
        filter.labels.push_back(value);
      } else if (key == "suite") {
        filter.suites.push_back(value);
      } else if (key == "benchmark") {
        filter.benchmarks.push_back(value);
      } else if (key == "mpi") {
        filter.mpis.push_back(value);
      } else if (key == "since" || key == "until") {
        auto& day = key == "since" ? filter.since : filter.until;
        if (!day.empty()) throw RunSetError(what + " '" + set + "': " + key + "= is given twice");
        day = value;
      } else {
        throw RunSetError(what + " '" + set + "': unknown key '" + key +
                          "' (runs are chosen by id, last-N, a label, or label=, suite=, "
                          "benchmark=, mpi=, since=, until=)");
      }
    }
    if (!by_id.empty() && !filter.empty())
      throw RunSetError(what + " '" + set +
                        "': name runs by id or choose them by label and filters, not both in "
                        "one set");
    for (const auto& [term, id] : by_id) {
      if (!named.insert(id).second)
        throw RunSetError("run " + std::to_string(id) + " is given twice ('" + term +
                          "'); name each run once");
      if (taken.insert(id).second) ids.push_back(id);
    }
    if (filter.empty()) continue;
    filter.check("", "=", listing);
    const auto chosen = filter.select(database, listing);
    if (chosen.empty())
      throw RunSetError(what + " '" + set + "' chooses no run in '" + database.path() +
                        "': " + why_none(filter, database, listing));
    for (const auto id : chosen)
      if (taken.insert(id).second) ids.push_back(id);
  }
  return ids;
}

}  // namespace mpiscope::report
