// Current IMB's windowed bandwidth benchmarks, Uniband and Biband (IMB 2019 and later): the first
// half of the processes is paired with the second (rank r with r + P/2). One repetition is a
// window of messages in flight (-window_size, current IMB's default 256), completed by one
// MPI_Waitall, and a one-byte acknowledgement from the second half, so that the next window
// starts only after the last one arrived. Not in IMB 3.1: they run only when named.
#include "suites/imb/mpi1/benchmarks.hpp"

namespace mpiscope::imb::mpi1 {
namespace {
using core::PointContext;

constexpr int kDataTag = 0, kAckTag = 1;

int partner(const PointContext& c) {
  const int half = c.nprocs / 2;
  return c.rank < half ? c.rank + half : c.rank - half;
}
bool first_half(const PointContext& c) {
  return c.rank < c.nprocs / 2;
}

// The acknowledgement that closes a window: the second half tells its partner it has everything.
void acknowledge(const PointContext& c) {
  char ack = 0;
  if (first_half(c))
    MPI_Recv(&ack, 1, MPI_CHAR, partner(c), kAckTag, c.comm, MPI_STATUS_IGNORE);
  else
    MPI_Send(&ack, 1, MPI_CHAR, partner(c), kAckTag, c.comm);
}

// Posts a window of receives (receive) or sends of X bytes to or from the partner into requests.
void post(const PointContext& c, int i, bool receive, MPI_Request* requests) {
  for (int w = 0; w < c.in_flight; ++w) {
    if (receive)
      MPI_Irecv(c.recv(i), c.count, MPI_BYTE, partner(c), kDataTag, c.comm, &requests[w]);
    else
      MPI_Isend(c.send(i), c.count, MPI_BYTE, partner(c), kDataTag, c.comm, &requests[w]);
  }
}

// Requests for up to two windows, reused across repetitions (the window is fixed for a run).
std::vector<MPI_Request>& requests_for(int count) {
  static thread_local std::vector<MPI_Request> requests;
  if (requests.size() < static_cast<std::size_t>(count))
    requests.resize(static_cast<std::size_t>(count));
  return requests;
}

// The first half sends a window, the second half receives it.
void uniband(PointContext& c, int i) {
  auto& requests = requests_for(c.in_flight);
  post(c, i, !first_half(c), requests.data());
  MPI_Waitall(c.in_flight, requests.data(), MPI_STATUSES_IGNORE);
  acknowledge(c);
}

// Both halves receive a window from and send a window to their partner at once.
void biband(PointContext& c, int i) {
  auto& requests = requests_for(2 * c.in_flight);
  post(c, i, true, requests.data());
  post(c, i, false, requests.data() + c.in_flight);
  MPI_Waitall(2 * c.in_flight, requests.data(), MPI_STATUSES_IGNORE);
  acknowledge(c);
}

// -check: every message of a window carries the partner's pattern into one receive buffer.
std::vector<core::ExpectedBlock> from_partner(const PointContext& c, int) {
  return {{0, partner(c), 0, c.bytes}};
}
std::vector<core::ExpectedBlock> from_partner_in_second_half(const PointContext& c, int i) {
  return first_half(c) ? std::vector<core::ExpectedBlock>{} : from_partner(c, i);
}

core::Benchmark windowed(std::string name, core::Kernel kernel, double turnover,
                         bool first_half_receives) {
  core::Benchmark b;
  b.name = std::move(name);
  b.family = core::Family::ParallelTransfer;
  // Messages per repetition: window · P/2 (Uniband) or window · P (Biband), as current IMB's
  // Msg/sec = scale · window · (P/2) / t.
  b.turnover = turnover;
  b.turnover_per_process = true;
  b.message_rate = true;
  b.pairs = true;
  b.in_default_list = false;
  b.kernel = kernel;
  b.shape = [](std::size_t x, int, int) { return core::BufferShape{x, x}; };
  b.expected = first_half_receives ? from_partner : from_partner_in_second_half;
  return b;
}
}  // namespace

std::vector<core::Benchmark> bandwidth_benchmarks() {
  return {windowed("Uniband", core::kernel<uniband>(), 0.5, false),
          windowed("Biband", core::kernel<biband>(), 1.0, true)};
}

}  // namespace mpiscope::imb::mpi1
