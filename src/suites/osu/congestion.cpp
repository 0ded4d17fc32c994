// OSU 7.4's congestion programs (c/mpi/pt2pt/congestion): osu_bw_fan_out and osu_bw_fan_in.
// The processes' nodes, by MPI_Get_processor_name in name order, each hold the same number
// (ppn) of them; the first node's are the parents, and local process k of every other node is
// the child of the first node's process k. One repetition is one of OSU's iterations:
//   fan-out: each parent posts a window of Isends to every one of its children (window slot by
//            slot, child by child), waits for them all, then for a one-byte reply from each;
//            a child receives its window and replies;
//   fan-in:  each child sends its window to its parent and waits for the parent's reply; a
//            parent receives every child's window (slot by slot, child by child), then replies
//            to each.
// The senders time (parents out, children in); the figure is every message of the fan over the
// senders' mean time, as OSU 7.4 sums the senders' times and divides by their count.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <vector>

#include "core/mpi.hpp"
#include "core/neighbourhood.hpp"
#include "suites/osu/osu.hpp"

namespace mpiscope::osu {
namespace {
using core::PointContext;

constexpr int kFanDataTag = 100, kFanReplyTag = 101;  // OSU's tags

// The fan of this process, from the graph itself (the engine asks whether a rank times before
// the set-up has listed its neighbours), and its peers once set up: a parent's children in node
// order, a child's parent.
bool is_fan_parent(const PointContext& c) {
  const auto& edges = c.neighbourhood->edges;
  return std::any_of(edges.begin(), edges.end(), [&](const auto& e) { return e.first == c.rank; });
}
const std::vector<int>& fan_peers(const PointContext& c) {
  const auto& mine = c.neighbours[static_cast<std::size_t>(c.rank)];
  return mine.destinations.empty() ? mine.sources : mine.destinations;
}

// Where window slot j starts in `buffer`: OSU's -b multiple gives each slot X bytes of its own
// (shared by every child at that slot); single, one buffer for all.
template <bool PerMessage>
std::byte* fan_slot(std::byte* buffer, const PointContext& c, int j) {
  if constexpr (PerMessage) return buffer + static_cast<std::size_t>(j) * c.message_slot();
  return buffer;
}

// The window's requests, sized once per thread (no allocation inside the timed loop after the
// first repetition).
thread_local std::vector<MPI_Request> fan_requests;

// One iteration of this process: its window to (Send) or from each of its peers, slot by slot,
// peer by peer, all completed together; then the one-byte replies: the sender waits for one
// from each peer, the receiver sends one to each.
template <bool Send, bool PerMessage>
void fan_window(PointContext& c, const std::vector<int>& peers) {
  const int window = c.in_flight, n = static_cast<int>(peers.size());
  fan_requests.resize(static_cast<std::size_t>(window * n));
  for (int j = 0; j < window; ++j)
    for (int k = 0; k < n; ++k) {
      MPI_Request* request = &fan_requests[static_cast<std::size_t>(j * n + k)];
      if constexpr (Send)
        MPI_Isend(fan_slot<PerMessage>(c.send(0), c, j), c.count, c.datatype, peers[k], kFanDataTag,
                  c.comm, request);
      else
        MPI_Irecv(fan_slot<PerMessage>(c.recv(0), c, j), c.count, c.datatype, peers[k], kFanDataTag,
                  c.comm, request);
    }
  MPI_Waitall(window * n, fan_requests.data(), MPI_STATUSES_IGNORE);
  for (const int peer : peers) {
    if constexpr (Send)
      MPI_Recv(c.recv(0), 1, MPI_CHAR, peer, kFanReplyTag, c.comm, MPI_STATUS_IGNORE);
    else
      MPI_Send(c.send(0), 1, MPI_CHAR, peer, kFanReplyTag, c.comm);
  }
}

template <bool FanIn, bool PerMessage>
void fan_iteration(PointContext& c, int) {
  // The senders: parents out, children in.
  const bool parent = !c.neighbours[static_cast<std::size_t>(c.rank)].destinations.empty();
  if (parent != FanIn)
    fan_window<true, PerMessage>(c, fan_peers(c));
  else
    fan_window<false, PerMessage>(c, fan_peers(c));
}

// The set-up: every process's fan from the run's layout (EngineSettings::neighbourhood, the
// graph of parent → child edges that fan_layout made).
void set_up_fan(PointContext& c) {
  c.neighbours = core::neighbours_of(*c.neighbourhood, c.nprocs);
}

std::string fan_node_name() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return std::string(name, static_cast<std::size_t>(std::max(length, 0)));
}
}  // namespace

