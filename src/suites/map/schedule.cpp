#include "suites/map/schedule.hpp"

namespace mpiscope::map {

int round_count(int ranks) {
  if (ranks < 2) return 0;
  return ranks % 2 == 0 ? ranks - 1 : ranks;
}

int partner(int rank, int round, int ranks) {
  // Circle method over n = ranks rounded up to even: rank n-1 stays put and meets `round`; the
  // others meet the rank that sums with them to 2·round modulo n-1 (odd, so the partner is
  // unique and differs from the rank except for rank == round). With an odd number of ranks,
  // n-1 is a phantom and whoever would meet it sits out.
  const int n = ranks % 2 == 0 ? ranks : ranks + 1;
  const int m = n - 1;
  int other = 0;
  if (rank == n - 1)
    other = round;
  else if (rank == round)
    other = n - 1;
  else
    other = ((2 * round - rank) % m + m) % m;
  return other < ranks ? other : -1;
}

std::vector<int> round_order(int ranks, int sweep, int sweeps) {
  const int rounds = round_count(ranks);
  const int shift =
      sweeps > 0 ? static_cast<int>(static_cast<long long>(sweep) * rounds / sweeps) : 0;
  std::vector<int> order(static_cast<std::size_t>(rounds));
  for (int i = 0; i < rounds; ++i) order[static_cast<std::size_t>(i)] = (i + shift) % rounds;
  return order;
}

}  // namespace mpiscope::map
