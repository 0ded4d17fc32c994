// The order in which `mpiscope map` measures every pair of ranks: rounds of disjoint pairs (a
// perfect matching per round, the circle method of round-robin tournaments), so that all pairs
// of a round run at the same time and every pair meets exactly once per sweep.
#pragma once

#include <vector>

namespace mpiscope::map {

// Rounds per sweep: ranks - 1 when the number of ranks is even, ranks when it is odd (one rank
// sits out each round).
int round_count(int ranks);

// The rank that `rank` meets in `round` (0 <= round < round_count(ranks)), or -1 when it sits
// out. Symmetric: partner(partner(r)) == r.
int partner(int rank, int round, int ranks);

// The rounds of sweep `sweep` (0-based) of `sweeps`, in the order they run: each sweep starts at
// a different round, so that a pair is measured at a different time in every sweep.
std::vector<int> round_order(int ranks, int sweep, int sweeps);

}  // namespace mpiscope::map
