// Current IMB's windowed bandwidth benchmarks, Uniband and Biband (IMB 2019 and later): the first
// half of the processes is paired with the second (rank r with r + P/2). One repetition is a
// window of messages in flight (-window_size, current IMB's default 256), completed by one
// MPI_Waitall, and a one-byte acknowledgement from the second half, so that the next window
// starts only after the last one arrived. Not in IMB 3.1: they run only when named. The kernel is
// windowed.hpp's, shared with OSU's osu_bw, osu_bibw and osu_mbw_mr.
#include <utility>

#include "suites/imb/mpi1/benchmarks.hpp"
#include "suites/imb/mpi1/windowed.hpp"

namespace mpiscope::imb::mpi1 {
namespace {
using core::PointContext;

// -check: every message of a window carries the partner's pattern into one receive buffer.
std::vector<core::ExpectedBlock> from_partner(const PointContext& c, int) {
  return {{0, window_partner(c), 0, c.bytes}};
}
std::vector<core::ExpectedBlock> from_partner_in_second_half(const PointContext& c, int i) {
  return in_first_half(c) ? std::vector<core::ExpectedBlock>{} : from_partner(c, i);
}
// OSU's -b multiple: message k in X bytes of its own, from the partner's pattern at k·X.
std::vector<core::ExpectedBlock> from_partner_per_message(const PointContext& c, int) {
  std::vector<core::ExpectedBlock> blocks;
  for (int k = 0; k < c.in_flight; ++k) {
    const std::size_t at = static_cast<std::size_t>(k) * c.message_slot();
    blocks.push_back({at, window_partner(c), at, c.bytes});
  }
  return blocks;
}
std::vector<core::ExpectedBlock> from_partner_per_message_in_second_half(const PointContext& c,
                                                                         int i) {
  return in_first_half(c) ? std::vector<core::ExpectedBlock>{} : from_partner_per_message(c, i);
}

constexpr WindowedTransfer kUniband{.acknowledgement = WindowAcknowledgement::kOwnByte};
constexpr WindowedTransfer kBiband{.both_ways = true,
                                   .acknowledgement = WindowAcknowledgement::kOwnByte};

// Messages per repetition: window · P/2 (Uniband) or window · P (Biband), as current IMB's
// Msg/sec = scale · window · (P/2) / t.
core::Benchmark reported_as_imb(core::Benchmark b, double turnover) {
  b.family = core::Family::ParallelTransfer;
  b.turnover = turnover;
  b.turnover_per_process = true;
  b.message_rate = true;
  b.pairs = true;
  b.in_default_list = false;
  return b;
}
}  // namespace

core::Benchmark windowed_benchmark(std::string name, const WindowedTransfer& w,
                                   core::Kernel kernel) {
  core::Benchmark b;
  b.name = std::move(name);
  b.kernel = kernel;
  b.shape = [](std::size_t x, int, int) { return core::BufferShape{x, x}; };
  if (w.buffer_per_message)
    b.expected = w.both_ways ? from_partner_per_message : from_partner_per_message_in_second_half;
  else
    b.expected = w.both_ways ? from_partner : from_partner_in_second_half;
  b.window_slots = w.buffer_per_message;
  b.windowed = true;
  return b;
}

std::vector<core::Benchmark> bandwidth_benchmarks() {
  return {reported_as_imb(windowed_benchmark<kUniband>("Uniband"), 0.5),
          reported_as_imb(windowed_benchmark<kBiband>("Biband"), 1.0)};
}

}  // namespace mpiscope::imb::mpi1
