#include "suites/beff/patterns.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace mpiscope::beff {

std::vector<int> standard_ring_sizes(int size) {
  const std::vector<int> wanted = {2, 4, 8, std::max(16, size / 4), std::max(32, size / 2), size};
  std::vector<int> out;
  for (int w : wanted) out.push_back(std::min(w, size));
  return out;
}

std::vector<int> ring_partition(int size, int standard) {
  if (size < 2 || standard < 2) throw std::invalid_argument("ring_partition: fewer than 2");
  // The +0.4 lets a remainder of up to 0.6 rings widen the rings rather than form a ring of its
  // own (with 4: 9 -> 4+5, 10 -> 5+5, 11 -> 4+4+3).
  const int rings =
      std::max(1, std::min(static_cast<int>(static_cast<double>(size) / standard + 0.4), size / 2));
  const int low = size / rings, high = low + 1;
  const int high_count = size - low * rings, low_count = rings - high_count;
  std::vector<int> out;
  // Even-sized rings first: the odd ring (if any) is the last one.
  const bool odd_low = low % 2 == 1 && high_count > 0;
  out.insert(out.end(), static_cast<std::size_t>(odd_low ? high_count : low_count),
             odd_low ? high : low);
  out.insert(out.end(), static_cast<std::size_t>(odd_low ? low_count : high_count),
             odd_low ? low : high);
  return out;
}

std::vector<int> ring_pattern_sizes(int size, int index) {
  const int standard = standard_ring_sizes(size).at(static_cast<std::size_t>(index));
  // Paper, sec. 4, second ring pattern: "If the number of processes is less or equal 7 then all
  // processes form one ring" (the general rule would split 7 into 4+3).
  if (index == 1 && size <= 7) return {size};
  return ring_partition(size, standard);
}

std::string describe_rings(const std::vector<int>& ring_sizes) {
  std::string out;
  for (std::size_t i = 0; i < ring_sizes.size();) {
    std::size_t j = i;
    while (j < ring_sizes.size() && ring_sizes[j] == ring_sizes[i]) ++j;
    out += (out.empty() ? "" : "+") + std::to_string(j - i) + "*" + std::to_string(ring_sizes[i]);
    i = j;
  }
  return out;
}

std::uint64_t SeededRandom::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t SeededRandom::below(std::uint64_t bound) {
  // Reject the top partial block of 2^64 so that every residue is equally likely.
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % bound + 1) % bound;
  for (;;) {
    const std::uint64_t x = next();
    if (x <= limit) return x % bound;
  }
}

std::vector<std::vector<int>> random_permutations(int size, std::uint64_t seed, int count) {
  SeededRandom rng(seed);
  std::vector<std::vector<int>> out;
  for (int k = 0; k < count; ++k) {
    std::vector<int> p(static_cast<std::size_t>(size));
    std::iota(p.begin(), p.end(), 0);
    for (int i = size - 1; i > 0; --i)
      std::swap(p[static_cast<std::size_t>(i)],
                p[rng.below(static_cast<std::uint64_t>(i) + 1)]);  // Fisher-Yates
    out.push_back(std::move(p));
  }
  return out;
}

namespace {
void factorisations(int n, int ndims, int largest, std::vector<int>& current,
                    std::vector<int>& best) {
  if (ndims == 1) {
    if (n > largest) return;
    current.push_back(n);
    const int spread = current.front() - current.back();
    if (best.empty() || spread < best.front() - best.back()) best = current;
    current.pop_back();
    return;
  }
  for (int f = std::min(n, largest); f >= 1; --f) {
    if (n % f != 0) continue;
    current.push_back(f);
    factorisations(n / f, ndims - 1, f, current, best);
    current.pop_back();
  }
}
}  // namespace

std::vector<int> balanced_dims(int n, int ndims) {
  std::vector<int> current, best;
  factorisations(n, ndims, n, current, best);
  return best;
}

