// OSU's point-to-point benchmarks (c/mpi/pt2pt/standard in OSU 7.4) as engine kernels: one
// repetition is one of OSU's iterations. Windows of ctx.in_flight messages go to and from one
// buffer each, as OSU's default single-buffer mode does.
#include <algorithm>
#include <vector>

#include "suites/imb/mpi1/benchmarks.hpp"
#include "suites/osu/osu.hpp"

namespace mpiscope::osu {
namespace {
using core::ExpectedBlock;
using core::PointContext;

constexpr int kWindowTag = 100, kReplyTag = 101;  // OSU's tags

// Request handles of the current window; sized before timing, so the kernels allocate nothing.
std::vector<MPI_Request>& requests() {
  static std::vector<MPI_Request> r;
  return r;
}
void size_requests(PointContext& c) {
  requests().resize(2 * static_cast<std::size_t>(std::max(1, c.in_flight)));
}

// The first half of the ranks send, the second half receive; with an odd count the last rank
// is left out by the layout.
int pairs(const PointContext& c) {
  return c.nprocs / 2;
}
bool sends(const PointContext& c) {
  return c.rank < pairs(c);
}
int partner(const PointContext& c) {
  return sends(c) ? c.rank + pairs(c) : c.rank - pairs(c);
}

// osu_bw and osu_mbw_mr: the sender posts a window of Isends and waits for them, then for the
// receiver's one-byte reply, which says the whole window has arrived.
void window_to_partner(PointContext& c, int i) {
  MPI_Request* r = requests().data();
  const int other = partner(c);
  if (sends(c)) {
    for (int j = 0; j < c.in_flight; ++j)
      MPI_Isend(c.send(i), c.count, MPI_BYTE, other, kWindowTag, c.comm, &r[j]);
    MPI_Waitall(c.in_flight, r, MPI_STATUSES_IGNORE);
    MPI_Recv(c.recv(i), 1, MPI_BYTE, other, kReplyTag, c.comm, MPI_STATUS_IGNORE);
  } else {
    for (int j = 0; j < c.in_flight; ++j)
      MPI_Irecv(c.recv(i), c.count, MPI_BYTE, other, kWindowTag, c.comm, &r[j]);
    MPI_Waitall(c.in_flight, r, MPI_STATUSES_IGNORE);
    MPI_Send(c.send(i), 1, MPI_BYTE, other, kReplyTag, c.comm);
  }
}

// osu_bibw: both ranks post a window of Irecvs, then a window of Isends, and wait for both.
void windows_both_ways(PointContext& c, int i) {
  MPI_Request* r = requests().data();
  const int other = 1 - c.rank;
  for (int j = 0; j < c.in_flight; ++j)
    MPI_Irecv(c.recv(i), c.count, MPI_BYTE, other, kWindowTag, c.comm, &r[c.in_flight + j]);
  for (int j = 0; j < c.in_flight; ++j)
    MPI_Isend(c.send(i), c.count, MPI_BYTE, other, kWindowTag, c.comm, &r[j]);
  MPI_Waitall(c.in_flight, r, MPI_STATUSES_IGNORE);
  MPI_Waitall(c.in_flight, r + c.in_flight, MPI_STATUSES_IGNORE);
}

// osu_multi_lat: every pair ping-pongs at once.
void pair_ping_pong(PointContext& c, int i) {
  const int other = partner(c);
  if (sends(c)) {
    MPI_Send(c.send(i), c.count, MPI_BYTE, other, 1, c.comm);
    MPI_Recv(c.recv(i), c.count, MPI_BYTE, other, 1, c.comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(c.recv(i), c.count, MPI_BYTE, other, 1, c.comm, MPI_STATUS_IGNORE);
    MPI_Send(c.send(i), c.count, MPI_BYTE, other, 1, c.comm);
  }
}

// -c: the receivers hold their partner's pattern (a sender's receive buffer holds the reply).
std::vector<ExpectedBlock> at_receiver(const PointContext& c, int) {
  if (sends(c)) return {};
  return {{0, partner(c), 0, c.bytes}};
}
std::vector<ExpectedBlock> from_partner(const PointContext& c, int) {
  return {{0, partner(c), 0, c.bytes}};
}

core::Benchmark point_to_point(const char* name, core::Family family, core::Kernel kernel) {
  core::Benchmark b;
  b.name = name;
  b.family = family;
  b.shape = [](std::size_t x, int, int) { return core::BufferShape{x, x}; };
  b.kernel = kernel;
  b.setup = size_requests;
  b.expected = from_partner;
  return b;
}
}  // namespace

core::Benchmark windowed_bandwidth() {
  core::Benchmark b =
      point_to_point("osu_bw", core::Family::SingleTransfer, core::kernel<window_to_partner>());
  b.expected = at_receiver;
  return b;
}

core::Benchmark windowed_bibandwidth() {
  return point_to_point("osu_bibw", core::Family::SingleTransfer,
                        core::kernel<windows_both_ways>());
}

core::Benchmark multi_pair_bandwidth() {
  core::Benchmark b = point_to_point("osu_mbw_mr", core::Family::ParallelTransfer,
                                     core::kernel<window_to_partner>());
  b.expected = at_receiver;
  b.barrier_between_repetitions = true;  // OSU: a barrier before each iteration
  b.throughput_from_mean = true;         // OSU: the senders' mean time
  return b;
}

core::Benchmark multi_pair_latency() {
  core::Benchmark b = point_to_point("osu_multi_lat", core::Family::ParallelTransfer,
                                     core::kernel<pair_ping_pong>());
  b.barrier_between_repetitions = true;
  b.time_factor = 0.5;
  return b;
}

// The same MPI_Send/MPI_Recv ping-pong as IMB's PingPong: its kernel, renamed, without IMB's
// throughput column.
core::Benchmark ping_pong_latency() {
  const auto& imb = imb::mpi1::all_benchmarks();
  auto it =
      std::find_if(imb.begin(), imb.end(), [](const auto& b) { return b.name == "PingPong"; });
  core::Benchmark b = *it;
  b.name = "osu_latency";
  b.turnover = 0;
  return b;
}

}  // namespace mpiscope::osu
