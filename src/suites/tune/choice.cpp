// The choice per length (tune.hpp) and Open MPI's rules file that applies it.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "core/convergence.hpp"
#include "suites/tune/tune.hpp"

namespace mpiscope::tune {

namespace {
// The intervals of one algorithm's rows over the rounds; empty when a round has none.
std::vector<core::MedianEstimate> estimates(const std::vector<const core::Measurement*>& rounds) {
  std::vector<core::MedianEstimate> out;
  for (const auto* m : rounds) {
    const auto e = m ? core::median_estimate(*m) : std::nullopt;
    if (!e) return {};
    out.push_back(*e);
  }
  return out;
}
double median_of(const std::vector<core::MedianEstimate>& rounds) {
  std::vector<double> medians;
  for (const auto& e : rounds) medians.push_back(e.median);
  std::sort(medians.begin(), medians.end());
  const std::size_t n = medians.size();
  return n % 2 ? medians[n / 2] : (medians[n / 2 - 1] + medians[n / 2]) / 2;
}
}  // namespace

std::optional<double> median_over_rounds(const std::vector<const core::Measurement*>& rounds) {
  const auto e = estimates(rounds);
  if (e.empty()) return std::nullopt;
  return median_of(e);
}

LengthChoice choose(const std::vector<Algorithm>& algorithms, const RoundRows& rows,
                    double tolerance) {
  LengthChoice c;
  if (rows.empty() || algorithms.size() != rows.size() || rows.front().empty()) {
    c.why = "not measured";
    return c;
  }
  for (const auto* m : rows.front())
    if (m) c.bytes = m->bytes;
  const auto library = estimates(rows.front());
  std::vector<core::MedianEstimate> best;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    auto e = estimates(rows[i]);
    if (e.size() == rows.front().size() && (best.empty() || median_of(e) < median_of(best))) {
      best = std::move(e);
      c.fastest = algorithms[i];
    }
  }
  if (library.empty()) {
    c.why = "the library's own choice has no 95 % interval of its median in some round";
    return c;
  }
  c.default_us = median_of(library);
  if (best.empty()) {
    c.why = "no other algorithm has a 95 % interval of its median in every round";
    return c;
  }
  c.fastest_us = median_of(best);
  if (c.fastest_us >= c.default_us) {
    c.why = "the library's own choice is the fastest";
    return c;
  }
  for (std::size_t r = 0; r < library.size(); ++r)
    if (!(best[r].high * (1 + tolerance) < library[r].low)) {
      c.why = fmt::format(
          "{} is not faster beyond the noise in round {} of {}: [{:.3g}, {:.3g}] against "
          "[{:.3g}, {:.3g}] us at +{:g} %",
          c.fastest.name, r + 1, library.size(), best[r].low, best[r].high, library[r].low,
          library[r].high, 100 * tolerance);
      return c;
    }
  c.changed = true;
  return c;
}

std::string algorithms_text(const AlgorithmVariable& v) {
  std::string text = v.variable + ":";
  for (std::size_t i = 0; i < v.algorithms.size(); ++i)
    text += fmt::format("{} {} {}", i ? "," : "", v.algorithms[i].value, v.algorithms[i].name);
  return text;
}

std::optional<AlgorithmVariable> parse_algorithms_text(const std::string& collective,
                                                       const std::string& text) {
  const auto colon = text.find(": ");
  if (colon == std::string::npos) return std::nullopt;
  AlgorithmVariable v{collective, text.substr(0, colon), {}};
  std::size_t at = colon + 2;
  while (at < text.size()) {
    const auto end = std::min(text.find(", ", at), text.size());
    const std::string item = text.substr(at, end - at);
    const auto space = item.find(' ');
    if (space == std::string::npos || space == 0) return std::nullopt;
    char* stop = nullptr;
    const long value = std::strtol(item.c_str(), &stop, 10);
    if (stop != item.c_str() + space) return std::nullopt;
    v.algorithms.push_back({static_cast<int>(value), item.substr(space + 1)});
    at = end + 2;
  }
  if (v.algorithms.empty()) return std::nullopt;
  return v;
}

std::size_t open_mpi_rule_bytes(const std::string& collective, std::size_t bytes, int processes) {
  // coll_tuned_decision_dynamic.c (Open MPI 4.1): the gathers, scatters and all-to-all compare
  // the datatype's size x count x the communicator's size; the others the size x count.
  for (const char* per_rank : {"Allgather", "Alltoall", "Gather", "Scatter"})
    if (collective == per_rank) return bytes * static_cast<std::size_t>(processes);
  return collective == "Barrier" ? 0 : bytes;
}

namespace {
// Open MPI 4.1's COLLTYPE (ompi/mca/coll/base/coll_base_functions.h): the file's collective ids.
// A file format's constant, not a choice of the library's: the test that has the library read a
// written file back checks them.
int open_mpi_collective_id(const std::string& collective) {
  static const std::pair<const char*, int> ids[] = {
      {"Allgather", 0}, {"Allreduce", 2}, {"Alltoall", 3},        {"Barrier", 6},  {"Bcast", 7},
      {"Gather", 9},    {"Reduce", 11},   {"Reduce_scatter", 12}, {"Scatter", 15},
  };
  for (const auto& [name, id] : ids)
    if (collective == name) return id;
  return -1;
}
}  // namespace

std::string open_mpi_rules_file(const std::vector<TunedCollective>& tuned, int processes) {
  std::vector<const TunedCollective*> with_change;
  for (const auto& t : tuned) {
    const bool any = std::any_of(t.choices.begin(), t.choices.end(),
                                 [](const LengthChoice& c) { return c.changed; });
    if (any && open_mpi_collective_id(t.variable.collective) >= 0) with_change.push_back(&t);
  }
  if (with_change.empty()) return "";
  // The reader takes the first number on a line and skips the rest: no digit in a comment.
  std::string out = fmt::format("{} # collectives: written by mpiscope tune\n", with_change.size());
  for (const auto* t : with_change) {
    // Rows from each measured length up, merged where the algorithm stays the same; the first
    // from 0 bytes, as the reader demands.
    std::vector<std::pair<std::size_t, int>> rows;
    for (const auto& c : t->choices) {
      const int algorithm = c.changed ? c.fastest.value : 0;
      const std::size_t from =
          rows.empty() ? 0 : open_mpi_rule_bytes(t->variable.collective, c.bytes, processes);
      if (rows.empty() || rows.back().second != algorithm) rows.emplace_back(from, algorithm);
    }
    out += fmt::format("{} # {}\n", open_mpi_collective_id(t->variable.collective),
                       t->variable.collective);
    // Communicator sizes: below, exactly and above the one measured; the others keep the
    // library's own decision (algorithm zero).
    out += "3 # communicator sizes\n";
    out += "1 # communicators this small keep the library's decision\n1\n0 0 0 0\n";
    out += fmt::format("{} # communicators of the measured size\n{}\n", processes, rows.size());
    for (const auto& [from, algorithm] : rows) out += fmt::format("{} {} 0 0\n", from, algorithm);
    out += fmt::format("{} # larger communicators keep the library's decision\n1\n0 0 0 0\n",
                       processes + 1);
  }
  return out;
}

}  // namespace mpiscope::tune