FanLayout fan_layout(MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<char> mine(MPI_MAX_PROCESSOR_NAME, '\0');
  const std::string name = fan_node_name();
  std::copy(name.begin(), name.end(), mine.begin());
  std::vector<char> all(rank == 0 ? mine.size() * static_cast<std::size_t>(size) : 0);
  MPI_Gather(mine.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
             MPI_CHAR, 0, comm);
  // Rank 0 orders the ranks by node name (OSU's qsort of the names; ranks of one node in rank
  // order), numbers the nodes and each node's processes, and checks the layout.
  FanLayout layout;
  std::vector<int> edges;  // parent, child, parent, child, …
  std::string error;
  if (rank == 0) {
    const auto name_of = [&](int r) {
      return std::string(all.data() + static_cast<std::ptrdiff_t>(r) * MPI_MAX_PROCESSOR_NAME);
    };
    std::vector<int> order(static_cast<std::size_t>(size));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return name_of(a) < name_of(b); });
    std::vector<std::vector<int>> nodes;
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (i == 0 || name_of(order[i]) != name_of(order[i - 1])) nodes.emplace_back();
      nodes.back().push_back(order[i]);
    }
    layout.nodes = static_cast<int>(nodes.size());
    layout.ppn = static_cast<int>(nodes.front().size());
    layout.parent_node = name_of(nodes.front().front());
    if (nodes.size() == 1)
      error = "needs processes on more than one node: every process is on " + layout.parent_node +
              " (OSU 7.4: 'Please run this benchmark on more than 1 node')";
    for (const auto& node : nodes)
      if (error.empty() && static_cast<int>(node.size()) != layout.ppn)
        error = "needs the same number of processes on every node: " + layout.parent_node +
                " has " + std::to_string(layout.ppn) + ", " + name_of(node.front()) + " has " +
                std::to_string(node.size()) +
                " (OSU 7.4: 'Please run this benchmark with same ppn for all nodes')";
    if (error.empty())
      for (int k = 0; k < layout.ppn; ++k)
        for (std::size_t n = 1; n < nodes.size(); ++n)
          edges.insert(edges.end(), {nodes[0][static_cast<std::size_t>(k)],
                                     nodes[n][static_cast<std::size_t>(k)]});
  }
  layout.error = mpi::broadcast(error, 0, comm);
  layout.parent_node = mpi::broadcast(layout.parent_node, 0, comm);
  std::array<int, 3> counts = {layout.nodes, layout.ppn, static_cast<int>(edges.size())};
  MPI_Bcast(counts.data(), 3, MPI_INT, 0, comm);
  layout.nodes = counts[0];
  layout.ppn = counts[1];
  edges.resize(static_cast<std::size_t>(counts[2]));
  MPI_Bcast(edges.data(), counts[2], MPI_INT, 0, comm);
  layout.graph.kind = core::Neighbourhood::Kind::Graph;
  layout.graph.text = "fan";
  for (std::size_t i = 0; i + 1 < edges.size(); i += 2)
    layout.graph.edges.emplace_back(edges[i], edges[i + 1]);
  return layout;
}

core::Benchmark fan_bandwidth(bool fan_in, bool buffer_per_message) {
  core::Benchmark b = in_family({}, core::Family::ParallelTransfer);
  b.name = fan_in ? "osu_bw_fan_in" : "osu_bw_fan_out";
  b.shape = [](std::size_t x, int, int) { return core::BufferShape{x, x}; };
  if (fan_in)
    b.kernel = buffer_per_message ? core::kernel<fan_iteration<true, true>>()
                                  : core::kernel<fan_iteration<true, false>>();
  else
    b.kernel = buffer_per_message ? core::kernel<fan_iteration<false, true>>()
                                  : core::kernel<fan_iteration<false, false>>();
  b.window_slots = buffer_per_message;
  b.windowed = true;
  b.setup = set_up_fan;
  if (fan_in)
    b.timed_rank = [](const PointContext& c) { return !is_fan_parent(c); };
  else
    b.timed_rank = [](const PointContext& c) { return is_fan_parent(c); };
  b.throughput_from_mean = true;  // OSU: the senders' summed time over their count
  return b;
}

}  // namespace mpiscope::osu
