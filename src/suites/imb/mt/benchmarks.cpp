// IMB-MT (current IMB's src_cpp/MT/MT_benchmark.cpp): the benchmarks Intel's IMB-MT runs. Each
// thread of a process runs the whole benchmark at once with the others, on a communicator of its
// own (the engine's team, EngineSettings::threads); a kernel below is one repetition on one of
// them. Point-to-point pairs are rank r and r ± stride (-stride, half the processes by default);
// ranks left out of the last incomplete block of 2·stride neither send nor count, as in IMB.
// SendRecvMT and ExchangeMT run on a ring of distance stride. The collectives are IMB-MPI1's
// kernels, each repetition timed alone between barriers, as IMB-MT's SEPARATE_MEASURING.
#include "suites/imb/mt/benchmarks.hpp"

#include <algorithm>

#include "core/thread_team.hpp"
#include "suites/imb/mpi1/benchmarks.hpp"
#include "suites/imb/mpi1/windowed.hpp"

namespace mpiscope::imb::mt {
namespace {
using core::ExpectedBlock;
using core::PointContext;
using Blocks = std::vector<ExpectedBlock>;
using mpi1::in_first_half;
using mpi1::pair_stride;
using mpi1::window_partner;

// IMB's set_stride: false for the ranks of the last block of 2·stride when it is incomplete.
bool in_a_pair(const PointContext& c) {
  const int s = pair_stride(c), block = 2 * s;
  return !(c.rank / block == c.nprocs / block && c.nprocs % block != 0);
}
int ring_right(const PointContext& c) {
  return (c.rank + pair_stride(c)) % c.nprocs;
}
int ring_left(const PointContext& c) {
  return (c.rank - pair_stride(c) + c.nprocs) % c.nprocs;
}

// The set-up of every IMB-MT point-to-point benchmark.
void find_peers(PointContext& c) {
  c.peers.partner = in_a_pair(c) ? window_partner(c) : -1;
  c.peers.sends_first = in_first_half(c);
  c.peers.left = ring_left(c);
  c.peers.right = ring_right(c);
}

void ping_pong(PointContext& c, int i) {
  const int other = c.peers.partner;
  if (other < 0) return;
  if (c.peers.sends_first) {
    MPI_Send(c.send(i), c.count, c.datatype, other, 0, c.comm);
    MPI_Recv(c.recv(i), c.count, c.datatype, other, 0, c.comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(c.recv(i), c.count, c.datatype, other, 0, c.comm, MPI_STATUS_IGNORE);
    MPI_Send(c.send(i), c.count, c.datatype, other, 0, c.comm);
  }
}
void ping_ping(PointContext& c, int i) {
  const int other = c.peers.partner;
  if (other < 0) return;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Isend(c.send(i), c.count, c.datatype, other, 0, c.comm, &request);
  MPI_Recv(c.recv(i), c.count, c.datatype, other, 0, c.comm, MPI_STATUS_IGNORE);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
}
void send_recv(PointContext& c, int i) {
  MPI_Sendrecv(c.send(i), c.count, c.datatype, c.peers.right, 0, c.recv(i), c.count, c.datatype,
               c.peers.left, 0, c.comm, MPI_STATUS_IGNORE);
}
// To both neighbours, from the left into the first X bytes and from the right into the next.
void exchange(PointContext& c, int i) {
  MPI_Request requests[2];
  MPI_Isend(c.send(i), c.count, c.datatype, c.peers.left, 0, c.comm, &requests[0]);
  MPI_Isend(c.send(i), c.count, c.datatype, c.peers.right, 0, c.comm, &requests[1]);
  MPI_Recv(c.recv(i), c.count, c.datatype, c.peers.left, 0, c.comm, MPI_STATUS_IGNORE);
  MPI_Recv(c.recv(i) + c.bytes, c.count, c.datatype, c.peers.right, 0, c.comm, MPI_STATUS_IGNORE);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
}
// IMB-MT's windows acknowledge on the data's tag, 0.
constexpr mpi1::WindowedTransfer kUniBand{
    .acknowledgement = mpi1::WindowAcknowledgement::kOwnByte, .data_tag = 0, .ack_tag = 0};
constexpr mpi1::WindowedTransfer kBiBand{.both_ways = true,
                                         .acknowledgement = mpi1::WindowAcknowledgement::kOwnByte,
                                         .data_tag = 0,
                                         .ack_tag = 0};
template <mpi1::WindowedTransfer W>
void paired_window(PointContext& c, int i) {
  if (c.peers.partner >= 0) mpi1::windowed_transfer<W>(c, i);
}
// In a team every thread first meets the others, then enters its communicator's barrier.
void team_then_barrier(PointContext& c, int) {
  if (c.team != nullptr) c.team->meet();
  MPI_Barrier(c.comm);
}

Blocks from_partner(const PointContext& c, int) {
  if (!in_a_pair(c)) return {};
  return {{0, window_partner(c), 0, c.bytes}};
}
Blocks from_partner_if_receiving(const PointContext& c, int i) {
  return in_first_half(c) ? Blocks{} : from_partner(c, i);
}
Blocks from_ring_left(const PointContext& c, int) {
  return {{0, ring_left(c), 0, c.bytes}};
}
Blocks from_both_neighbours(const PointContext& c, int) {
  return {{0, ring_left(c), 0, c.bytes}, {c.bytes, ring_right(c), 0, c.bytes}};
}
bool times_itself(const PointContext& c) {
  return in_a_pair(c);
}

core::Benchmark point_to_point(std::string name, core::Kernel kernel,
                               Blocks (*expected)(const PointContext&, int), double turnover) {
  core::Benchmark b;
  b.name = std::move(name);
  b.family = core::Family::ParallelTransfer;
  b.kernel = kernel;
  b.shape = [](std::size_t x, int, int) { return core::BufferShape{x, x}; };
  b.expected = expected;
  b.turnover = turnover;
  b.setup = find_peers;
  return b;
}

// IMB-MT's UniBandMT and BiBandMT: the time of one message (the window's over its size, halved
// both ways), the bandwidth X·(pairs·threads) per t_max and the message rate pairs·threads per
// t_avg.
core::Benchmark windowed(std::string name, core::Kernel kernel, bool both_ways, int window) {
  core::Benchmark b =
      mpi1::windowed_benchmark(std::move(name), both_ways ? kBiBand : kUniBand, kernel);
  b.expected = both_ways ? from_partner : from_partner_if_receiving;
  b.family = core::Family::ParallelTransfer;
  b.turnover = 0.5;
  b.turnover_per_process = true;
  b.message_rate = true;
  b.time_per_message = true;
  b.message_rate_from_mean = true;
  b.time_factor = 1.0 / (both_ways ? 2.0 * window : window);
  b.window = window;
  b.setup = find_peers;
  return b;
}

const core::Benchmark& imb_mpi1(const std::string& name) {
  const auto& all = mpi1::all_benchmarks();
  return *std::find_if(all.begin(), all.end(),
                       [&](const core::Benchmark& b) { return b.name == name; });
}
}  // namespace

std::vector<std::string> benchmark_names() {
  return {"PingPongMT", "PingPingMT", "SendRecvMT", "ExchangeMT", "UniBandMT",
          "BiBandMT",   "BarrierMT",  "BcastMT",    "ReduceMT",   "AllReduceMT"};
}

std::vector<core::Benchmark> benchmarks(const Definition& d) {
  std::vector<core::Benchmark> list = {
      point_to_point("PingPongMT", core::kernel<ping_pong>(), from_partner, 1),
      point_to_point("PingPingMT", core::kernel<ping_ping>(), from_partner, 1),
      point_to_point("SendRecvMT", core::kernel<send_recv>(), from_ring_left, 2),
      point_to_point("ExchangeMT", core::kernel<exchange>(), from_both_neighbours, 4),
      windowed("UniBandMT", core::kernel<paired_window<kUniBand>>(), false, d.window),
      windowed("BiBandMT", core::kernel<paired_window<kBiBand>>(), true, d.window)};
  list[0].time_factor = 0.5;
  list[3].shape = [](std::size_t x, int, int) { return core::BufferShape{x, 2 * x}; };
  // Pairs need two processes (on an odd count all but the last run, as IMB leaves it idle).
  for (auto& b : list)
    if (b.name != "SendRecvMT" && b.name != "ExchangeMT") {
      b.timed_rank = times_itself;
      b.pairs = true;
    }
  core::Benchmark barrier;
  barrier.name = "BarrierMT";
  barrier.family = core::Family::Collective;
  barrier.sized = false;
  barrier.kernel = core::kernel<team_then_barrier>();
  barrier.shape = [](std::size_t, int, int) { return core::BufferShape{}; };
  list.push_back(barrier);
  for (const char* name : {"Bcast", "Reduce", "Allreduce"}) {
    core::Benchmark b = imb_mpi1(name);
    b.name = name == std::string("Allreduce") ? "AllReduceMT" : std::string(name) + "MT";
    b.barrier_between_repetitions = d.barrier_between_repetitions;
    list.push_back(b);
  }
  for (auto& b : list) {
    const bool sums = core::is_sum(b.datatype);
    if (b.sized)
      b.datatype = d.char_elements ? (sums ? core::Datatype::CharSum : core::Datatype::Char)
                                   : (sums ? core::Datatype::IntSum : core::Datatype::Int);
    b.unit = core::element_bytes(b.datatype);
    b.warm_up = true;
    b.rooted = false;  // IMB-MT's root is 0: one -check pass
    b.parameters["threads_per_process"] = std::to_string(d.threads);
    if (d.stride > 0 && b.family == core::Family::ParallelTransfer)
      b.parameters["stride"] = std::to_string(d.stride);
  }
  return list;
}

}  // namespace mpiscope::imb::mt
