// IMB-P2P (current IMB's src_c/P2P, 2021.11): eight point-to-point patterns on every process at
// once, each kernel one repetition of MPI_BYTE messages, with IMB-P2P's cache-line touches of
// the send buffer before a send and of the receive buffer after a receive (-msgwr, -msgrd).
// IMB-P2P prints, from the time T each of the P ranks' loops of n repetitions took and the M
// messages they moved: t[usec] = ΣT / M, Mbytes/sec = M·X / max T and Msg/sec = M / max T. A
// repetition moves M / n = P messages here (PingPong P/2, Birandom 2P, the stencils 4P and 6P),
// so the time factor (P / (M / n)) makes the row's t_avg IMB-P2P's t and one message per process
// per factored time its rates: turnover 1 per process (PingPong 1/2).
#include "suites/imb/p2p/benchmarks.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <numeric>

namespace mpiscope::imb::p2p {
namespace {
using core::ExpectedBlock;
using core::PointContext;
using Blocks = std::vector<ExpectedBlock>;

constexpr std::size_t kCacheLine = 64;

// IMB-P2P's touches: one byte per cache line written before a send, read after a receive into a
// running value the compiler cannot drop. Intel's writes a running count; this one stores the
// byte back (a volatile load and store: the same dirty line, which a partial store reads in
// anyway), so that the message still carries the rank's pattern for -check.
thread_local std::size_t touched = 0;
template <bool Write>
void touch_send(std::byte* buffer, std::size_t bytes) {
  if constexpr (Write) {
    volatile std::byte* line = buffer;
    for (std::size_t i = 0; i < bytes; i += kCacheLine) line[i] = line[i];
  }
}
template <bool Read>
void touch_recv(const std::byte* buffer, std::size_t bytes) {
  if constexpr (Read)
    for (std::size_t i = 0; i < bytes; i += kCacheLine)
      touched += static_cast<std::size_t>(buffer[i]);
}

// IMB-P2P's generator (get_next_random), restarted at each loop's first repetition as IMB
// restarts it for the warm-up and for the timed loop; -check replays it on a copy of its own.
struct Generator {
  std::uint64_t seed = 0;
  std::uint32_t next() {
    seed = seed * 7560690468208412377ull + 4343336064253945357ull;
    return static_cast<std::uint32_t>(seed >> 24);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint32_t>(n)); }
};
thread_local Generator generator;

// Unirandom's and Birandom's pair k of a repetition: from the first to the second rank.
std::pair<int, int> random_pair(Generator& g, int nprocs) {
  const int from = g.below(nprocs);
  int to = from;
  while (to == from) to = g.below(nprocs);
  return {from, to};
}

// Corandom's ring of a repetition: the last one's with P random swaps.
void shuffle_ring(Generator& g, std::vector<int>& ring) {
  const int n = static_cast<int>(ring.size());
  for (int k = 0; k < n; ++k)
    std::swap(ring[static_cast<std::size_t>(k)], ring[static_cast<std::size_t>(g.below(n))]);
}

int half_partner(const PointContext& c) {
  return (c.rank + c.nprocs / 2) % c.nprocs;
}

template <bool W, bool R>
void ping_pong(PointContext& c, int) {
  const int other = half_partner(c);
  if (c.rank < c.nprocs / 2) {
    touch_send<W>(c.send(0), c.bytes);
    MPI_Send(c.send(0), c.count, MPI_BYTE, other, 0, c.comm);
    MPI_Recv(c.recv(0), c.count, MPI_BYTE, other, 0, c.comm, MPI_STATUS_IGNORE);
    touch_recv<R>(c.recv(0), c.bytes);
  } else {
    MPI_Recv(c.recv(0), c.count, MPI_BYTE, other, 0, c.comm, MPI_STATUS_IGNORE);
    touch_recv<R>(c.recv(0), c.bytes);
    touch_send<W>(c.send(0), c.bytes);
    MPI_Send(c.send(0), c.count, MPI_BYTE, other, 0, c.comm);
  }
}

template <bool W, bool R>
void ping_ping(PointContext& c, int) {
  const int other = half_partner(c);
  MPI_Request request = MPI_REQUEST_NULL;
  touch_send<W>(c.send(0), c.bytes);
  MPI_Isend(c.send(0), c.count, MPI_BYTE, other, 0, c.comm, &request);
  MPI_Recv(c.recv(0), c.count, MPI_BYTE, other, 0, c.comm, MPI_STATUS_IGNORE);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  touch_recv<R>(c.recv(0), c.bytes);
}

// To the right neighbour and from the left, in place, in the receive buffer (-check puts the
// rank's pattern there first).
template <bool W, bool R>
void sendrecv_replace(PointContext& c, int) {
  touch_send<W>(c.recv(0), c.bytes);
  MPI_Sendrecv_replace(c.recv(0), c.count, MPI_BYTE, c.right(), 0, c.left(), 0, c.comm,
                       MPI_STATUS_IGNORE);
  touch_recv<R>(c.recv(0), c.bytes);
}

// The stencils: every neighbour's message in X bytes of its own, send k from k·X, receive k
// into k·X; all receives posted, then all sends, one MPI_Waitall.
template <bool W, bool R>
void stencil(PointContext& c, int) {
  const auto& neighbours = c.neighbours[static_cast<std::size_t>(c.rank)].sources;
  const std::size_t n = neighbours.size();
  std::array<MPI_Request, 12> requests{};
  for (std::size_t k = 0; k < n; ++k) touch_send<W>(c.send(0) + k * c.bytes, c.bytes);
  for (std::size_t k = 0; k < n; ++k)
    MPI_Irecv(c.recv(0) + k * c.bytes, c.count, MPI_BYTE, neighbours[k], 0, c.comm, &requests[k]);
  for (std::size_t k = 0; k < n; ++k)
    MPI_Isend(c.send(0) + k * c.bytes, c.count, MPI_BYTE, neighbours[k], 0, c.comm,
              &requests[n + k]);
  MPI_Waitall(static_cast<int>(2 * n), requests.data(), MPI_STATUSES_IGNORE);
  for (std::size_t k = 0; k < n; ++k) touch_recv<R>(c.recv(0) + k * c.bytes, c.bytes);
}

// One repetition of Unirandom and Birandom: P random pairs in turn (IMB's P iterations), each a
// message from the first to the second (Birandom: both ways, each an MPI_Irecv, MPI_Send and
// MPI_Wait).
template <bool W, bool R, bool BothWays>
void random_pairs(PointContext& c, int i) {
  if (i == 0) generator = {};
  for (int k = 0; k < c.nprocs; ++k) {
    const auto [from, to] = random_pair(generator, c.nprocs);
    if (c.rank != from && c.rank != to) continue;
    const int other = c.rank == from ? to : from;
    if constexpr (BothWays) {
      MPI_Request request = MPI_REQUEST_NULL;
      MPI_Irecv(c.recv(0), c.count, MPI_BYTE, other, 0, c.comm, &request);
      touch_send<W>(c.send(0), c.bytes);
      MPI_Send(c.send(0), c.count, MPI_BYTE, other, 0, c.comm);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      touch_recv<R>(c.recv(0), c.bytes);
    } else if (c.rank == from) {
      touch_send<W>(c.send(0), c.bytes);
      MPI_Send(c.send(0), c.count, MPI_BYTE, other, 0, c.comm);
    } else {
      MPI_Recv(c.recv(0), c.count, MPI_BYTE, other, 0, c.comm, MPI_STATUS_IGNORE);
      touch_recv<R>(c.recv(0), c.bytes);
    }
  }
}

// Corandom: every repetition the ring of all ranks is shuffled (P random swaps), and each rank
// receives from its left neighbour in the ring while it sends to its right.
thread_local std::vector<int> ring;
template <bool W, bool R>
void random_ring(PointContext& c, int i) {
  const auto n = static_cast<std::size_t>(c.nprocs);
  if (i == 0) {
    generator = {};
    ring.resize(n);
    std::iota(ring.begin(), ring.end(), 0);
  }
  shuffle_ring(generator, ring);
  std::size_t at = 0;
  while (ring[at] != c.rank) ++at;
  const int from = ring[(at + n - 1) % n], to = ring[(at + 1) % n];
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Irecv(c.recv(0), c.count, MPI_BYTE, from, 0, c.comm, &request);
  touch_send<W>(c.send(0), c.bytes);
  MPI_Send(c.send(0), c.count, MPI_BYTE, to, 0, c.comm);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  touch_recv<R>(c.recv(0), c.bytes);
}

// The kernel of `K` with the touches the run asks for.
template <template <bool, bool> class K>
core::Kernel touching(const Definition& d) {
  if (d.write && d.read) return core::kernel<K<true, true>::run>();
  if (d.write) return core::kernel<K<true, false>::run>();
  if (d.read) return core::kernel<K<false, true>::run>();
  return core::kernel<K<false, false>::run>();
}
template <bool W, bool R>
struct PingPong {
  static void run(PointContext& c, int i) { ping_pong<W, R>(c, i); }
};
template <bool W, bool R>
struct PingPing {
  static void run(PointContext& c, int i) { ping_ping<W, R>(c, i); }
};
template <bool W, bool R>
struct SendRecvReplace {
  static void run(PointContext& c, int i) { sendrecv_replace<W, R>(c, i); }
};
template <bool W, bool R>
struct Stencil {
  static void run(PointContext& c, int i) { stencil<W, R>(c, i); }
};
template <bool W, bool R>
struct Unirandom {
  static void run(PointContext& c, int i) { random_pairs<W, R, false>(c, i); }
};
template <bool W, bool R>
struct Birandom {
  static void run(PointContext& c, int i) { random_pairs<W, R, true>(c, i); }
};
template <bool W, bool R>
struct Corandom {
  static void run(PointContext& c, int i) { random_ring<W, R>(c, i); }
};

// -check (one repetition, the first, after the timed loop; mpiscope's, Intel's IMB-P2P has
// none): what the receive buffer holds then, as the senders' patterns.
Blocks from_half_partner(const PointContext& c, int) {
  return {{0, half_partner(c), 0, c.bytes}};
}
Blocks from_left(const PointContext& c, int) {
  return {{0, c.left(), 0, c.bytes}};
}
// Unirandom: the last of the first repetition's pairs that sends to this rank, if any.
Blocks from_last_random_sender(const PointContext& c, int) {
  Generator g;
  int source = -1;
  for (int k = 0; k < c.nprocs; ++k)
    if (const auto [from, to] = random_pair(g, c.nprocs); to == c.rank) source = from;
  if (source < 0) return {};
  return {{0, source, 0, c.bytes}};
}
// Birandom: the other rank of the last pair this rank is in.
Blocks from_last_random_partner(const PointContext& c, int) {
  Generator g;
  int source = -1;
  for (int k = 0; k < c.nprocs; ++k) {
    const auto [from, to] = random_pair(g, c.nprocs);
    if (c.rank == from || c.rank == to) source = c.rank == from ? to : from;
  }
  if (source < 0) return {};
  return {{0, source, 0, c.bytes}};
}
// Corandom: the left neighbour in the first repetition's ring.
Blocks from_ring_left(const PointContext& c, int) {
  Generator g;
  std::vector<int> order(static_cast<std::size_t>(c.nprocs));
  std::iota(order.begin(), order.end(), 0);
  shuffle_ring(g, order);
  const auto at =
      static_cast<std::size_t>(std::find(order.begin(), order.end(), c.rank) - order.begin());
  return {{0, order[(at + order.size() - 1) % order.size()], 0, c.bytes}};
}

core::Benchmark pattern(std::string name, core::Kernel kernel, double time_factor, double turnover,
                        bool per_process) {
  core::Benchmark b;
  b.name = std::move(name);
  b.family = core::Family::ParallelTransfer;
  b.kernel = kernel;
  b.shape = [](std::size_t x, int, int) { return core::BufferShape{x, x}; };
  b.time_factor = time_factor;
  b.turnover = turnover;
  b.turnover_per_process = per_process;
  b.message_rate = true;
  b.time_per_message = true;
  return b;
}

// IMB-P2P's grid of `dims` dimensions for P processes (its Stencil2D and Stencil3D): the most
// even sides of at least 2 whose product is P; empty when there is none.
std::vector<int> grid_of(int p, int dims) {
  if (dims == 2) {
    int x = 2, y = 2;
    while (x * y < p) ++x, ++y;
    if (x * y > p) {
      while (y > 1 && p % y != 0) --y;
      x = p / y;
    }
    if (x < 2 || y < 2 || x * y != p) return {};
    return {x, y};
  }
  // Intel's search: z down from the cube's side to a divisor, x and y the most even split of the
  // rest, kept only when y is at least z.
  int x = 2, y = 2, z = 2;
  while (x * y * z < p) ++x, ++y, ++z;
  while (x * y * z > p) {
    --z;
    while (z > 1 && p % z != 0) --z;
    const int rest = z != 0 ? p / z : 0;
    int lx = 2, ly = 2;
    while (lx * ly < rest) ++lx, ++ly;
    if (lx * ly > rest) {
      while (ly > 1 && rest % ly != 0) --ly;
      lx = rest / ly;
    }
    if (ly >= z) x = lx, y = ly;
  }
  if (x < 2 || y < 2 || z < 2 || x * y * z != p) return {};
  return {x, y, z};
}

// A rank's neighbours on the grid of `dims` dimensions, in IMB's order (x − 1, x + 1, y − 1,
// y + 1, z − 1, z + 1, wrapping round).
std::vector<int> grid_neighbours(int rank, int nprocs, int dims) {
  const auto g = grid_of(nprocs, dims);
  const int lx = g[0], ly = g[1], lz = dims == 3 ? g[2] : 1;
  const int z = rank / (lx * ly), y = (rank % (lx * ly)) / lx, x = rank % lx;
  const auto at = [&](int i, int j, int k) {
    return lx * ly * ((k + lz) % lz) + lx * ((j + ly) % ly) + (i + lx) % lx;
  };
  std::vector<int> around = {at(x - 1, y, z), at(x + 1, y, z), at(x, y - 1, z), at(x, y + 1, z)};
  if (dims == 3) around.insert(around.end(), {at(x, y, z - 1), at(x, y, z + 1)});
  return around;
}

// The stencils' set-up: this rank's neighbours as PointContext::neighbours' sources of this rank.
template <int Dims>
void find_neighbours(PointContext& c) {
  c.neighbours.assign(static_cast<std::size_t>(c.nprocs), {});
  c.neighbours[static_cast<std::size_t>(c.rank)].sources = grid_neighbours(c.rank, c.nprocs, Dims);
}

// -check of a stencil: receive k holds a block of neighbour r's send buffer. Between two ranks
// messages match in the order they were posted (one tag), so the j-th receive this rank posts
// for r gets the j-th block r sends it: r's block m, r's j-th neighbour entry that is this rank
// (on a side of 2 both directions name one rank).
template <int Dims>
Blocks from_each_neighbour(const PointContext& c, int) {
  Blocks blocks;
  const auto& sources = c.neighbours[static_cast<std::size_t>(c.rank)].sources;
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const int r = sources[k];
    const auto nth =
        std::count(sources.begin(), sources.begin() + static_cast<std::ptrdiff_t>(k), r);
    const auto theirs = grid_neighbours(r, c.nprocs, Dims);
    std::size_t m = 0;
    for (long seen = -1; m < theirs.size(); ++m)
      if (theirs[m] == c.rank && ++seen == nth) break;
    blocks.push_back({k * c.bytes, r, m * c.bytes, c.bytes});
  }
  return blocks;
}

