// The windowed Isend/Irecv bandwidth kernel, written once for current IMB's Uniband and Biband
// (bandwidth.cpp) and OSU's osu_bw, osu_bibw and osu_mbw_mr (suites/osu/point_to_point.cpp). The
// first half of the processes is paired with the second (rank r with r + P/2); one repetition is
// a window of PointContext::in_flight messages of X bytes, all into one receive buffer and out of
// one send buffer. How the two suites' loops differ is a WindowedTransfer; what each reports
// (turnover, time factor, process counts, message rate) is set on the Benchmark by its suite.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/benchmark.hpp"

namespace mpiscope::imb::mpi1 {

// How the second half tells its partner that a window has arrived, so that the next window
// starts only after it.
enum class WindowAcknowledgement {
  kNone,        // osu_bibw
  kOwnByte,     // current IMB: one MPI_CHAR from and into a variable of its own
  kBufferByte,  // OSU: one MPI_BYTE out of the send buffer into the receive buffer
};

struct WindowedTransfer {
  bool both_ways = false;  // both halves send a window (Biband, osu_bibw); else the first half
  WindowAcknowledgement acknowledgement = WindowAcknowledgement::kNone;
  // Both ways: one MPI_Waitall over receives and sends (IMB), or the sends', then the receives'
  // (OSU). Either way the receives are posted first.
  bool sends_completed_first = false;
  int data_tag = 0, ack_tag = 1;
  // OSU's -b multiple: message k of a window goes out of and into X bytes of its own, at k·X in
  // the buffers (sized for the window: Benchmark::window_slots); else every message uses the
  // buffers' first X bytes.
  bool buffer_per_message = false;
};
constexpr WindowedTransfer with_buffer_per_message(WindowedTransfer w) {
  w.buffer_per_message = true;
  return w;
}

// Where message k of a window starts in `buffer`.
template <WindowedTransfer W>
std::byte* message_at(std::byte* buffer, const core::PointContext& c, int k) {
  if constexpr (W.buffer_per_message)
    return buffer + static_cast<std::size_t>(k) * c.message_slot();
  return buffer;
}

// The pairs are rank r and r + s for r in the even blocks of s ranks, s = P/2 (or IMB-MT's
// -stride, PointContext::pair_stride): the first half with the second by default.
inline int pair_stride(const core::PointContext& c) {
  return c.pair_stride > 0 ? c.pair_stride : std::max(c.nprocs / 2, 1);  // 1 on one process
}
inline bool in_first_half(const core::PointContext& c) {
  return c.rank / pair_stride(c) % 2 == 0;
}
inline int window_partner(const core::PointContext& c) {
  const int s = pair_stride(c);
  return in_first_half(c) ? c.rank + s : c.rank - s;
}

// Request handles for `count` messages, kept across repetitions: a repetition allocates only
// when the window grew. One set per thread (IMB-MT runs a window on each).
inline MPI_Request* window_requests(int count) {
  thread_local std::vector<MPI_Request> requests;
  if (requests.size() < static_cast<std::size_t>(count))
    requests.resize(static_cast<std::size_t>(count));
  return requests.data();
}

template <WindowedTransfer W>
void windowed_transfer(core::PointContext& c, int i) {
  const int other = window_partner(c), window = c.in_flight;
  const bool first_half = in_first_half(c);
  MPI_Request* requests = window_requests(2 * window);
  if constexpr (W.both_ways) {
    MPI_Request* receives = requests + (W.sends_completed_first ? window : 0);
    MPI_Request* sends = requests + (W.sends_completed_first ? 0 : window);
    for (int k = 0; k < window; ++k)
      MPI_Irecv(message_at<W>(c.recv(i), c, k), c.count, c.datatype, other, W.data_tag, c.comm,
                &receives[k]);
    for (int k = 0; k < window; ++k)
      MPI_Isend(message_at<W>(c.send(i), c, k), c.count, c.datatype, other, W.data_tag, c.comm,
                &sends[k]);
    if constexpr (W.sends_completed_first) {
      MPI_Waitall(window, sends, MPI_STATUSES_IGNORE);
      MPI_Waitall(window, receives, MPI_STATUSES_IGNORE);
    } else {
      MPI_Waitall(2 * window, requests, MPI_STATUSES_IGNORE);
    }
  } else {
    for (int k = 0; k < window; ++k) {
      if (first_half)
        MPI_Isend(message_at<W>(c.send(i), c, k), c.count, c.datatype, other, W.data_tag, c.comm,
                  &requests[k]);
      else
        MPI_Irecv(message_at<W>(c.recv(i), c, k), c.count, c.datatype, other, W.data_tag, c.comm,
                  &requests[k]);
    }
    MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
  }
  if constexpr (W.acknowledgement == WindowAcknowledgement::kOwnByte) {
    char ack = 0;
    if (first_half)
      MPI_Recv(&ack, 1, MPI_CHAR, other, W.ack_tag, c.comm, MPI_STATUS_IGNORE);
    else
      MPI_Send(&ack, 1, MPI_CHAR, other, W.ack_tag, c.comm);
  } else if constexpr (W.acknowledgement == WindowAcknowledgement::kBufferByte) {
    if (first_half)
      MPI_Recv(c.recv(i), 1, MPI_BYTE, other, W.ack_tag, c.comm, MPI_STATUS_IGNORE);
    else
      MPI_Send(c.send(i), 1, MPI_BYTE, other, W.ack_tag, c.comm);
  }
}

// A benchmark running `kernel`, a windowed_transfer: buffers of X bytes each way (X per message
// of the window with buffer_per_message) and -check blocks (every receiving rank holds its
// partner's pattern, in each message's place). The caller names it and sets what is reported.
core::Benchmark windowed_benchmark(std::string name, const WindowedTransfer& w,
                                   core::Kernel kernel);
template <WindowedTransfer W>
core::Benchmark windowed_benchmark(std::string name) {
  return windowed_benchmark(std::move(name), W, core::kernel<windowed_transfer<W>>());
}

}  // namespace mpiscope::imb::mpi1
