// OSU's point-to-point benchmarks (c/mpi/pt2pt/standard in OSU 7.4) as engine kernels: one
// repetition is one of OSU's iterations. The windowed ones run the windowed Isend/Irecv kernel
// shared with current IMB's Uniband and Biband (imb/mpi1/windowed.hpp) with OSU's parameters:
// windows of ctx.in_flight messages to and from one buffer each, as OSU's default single-buffer
// mode does (-b multiple: X bytes of its own for every message), and OSU's one-byte reply through
// the message buffers.
#include <algorithm>
#include <array>
#include <vector>

#include "suites/imb/mpi1/benchmarks.hpp"
#include "suites/imb/mpi1/windowed.hpp"
#include "suites/osu/osu.hpp"

namespace mpiscope::osu {
namespace {
using core::ExpectedBlock;
using core::PointContext;
using imb::mpi1::WindowAcknowledgement;
using imb::mpi1::WindowedTransfer;

constexpr int kWindowTag = 100, kReplyTag = 101;  // OSU's tags

// osu_bw and osu_mbw_mr: the sender posts a window of Isends and waits for them, then for the
// receiver's one-byte reply, which says the whole window has arrived.
constexpr WindowedTransfer kToPartner{.acknowledgement = WindowAcknowledgement::kBufferByte,
                                      .data_tag = kWindowTag,
                                      .ack_tag = kReplyTag};
// osu_bibw: both ranks post a window of Irecvs, then a window of Isends, and wait for the sends,
// then the receives; no reply.
constexpr WindowedTransfer kBothWays{
    .both_ways = true, .sends_completed_first = true, .data_tag = kWindowTag};

// The first half of the ranks is paired with the second; with an odd count the last rank is
// left out by the layout.
int partner(const PointContext& c) {
  return imb::mpi1::window_partner(c);
}

// osu_multi_lat: every pair ping-pongs at once.
void pair_ping_pong(PointContext& c, int i) {
  const int other = partner(c);
  if (imb::mpi1::in_first_half(c)) {
    MPI_Send(c.send(i), c.count, c.datatype, other, 1, c.comm);
    MPI_Recv(c.recv(i), c.count, c.datatype, other, 1, c.comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(c.recv(i), c.count, c.datatype, other, 1, c.comm, MPI_STATUS_IGNORE);
    MPI_Send(c.send(i), c.count, c.datatype, other, 1, c.comm);
  }
}

// osu_latency_persistent: the same ping-pong through persistent requests made once per size on
// the one buffer of each direction (MPI_Send_init, MPI_Recv_init); an iteration starts and
// completes the send, then the receive (rank 1 the other way round), as OSU 7.4's.
void persistent_ping_pong(PointContext& c, int) {
  MPI_Request* send = &c.persistent[0];
  MPI_Request* recv = &c.persistent[1];
  for (MPI_Request* r : c.rank == 0 ? std::array{send, recv} : std::array{recv, send}) {
    MPI_Start(r);
    MPI_Wait(r, MPI_STATUS_IGNORE);
  }
}
void make_persistent_requests(PointContext& c) {
  const int other = 1 - c.rank;
  c.persistent.assign(2, MPI_REQUEST_NULL);
  MPI_Send_init(c.send(0), c.count, c.datatype, other, 1, c.comm, &c.persistent[0]);
  MPI_Recv_init(c.recv(0), c.count, c.datatype, other, 1, c.comm, &c.persistent[1]);
}
void free_persistent_requests(PointContext& c) {
  for (auto& r : c.persistent)
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  c.persistent.clear();
}

// osu_bw_persistent and osu_bibw_persistent: a window of persistent requests made once per size
// on the one buffer of each direction, started together and completed together each iteration,
// as OSU 7.4's: osu_bw's rank 0 sends (tag 100) and rank 1 receives, then rank 1's one byte
// says the window arrived (tag 101); osu_bibw's ranks both receive (from 0 tag 100, from 1 tag
// 101) and send, starting the receives first and completing the sends first.
// PointContext::persistent holds the window's sends, then its receives.
template <WindowedTransfer W>
void make_window_requests(PointContext& c) {
  const int other = 1 - c.rank, window = c.in_flight;
  c.persistent.assign(2 * static_cast<std::size_t>(window), MPI_REQUEST_NULL);
  MPI_Request* sends = c.persistent.data();
  MPI_Request* receives = sends + window;
  for (int k = 0; k < window; ++k) {
    if (W.both_ways || c.rank == 0)
      MPI_Send_init(imb::mpi1::message_at<W>(c.send(0), c, k), c.count, c.datatype, other,
                    kWindowTag + c.rank, c.comm, &sends[k]);
    if (W.both_ways || c.rank == 1)
      MPI_Recv_init(imb::mpi1::message_at<W>(c.recv(0), c, k), c.count, c.datatype, other,
                    kWindowTag + other, c.comm, &receives[k]);
  }
}
template <bool BothWays>
void persistent_window(PointContext& c, int) {
  const int window = c.in_flight;
  MPI_Request* sends = c.persistent.data();
  MPI_Request* receives = sends + window;
  if constexpr (BothWays) {
    MPI_Startall(window, receives);
    MPI_Startall(window, sends);
    MPI_Waitall(window, sends, MPI_STATUSES_IGNORE);
    MPI_Waitall(window, receives, MPI_STATUSES_IGNORE);
  } else {
    MPI_Request* mine = c.rank == 0 ? sends : receives;
    MPI_Startall(window, mine);
    MPI_Waitall(window, mine, MPI_STATUSES_IGNORE);
    if (c.rank == 0)
      MPI_Recv(c.recv(0), 1, MPI_CHAR, 1, kReplyTag, c.comm, MPI_STATUS_IGNORE);
    else
      MPI_Send(c.send(0), 1, MPI_CHAR, 0, kReplyTag, c.comm);
  }
}

// -c: both ends hold their partner's pattern.
std::vector<ExpectedBlock> from_partner(const PointContext& c, int) {
  return {{0, partner(c), 0, c.bytes}};
}

// A windowed program on W, or with -b multiple on W with a buffer per message.
template <WindowedTransfer W>
core::Benchmark windowed_on(std::string name, bool buffer_per_message) {
  using imb::mpi1::with_buffer_per_message;
  return buffer_per_message
             ? imb::mpi1::windowed_benchmark<with_buffer_per_message(W)>(std::move(name))
             : imb::mpi1::windowed_benchmark<W>(std::move(name));
}
template <WindowedTransfer W>
void persistent_on(core::Benchmark& b) {
  b.kernel = core::kernel<persistent_window<W.both_ways>>();
  b.setup = make_window_requests<W>;
}
}  // namespace

core::Benchmark in_family(core::Benchmark b, core::Family family) {
  b.family = family;
  b.timer_reads = core::TimerReads::EachRepetition;
  b.timed_rank = [](const PointContext& c) { return imb::mpi1::in_first_half(c); };
  return b;
}

core::Benchmark windowed_bandwidth(bool buffer_per_message) {
  return in_family(windowed_on<kToPartner>("osu_bw", buffer_per_message),
                   core::Family::SingleTransfer);
}

core::Benchmark windowed_bibandwidth(bool buffer_per_message) {
  return in_family(windowed_on<kBothWays>("osu_bibw", buffer_per_message),
                   core::Family::SingleTransfer);
}

core::Benchmark persistent_windowed_bandwidth(bool both_ways, bool buffer_per_message) {
  using imb::mpi1::with_buffer_per_message;
  core::Benchmark b =
      both_ways ? windowed_bibandwidth(buffer_per_message) : windowed_bandwidth(buffer_per_message);
  b.name = both_ways ? "osu_bibw_persistent" : "osu_bw_persistent";
  if (both_ways)
    buffer_per_message ? persistent_on<with_buffer_per_message(kBothWays)>(b)
                       : persistent_on<kBothWays>(b);
  else
    buffer_per_message ? persistent_on<with_buffer_per_message(kToPartner)>(b)
                       : persistent_on<kToPartner>(b);
  b.release = free_persistent_requests;
  return b;
}

core::Benchmark multi_pair_bandwidth(bool buffer_per_message) {
  core::Benchmark b = in_family(windowed_on<kToPartner>("osu_mbw_mr", buffer_per_message),
                                core::Family::ParallelTransfer);
  b.barrier_between_repetitions = true;  // OSU: a barrier before each iteration
  b.throughput_from_mean = true;         // OSU: the senders' mean time
  return b;
}

core::Benchmark multi_pair_latency() {
  core::Benchmark b = in_family({}, core::Family::ParallelTransfer);
  b.name = "osu_multi_lat";
  b.shape = [](std::size_t x, int, int) { return core::BufferShape{x, x}; };
  b.kernel = core::kernel<pair_ping_pong>();
  b.expected = from_partner;
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
  core::Benchmark b = in_family(*it, core::Family::SingleTransfer);
  b.name = "osu_latency";
  b.turnover = 0;
  return b;
}

core::Benchmark persistent_ping_pong_latency() {
  core::Benchmark b = ping_pong_latency();
  b.name = "osu_latency_persistent";
  b.kernel = core::kernel<persistent_ping_pong>();
  b.setup = make_persistent_requests;
  b.release = free_persistent_requests;
  return b;
}

}  // namespace mpiscope::osu
