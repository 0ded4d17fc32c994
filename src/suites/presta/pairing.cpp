#include "suites/presta/pairing.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace mpiscope::presta {

int paired_size(const Pairing& p) {
  return p.world_size - p.world_size % 2;
}

std::string pairing_error(const Pairing& p) {
  const int n = paired_size(p);
  const int t = p.procs_per_smp;
  if (n < 2) return "PRESTA's pair tests need at least 2 processes";
  if (t < 0) return "-t (processes per SMP) must be positive";
  if (p.allocation == Allocation::kCyclic) {
    if (t == 0) return "cyclic allocation (-p c) needs the processes per SMP (-t)";
    if (n <= 2 * t)
      return "cyclic allocation (-p c) needs more than 2 x " + std::to_string(t) +
             " processes (more than two SMPs); " + std::to_string(n) + " can be paired";
  }
  if (p.nearest && t == 0) return "nearby-rank partnering (-r) needs the processes per SMP (-t)";
  if ((p.nearest || p.allocation == Allocation::kCyclic) && n % (2 * t) != 0)
    return std::to_string(n) + " processes are not a whole number of SMP pairs of " +
           std::to_string(t) + " processes each (needed by " + (p.nearest ? "-r" : "-p c") + ")";
  return "";
}

bool cyclic_in_effect(const Pairing& p) {
  return p.allocation == Allocation::kCyclic && p.procs_per_smp > 0 &&
         paired_size(p) > 2 * p.procs_per_smp;
}

int partner(int rank, const Pairing& p) {
  const int n = paired_size(p);
  const int t = p.procs_per_smp;
  if (p.nearest && t > 0) return rank % (2 * t) >= t ? rank - t : rank + t;
  return (rank + n / 2) % n;
}

RankPair pair_at(int index, const Pairing& p) {
  const int n = paired_size(p);
  const int t = p.procs_per_smp;
  int first = index;
  if (cyclic_in_effect(p)) {
    // Walk the SMPs of the lower half (or, with -r, the lower SMP of every SMP pair), taking the
    // next unused rank of each in turn.
    const int stride = p.nearest ? 2 * t : t;
    const int span = p.nearest ? n : n / 2;
    const int k = index * stride;
    first = k % span + k / span;
  } else if (p.nearest && t > 0) {
    first = index + index / t * t;  // skip the upper SMP of each pair
  }
  return {first, partner(first, p)};
}

std::vector<RankPair> active_pairs(int processes, const Pairing& p) {
  std::vector<RankPair> pairs;
  for (int i = 0; i < processes / 2; ++i) pairs.push_back(pair_at(i, p));
  return pairs;
}

std::vector<int> active_ranks(int processes, const Pairing& p) {
  std::vector<int> ranks;
  for (const auto& [a, b] : active_pairs(processes, p)) {
    ranks.push_back(a);
    ranks.push_back(b);
  }
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

std::vector<int> default_process_counts(const Pairing& p) {
  const int n = paired_size(p);
  const int t = p.procs_per_smp;
  int first = 2, step = 2;
  if (cyclic_in_effect(p)) {
    first = step = n / t;  // one process on every SMP, then one more on each
  } else if (t > 0) {
    first = step = 2 * t;  // two SMPs' worth, then two SMPs more
  }
  std::vector<int> counts;
  for (int c = std::min(first, n); c <= n; c += step) counts.push_back(c);
  if (counts.back() != n) counts.push_back(n);
  return counts;
}

std::vector<int> parse_process_counts(const std::string& text, const std::string& file_name,
                                      const Pairing& p) {
  const int n = paired_size(p);
  std::vector<int> counts;
  std::istringstream in(text);
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    const auto begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos || line[begin] == '#') continue;
    const auto end = line.find_last_not_of(" \t\r") + 1;
    const std::string word = line.substr(begin, end - begin);
    const std::string where = file_name + ":" + std::to_string(line_number) + ": ";
    long long value = 0;
    const auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (ec != std::errc() || ptr != word.data() + word.size())
      throw UsageError(where + "'" + word + "' is not a process count");
    if (value < 2 || value % 2 != 0)
      throw UsageError(where + "process count " + word + " is not an even number of at least 2");
    if (value > n)
      throw UsageError(where + "process count " + word + " exceeds the " + std::to_string(n) +
                       " processes that can be paired");
    counts.push_back(static_cast<int>(value));
  }
  if (counts.empty()) throw UsageError(file_name + " contains no process count");
  return counts;
}

std::vector<long long> message_sizes(long long start, long long stop, long long factor) {
  std::vector<long long> sizes;
  for (long long s = start; s <= stop; s = s == 0 ? 1 : s * factor) sizes.push_back(s);
  return sizes;
}

}  // namespace mpiscope::presta
