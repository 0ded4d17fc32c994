// com and laten (README "Benchmark Test Descriptions"): for each number of active pairs, one time
// sample per message size of -o operations per rank, the figures from the longest sample; in
// accurate mode, repetitions of that sample until its median is known, the figures from the median.
#include <fmt/format.h>
#include <cstring>

#include "core/buffers.hpp"
#include "suites/presta/pair_report.hpp"

namespace mpiscope::presta {

namespace {

struct Direction {
  const char* name;  // as PRESTA prints it
  void (*kernel)(const PairSide&, int);
  bool both_send;  // bidirectional: every active process sends, not one per pair
};

core::AlignedBytes allocate(std::size_t bytes) {
  auto b = core::AlignedBytes::try_allocate(std::max<std::size_t>(bytes, 1));
  if (!b) throw std::runtime_error(fmt::format("cannot allocate {} bytes for a message", bytes));
  return std::move(*b);
}

// One table: the message sizes of one direction at one process count. Returns false when a point
// could not be measured.
bool run_sizes(RunContext& c, const Direction& d, const PairStep& step,
               const std::vector<long long>& sizes, core::AlignedBytes& send,
               core::AlignedBytes& recv, PairSummary& summary) {
  const Options& o = c.options;
  const bool latency = o.test == Test::kLaten;
  auto b = pair_benchmark(
      c, d.name, step,
      {{"test", latency ? "laten" : "com"},
       {"direction", latency ? "ping-pong" : d.name},
       {"operation", d.kernel == bidirectional ? "MPI_Sendrecv" : "MPI_Send/MPI_Recv"}});
  c.out.benchmark_started(b);
  bool all = true;
  for (long long size : sizes) {
    const PairSide side{step.partner, step.initiator, send.data(), recv.data(),
                        static_cast<int>(size)};
    // Not timed: the first message of a pair sets up its connection (PRESTA does the same).
    if (step.active) d.kernel(side, 1);
    c.point_started(fmt::format("{} {}, {} processes, {} bytes", latency ? "laten" : "com", d.name,
                                step.processes, size));
    const PairPoint p =
        measure_pair_point(step, o.barrier, c.accurate.has_value(), [&] { d.kernel(side, o.ops); });
    c.point_finished();
    if (!c.root) continue;
    const double senders = d.both_send ? step.processes : static_cast<double>(step.pairs.size());
    PairFigures f;
    f.volume_bytes = latency ? 0 : senders * o.ops * static_cast<double>(size);
    f.ops_per_rank = o.ops;
    f.latency = latency;
    const auto bytes = static_cast<std::size_t>(size);
    const core::Measurement m = p.accurate ? accurate_pair_row(c, *p.accurate, bytes, f)
                                           : pair_row(c, p.classic, bytes, o.ops, f);
    all &= m.measured;
    b.rows.push_back(m);
    c.out.row(b, m);
    summary.add(d.name, d.name, m);
  }
  c.out.benchmark_finished(b);
  return all;
}

int run_directions(RunContext& c, const std::vector<Direction>& directions,
                   const std::vector<long long>& sizes) {
  const long long largest = *std::max_element(sizes.begin(), sizes.end());
  auto send = allocate(static_cast<std::size_t>(largest));
  auto recv = allocate(static_cast<std::size_t>(largest));
  core::fill_pattern(send.data(), send.size(), mpi::world_rank());
  std::memset(recv.data(), 0, recv.size());
  PairSummary summary;
  bool all = true;
  // PRESTA: the whole size/pair iteration unidirectional first, then bidirectional.
  for (const auto& d : directions)
    for (int processes : c.options.process_counts) {
      const PairStep step = make_step(processes, c.pairing, c.accurate_settings());
      all &= run_sizes(c, d, step, sizes, send, recv, summary);
    }
  if (c.root) summary.report(c);
  return all ? 0 : 1;
}

}  // namespace

int run_com(RunContext& c) {
  const Options& o = c.options;
  return run_directions(
      c, {{"Unidirectional", unidirectional, false}, {"Bidirectional", bidirectional, true}},
      message_sizes(o.size_start, o.size_stop, o.size_factor));
}

int run_laten(RunContext& c) {
  return run_directions(c, {{"Latency", ping_pong, false}}, {0});
}

}  // namespace mpiscope::presta
