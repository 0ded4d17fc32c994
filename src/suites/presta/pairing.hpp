// PRESTA's process pairing (README "Participating Processes and Allocation"): which ranks talk to
// which, and how many take part in each step. Pure functions, so that the README's hand-worked
// examples are unit tests (tests/unit/presta_pairing_test.cpp).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli/frontend.hpp"

namespace mpiscope::presta {

// Bad command-line input: the front end reports it once from rank 0 and exits 2.
using UsageError = cli::UsageError;

enum class Allocation { kBlock, kCyclic };  // -p b | -p c

struct Pairing {
  int world_size = 0;
  int procs_per_smp = 0;  // -t; 0 when not given
  Allocation allocation = Allocation::kBlock;
  bool nearest = false;  // -r: partner with the nearest rank on the next SMP
};

using RankPair = std::pair<int, int>;  // (lower-index member, its partner)

// Ranks that can be paired: an odd world leaves its last rank idle.
int paired_size(const Pairing& p);
// Empty when the combination of -t, -p and -r can pair this world; otherwise why not.
std::string pairing_error(const Pairing& p);
// True when -p c changes anything (PRESTA falls back to block unless there are more than two
// SMPs' worth of processes; mpiscope rejects that case instead, see pairing_error).
bool cyclic_in_effect(const Pairing& p);

// The partner of `rank`: (rank + n/2) % n by default; with -r the rank ppn away on the
// neighbouring SMP of an SMP pair.
int partner(int rank, const Pairing& p);
// The index-th pair in allocation order (block: by rank; cyclic: one per SMP in turn).
RankPair pair_at(int index, const Pairing& p);
// The pairs active when `processes` (even) processes take part.
std::vector<RankPair> active_pairs(int processes, const Pairing& p);
// The active ranks of that step, ascending (the order of the per-rank times in the results).
std::vector<int> active_ranks(int processes, const Pairing& p);

// Process counts of the steps without -f: one pair more each step; with -t in block allocation
// two more SMPs each step starting from 2 x ppn (configuration 3); in cyclic allocation one more
// process per SMP each step (configuration 4).
std::vector<int> default_process_counts(const Pairing& p);
// A -f file: one count per line; blank lines and lines starting with '#' are skipped. Every count
// must be even, at least 2 and at most paired_size (UsageError naming file:line otherwise).
std::vector<int> parse_process_counts(const std::string& text, const std::string& file_name,
                                      const Pairing& p);

// Message sizes of com and rma: start, start x factor, … while <= stop (0 is followed by 1).
std::vector<long long> message_sizes(long long start, long long stop, long long factor);

}  // namespace mpiscope::presta
