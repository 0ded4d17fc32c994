// The choice per length (tune.hpp) and Open MPI's rules file that applies it.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <utility>

#include "core/convergence.hpp"
#include "core/text.hpp"
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
constexpr std::pair<const char*, int> kOpenMpiCollectiveIds[] = {
    {"Allgather", 0}, {"Allreduce", 2}, {"Alltoall", 3},        {"Barrier", 6},  {"Bcast", 7},
    {"Gather", 9},    {"Reduce", 11},   {"Reduce_scatter", 12}, {"Scatter", 15},
};
int open_mpi_collective_id(const std::string& collective) {
  for (const auto& [name, id] : kOpenMpiCollectiveIds)
    if (collective == name) return id;
  return -1;
}
std::string open_mpi_collective_name(int id) {
  for (const auto& [name, known] : kOpenMpiCollectiveIds)
    if (id == known) return name;
  return "collective";
}

// A rules file as Open MPI reads it: for each collective id, for each communicator size (the
// rule of the largest size not above a communicator's applies), its rows of four numbers (from
// bytes, algorithm, fan-in/out, segment size).
using Row = std::array<long, 4>;
using OpenMpiRules = std::map<int, std::map<long, std::vector<Row>>>;

// The numbers of a rules file in order, comments (from '#' to the end of a line) left out.
std::vector<long> numbers_of(const std::string& text) {
  std::vector<long> out;
  for (const auto& line : core::split(text, '\n')) {
    auto code = line.substr(0, line.find('#'));
    std::replace(code.begin(), code.end(), '\t', ' ');
    for (const auto& word : core::split(code, ' ')) {
      const auto w = core::trim(word);
      if (w.empty()) continue;
      char* end = nullptr;
      const long value = std::strtol(w.c_str(), &end, 10);
      if (end != w.c_str() + w.size()) throw std::runtime_error("'" + w + "' is not a number");
      out.push_back(value);
    }
  }
  return out;
}

OpenMpiRules parse_rules(const std::string& text) {
  const auto n = numbers_of(text);
  std::size_t at = 0;
  const auto next = [&](long low, long high, const char* what) {
    if (at >= n.size()) throw std::runtime_error(std::string("it ends before ") + what);
    const long v = n[at++];
    if (v < low || v > high)
      throw std::runtime_error(fmt::format("{} {} is out of range", what, v));
    return v;
  };
  OpenMpiRules rules;
  const long collectives = next(0, 1000, "the number of collectives");
  for (long c = 0; c < collectives; ++c) {
    auto& sizes = rules[static_cast<int>(next(0, 1000, "a collective id"))];
    const long count = next(0, 1 << 20, "the number of communicator sizes");
    for (long k = 0; k < count; ++k) {
      auto& rows = sizes[next(1, 1L << 30, "a communicator size")];
      const long row_count = next(0, 1 << 20, "the number of rows");
      for (long r = 0; r < row_count; ++r)
        rows.push_back({next(0, 1L << 62, "a message size"), next(0, 1000, "an algorithm"),
                        next(0, 1L << 30, "a fan-in/out"), next(0, 1L << 62, "a segment size")});
    }
  }
  if (at != n.size()) throw std::runtime_error("numbers follow its last collective");
  return rules;
}

bool keeps_the_library_decision(const std::vector<Row>& rows) {
  return std::all_of(rows.begin(), rows.end(), [](const Row& r) { return r[1] == 0; });
}
}  // namespace

std::string open_mpi_rules_problem(const std::string& text) {
  try {
    parse_rules(text);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::string open_mpi_rules_file(const std::vector<TunedCollective>& tuned, int processes,
                                const std::string& merged_into) {
  OpenMpiRules rules = merged_into.empty() ? OpenMpiRules{} : parse_rules(merged_into);
  bool any = false;
  for (const auto& t : tuned) {
    const int id = open_mpi_collective_id(t.variable.collective);
    if (id < 0) continue;
    const bool changed = std::any_of(t.choices.begin(), t.choices.end(),
                                     [](const LengthChoice& c) { return c.changed; });
    // A collective without a change is written only to replace an earlier tuning of this size.
    if (!changed && !rules.count(id)) continue;
    any |= changed;
    // The first row from 0 bytes, as the reader demands.
    std::vector<Row> rows;
    for (const auto& [from, algorithm] : length_rows<long>(
             t.choices,
             [&](std::size_t bytes) {
               return open_mpi_rule_bytes(t.variable.collective, bytes, processes);
             },
             [](const LengthChoice& c) { return c.changed ? long{c.fastest.value} : 0L; }))
      rows.push_back({static_cast<long>(from), algorithm, 0, 0});
    // The measured size gets the rows; sizes below and above that no earlier tuning covers keep
    // the library's own decision (algorithm zero).
    auto& sizes = rules[id];
    sizes[processes] = rows;
    if (sizes.begin()->first == processes) sizes[1] = {{0, 0, 0, 0}};
    sizes.try_emplace(processes + 1, std::vector<Row>{{0, 0, 0, 0}});
  }
  // Nothing new and nothing to replace: no file.
  if (!any && merged_into.empty()) return "";
  // The reader takes every number outside a comment: no digit in a comment.
  std::string out = fmt::format("{} # collectives: written by mpiscope tune\n", rules.size());
  for (const auto& [id, sizes] : rules) {
    out += fmt::format("{} # {}\n{} # communicator sizes\n", id, open_mpi_collective_name(id),
                       sizes.size());
    for (const auto& [size, rows] : sizes) {
      const char* what = size == processes                   ? "communicators of the measured size"
                         : !keeps_the_library_decision(rows) ? "communicators tuned before"
                         : size == sizes.begin()->first
                             ? "communicators this small keep the library's decision"
                             : "larger communicators keep the library's decision";
      out += fmt::format("{} # {}\n{}\n", size, what, rows.size());
      for (const auto& r : rows) out += fmt::format("{} {} {} {}\n", r[0], r[1], r[2], r[3]);
    }
  }
  return out;
}

}  // namespace mpiscope::tune