// SendRecv_Replace's check starts from the rank's own pattern in the buffer it replaces.
void own_pattern_in_place(PointContext& c, int) {
  std::memcpy(c.recv(0), c.send(0), c.bytes);
}
}  // namespace

std::vector<std::string> benchmark_names() {
  return {"PingPong", "PingPing",  "Unirandom", "Birandom",
          "Corandom", "Stencil2D", "Stencil3D", "SendRecv_Replace"};
}

std::vector<core::Benchmark> benchmarks(const Definition& d, int processes) {
  auto ping_pong_b = pattern("PingPong", touching<PingPong>(d), 0.5, 0.5, true);
  ping_pong_b.pairs = true;
  ping_pong_b.expected = from_half_partner;
  auto ping_ping_b = pattern("PingPing", touching<PingPing>(d), 1, 1, true);
  ping_ping_b.pairs = true;
  ping_ping_b.expected = from_half_partner;
  std::vector<core::Benchmark> list = {
      ping_pong_b,
      ping_ping_b,
      pattern("Unirandom", touching<Unirandom>(d), 1, 1, true),
      pattern("Birandom", touching<Birandom>(d), 0.5, 1, true),
      pattern("Corandom", touching<Corandom>(d), 1, 1, true),
  };
  list[2].expected = from_last_random_sender;
  list[3].expected = from_last_random_partner;
  list[4].expected = from_ring_left;
  for (const int dims : {2, 3}) {
    auto b =
        pattern(dims == 2 ? "Stencil2D" : "Stencil3D", touching<Stencil>(d), 0.5 / dims, 1, true);
    const auto grid = grid_of(processes, dims);
    // Valid on the world's count only, when it makes a grid (else IMB's "invalid" line).
    b.fixed_processes = grid.empty() ? processes + 1 : processes;
    std::string shape;
    for (auto it = grid.rbegin(); it != grid.rend(); ++it)
      shape += (shape.empty() ? "" : " x ") + std::to_string(*it);
    if (!grid.empty()) b.parameters["grid"] = shape;
    b.setup = dims == 2 ? find_neighbours<2> : find_neighbours<3>;
    b.expected = dims == 2 ? from_each_neighbour<2> : from_each_neighbour<3>;
    const auto sides = static_cast<std::size_t>(2 * dims);
    b.shape = sides == 4 ? [](std::size_t x, int, int) { return core::BufferShape{4 * x, 4 * x}; }
                         : [](std::size_t x, int, int) {
                             return core::BufferShape{6 * x, 6 * x};
                           };
    list.push_back(b);
  }
  auto replace = pattern("SendRecv_Replace", touching<SendRecvReplace>(d), 1, 1, true);
  replace.expected = from_left;
  replace.prepare_check = own_pattern_in_place;
  list.push_back(replace);
  // Every benchmark runs on all processes or not at all (IMB's "invalid" line): the pairs on an
  // even count, the others on two or more, the stencils where the grid exists (above).
  for (auto& b : list) {
    if (b.fixed_processes > 0) continue;
    const bool valid = processes >= 2 && (!b.pairs || processes % 2 == 0);
    b.fixed_processes = valid ? processes : processes + 1;
    b.pairs = false;
  }
  return list;
}

std::optional<int> sends_per_rank(std::string_view pattern) {
  if (pattern == "PingPong" || pattern == "PingPing" || pattern == "SendRecv_Replace" ||
      pattern == "Corandom")
    return 1;
  if (pattern == "Stencil2D") return 4;
  if (pattern == "Stencil3D") return 6;
  return std::nullopt;
}

}  // namespace mpiscope::imb::p2p