CartesianGrid cartesian_grid(int size, int ndims) {
  for (int n = size; n >= 1; --n) {
    auto dims = balanced_dims(n, ndims);
    if (dims.back() > 1 || (n < 8 && n % 2 == 0) || n < 4) return {n, dims};
  }
  return {1, std::vector<int>(static_cast<std::size_t>(ndims), 1)};
}

const char* kind_name(PatternKind k) {
  switch (k) {
    case PatternKind::Ring:
      return "ring";
    case PatternKind::Random:
      return "random";
    default:
      return "analysis";
  }
}

int Pattern::messages() const {
  int n = 0;
  for (const auto& rank_steps : steps)
    for (const auto& s : rank_steps) n += s.dest != Step::kNone ? 1 : 0;
  return n;
}

int Pattern::max_steps() const {
  std::size_t n = 0;
  for (const auto& rank_steps : steps) n = std::max(n, rank_steps.size());
  return static_cast<int>(n);
}

namespace {
// A step to a destination the rank already sends to in this pattern is dropped: one
// MPI_Alltoallv carries one message per pair, and every method runs the same messages.
void add_step(std::vector<Step>& steps, Step s) {
  if (s.dest != Step::kNone &&
      std::any_of(steps.begin(), steps.end(), [&](const Step& t) { return t.dest == s.dest; }))
    return;
  steps.push_back(s);
}
}  // namespace

Pattern ring_pattern(int size, const std::vector<int>& order, const std::vector<int>& ring_sizes) {
  Pattern p;
  p.steps.resize(static_cast<std::size_t>(size));
  int first = 0;
  for (int ring : ring_sizes) {
    for (int i = 0; i < ring; ++i) {
      const int me = order[static_cast<std::size_t>(first + i)];
      const int right = order[static_cast<std::size_t>(first + (i + 1) % ring)];
      const int left = order[static_cast<std::size_t>(first + (i + ring - 1) % ring)];
      auto& steps = p.steps[static_cast<std::size_t>(me)];
      add_step(steps, {right, left});  // to the right, from the left
      add_step(steps, {left, right});  // and back
    }
    first += ring;
  }
  return p;
}

Pattern pairs_pattern(int size, const std::vector<std::pair<int, int>>& pairs) {
  Pattern p;
  p.steps.resize(static_cast<std::size_t>(size));
  for (const auto& [a, b] : pairs) {
    p.steps[static_cast<std::size_t>(a)] = {{b, Step::kNone}, {Step::kNone, b}};
    p.steps[static_cast<std::size_t>(b)] = {{Step::kNone, a}, {a, Step::kNone}};
  }
  return p;
}

Pattern cartesian_pattern(int size, const CartesianGrid& grid, int direction) {
  Pattern p;
  p.steps.resize(static_cast<std::size_t>(size));
  const int nd = static_cast<int>(grid.dims.size());
  for (int r = 0; r < grid.processes; ++r) {
    std::vector<int> coords(static_cast<std::size_t>(nd));
    for (int d = nd - 1, rest = r; d >= 0; --d) {
      coords[static_cast<std::size_t>(d)] = rest % grid.dims[static_cast<std::size_t>(d)];
      rest /= grid.dims[static_cast<std::size_t>(d)];
    }
    auto rank_of = [&](std::vector<int> c) {
      int rank = 0;
      for (int d = 0; d < nd; ++d)
        rank = rank * grid.dims[static_cast<std::size_t>(d)] + c[static_cast<std::size_t>(d)];
      return rank;
    };
    for (int d = 0; d < nd; ++d) {
      const int extent = grid.dims[static_cast<std::size_t>(d)];
      if (extent < 2 || (direction >= 0 && d != direction)) continue;
      auto up = coords, down = coords;
      up[static_cast<std::size_t>(d)] = (coords[static_cast<std::size_t>(d)] + 1) % extent;
      down[static_cast<std::size_t>(d)] =
          (coords[static_cast<std::size_t>(d)] + extent - 1) % extent;
      auto& steps = p.steps[static_cast<std::size_t>(r)];
      add_step(steps, {rank_of(up), rank_of(down)});
      add_step(steps, {rank_of(down), rank_of(up)});
    }
  }
  return p;
}

