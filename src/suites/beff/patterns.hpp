// b_eff's communication patterns as pure functions of the number of processes (paper, sec. 4):
// the six ring partitions, the rings over random permutations, and the analysis patterns that
// are reported but not averaged. Nothing here calls MPI, so every rule has a unit test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mpiscope::beff {

// ---- Ring partitions --------------------------------------------------------------------------

// The standard ring sizes of the six ring patterns for `size` processes: 2, 4, 8,
// min(max(16, size/4), size), min(max(32, size/2), size), size (each at most size).
std::vector<int> standard_ring_sizes(int size);

// Splits `size` processes (in rank order) into rings near `standard` processes (b_eff.c,
// ring_numbers.c): floor(size/standard + 0.4) rings, at least 1 and at most size/2, whose sizes
// differ by at most one; even-sized rings come first, so that an odd leftover is last.
std::vector<int> ring_partition(int size, int standard);

// The partition of ring pattern `index` (0..5) for `size` processes, with the paper's one
// exception to the rule above: the second pattern is one ring when size <= 7.
std::vector<int> ring_pattern_sizes(int size, int index);

// "2*4+1*3": how many rings of each size, in order.
std::string describe_rings(const std::vector<int>& ring_sizes);

// ---- Random permutations ----------------------------------------------------------------------

// A uniform integer in [0, bound) from a 64-bit generator, by rejection (no modulo bias, and the
// same numbers with every standard library, unlike std::uniform_int_distribution).
class SeededRandom {
 public:
  explicit SeededRandom(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();  // SplitMix64
  std::uint64_t below(std::uint64_t bound);

 private:
  std::uint64_t state_;
};

// `count` permutations of 0..size-1 by Fisher-Yates shuffles from one generator seeded with
// `seed`: the same seed gives the same permutations everywhere.
std::vector<std::vector<int>> random_permutations(int size, std::uint64_t seed, int count);

// ---- Cartesian partitions ---------------------------------------------------------------------

// Balanced factorisation of n into `ndims` non-increasing factors whose largest/smallest spread
// is minimal (what MPI_Dims_create computes, here without MPI so that it can be tested).
std::vector<int> balanced_dims(int n, int ndims);

// b_eff's choice of processes for the d-dimensional patterns: the largest n <= size whose
// balanced factorisation has no factor 1, or which is even and below 8, or is below 4.
struct CartesianGrid {
  int processes = 0;  // ranks 0..processes-1 take part
  std::vector<int> dims;
};
CartesianGrid cartesian_grid(int size, int ndims);

// ---- Patterns ---------------------------------------------------------------------------------

// One transfer step of one rank: send L bytes to `dest` and receive L bytes from `source` (either
// may be kNone). Steps are numbered; a message of step s is matched by step s at its receiver.
struct Step {
  static constexpr int kNone = -1;
  int dest = kNone;
  int source = kNone;
};

enum class PatternKind { Ring, Random, Analysis };
const char* kind_name(PatternKind k);

struct Pattern {
  std::string name;  // "ring-1", "random-3", "best-bisection", "cart-2d-x", …
  PatternKind kind = PatternKind::Analysis;
  std::string description;               // ring sizes, process order, grid: what defines it
  std::vector<std::vector<Step>> steps;  // steps[rank]: that rank's steps, in order
  bool sendrecv_only = false;            // ping-pong: measured with MPI_Sendrecv alone
  // Messages sent by all ranks together in one iteration of the pattern.
  int messages() const;
  int max_steps() const;
  bool participates(int rank) const { return !steps[static_cast<std::size_t>(rank)].empty(); }
};

// A ring over `order` (world ranks) split into rings of the given sizes: each process sends to
// its right neighbour and receives from its left one, then sends back to the left and receives
// from the right. In a ring of two both neighbours are the same process, which gets one message
// per iteration (b_eff.c drops this "pong": MPI_Alltoallv can carry one message per pair).
Pattern ring_pattern(int size, const std::vector<int>& order, const std::vector<int>& ring_sizes);

// Pairs (a, b): a sends to b, then b sends back to a (ping-pong between every pair at once).
Pattern pairs_pattern(int size, const std::vector<std::pair<int, int>>& pairs);

// Periodic d-dimensional grid over ranks 0..grid.processes-1 (row-major, last dimension fastest):
// ping-pong with the neighbours in direction `direction`, or in every direction (-1).
Pattern cartesian_pattern(int size, const CartesianGrid& grid, int direction);

// Every pattern of a run, in measuring order: the 6 ring patterns, `random_count` random rings,
// then the analysis patterns (worst-case cycle, best and worst bisection, 2-D and 3-D Cartesian
// per direction and together, ping-pong between ranks 0 and 1).
std::vector<Pattern> all_patterns(int size, std::uint64_t seed, int random_count);

}  // namespace mpiscope::beff