std::vector<Pattern> all_patterns(int size, std::uint64_t seed, int random_count) {
  std::vector<Pattern> out;
  std::vector<int> identity(static_cast<std::size_t>(size));
  std::iota(identity.begin(), identity.end(), 0);
  const auto standards = standard_ring_sizes(size);
  for (int i = 0; i < 6; ++i) {
    const auto rings = ring_pattern_sizes(size, i);
    Pattern p = ring_pattern(size, identity, rings);
    p.name = "ring-" + std::to_string(i + 1);
    p.kind = PatternKind::Ring;
    p.description = "standard size " + std::to_string(standards[static_cast<std::size_t>(i)]) +
                    ": rings " + describe_rings(rings);
    out.push_back(std::move(p));
  }
  const auto perms = random_permutations(size, seed, random_count);
  for (int k = 0; k < random_count; ++k) {
    const auto& order = perms[static_cast<std::size_t>(k)];
    Pattern p = ring_pattern(size, order, {size});
    p.name = "random-" + std::to_string(k + 1);
    p.kind = PatternKind::Random;
    p.description = "ring over order";
    for (int r : order) p.description += " " + std::to_string(r);
    out.push_back(std::move(p));
  }
  // Analysis patterns: reported, not averaged into b_eff.
  {
    std::vector<int> order;  // 0, n-1, 1, n-2, …: every neighbour as far away as possible
    for (int i = 0; i < size; ++i) order.push_back(i % 2 == 0 ? i / 2 : size - 1 - i / 2);
    Pattern p = ring_pattern(size, order, {size});
    p.name = "worst-cycle";
    p.description = "ring over order";
    for (int r : order) p.description += " " + std::to_string(r);
    out.push_back(std::move(p));
  }
  {
    std::vector<std::pair<int, int>> best, worst;
    const int even = size / 2 * 2;
    for (int i = 0; i < even; i += 2) best.emplace_back(i, i + 1);
    for (int i = 0; i < even / 2; ++i) worst.emplace_back(i, even - 1 - i);
    Pattern b = pairs_pattern(size, best);
    b.name = "best-bisection";
    b.description = "pairs (2i, 2i+1)";
    out.push_back(std::move(b));
    Pattern w = pairs_pattern(size, worst);
    w.name = "worst-bisection";
    w.description = "pairs (i, " + std::to_string(even - 1) + "-i)";
    out.push_back(std::move(w));
  }
  for (int nd = 2; nd <= 3; ++nd) {
    const CartesianGrid grid = cartesian_grid(size, nd);
    std::string dims;
    for (int d : grid.dims) dims += (dims.empty() ? "" : "x") + std::to_string(d);
    // Each direction, then all of them together (b_eff.c's order); a direction of extent 1
    // has no neighbours and no pattern.
    for (int d = 0; d <= nd; ++d) {
      const int direction = d < nd ? d : -1;
      if (direction >= 0 && grid.dims[static_cast<std::size_t>(direction)] < 2) continue;
      Pattern p = cartesian_pattern(size, grid, direction);
      p.name = "cart-" + std::to_string(nd) + "d-" +
               (direction < 0 ? std::string("all") : std::string(1, static_cast<char>('x' + d)));
      p.description =
          "periodic " + dims + " grid over ranks 0.." + std::to_string(grid.processes - 1);
      out.push_back(std::move(p));
    }
  }
  {
    Pattern p = pairs_pattern(size, {{0, 1}});
    p.name = "ping-pong";
    p.description = "ranks 0 and 1";
    p.sendrecv_only = true;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace mpiscope::beff
