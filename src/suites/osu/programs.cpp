// The OSU programs mpiscope runs, with OSU 7.4's titles (each program's BENCHMARK macro).
#include <algorithm>

#include "suites/osu/osu.hpp"

namespace mpiscope::osu {

const std::vector<Program>& programs() {
  using F = Figure;
  static const std::vector<Program> list = {
      {.name = "osu_latency",
       .title = "OSU MPI Latency Test",
       .figure = F::kLatency,
       .exactly_two = true},
      {.name = "osu_latency_persistent",
       .title = "OSU MPI Latency Persistent Test",
       .figure = F::kLatency,
       .exactly_two = true},
      {.name = "osu_partitioned_latency",
       .title = "OSU MPI Partitioned Latency Test",
       .figure = F::kLatency,
       .exactly_two = true,
       .version = "7.5",
       .overlapped_ping_pong = true},
      {.name = "osu_latency_mt",
       .title = "OSU MPI Multi-threaded Latency Test",
       .figure = F::kLatency,
       .exactly_two = true},
      {.name = "osu_latency_mp",
       .title = "OSU MPI Multi-process Latency Test",
       .figure = F::kLatency,
       .exactly_two = true},
      {.name = "osu_bw",
       .title = "OSU MPI Bandwidth Test",
       .figure = F::kBandwidth,
       .exactly_two = true},
      {.name = "osu_bibw",
       .title = "OSU MPI Bi-Directional Bandwidth Test",
       .figure = F::kBandwidth,
       .exactly_two = true},
      {.name = "osu_bw_persistent",
       .title = "OSU MPI Bandwidth Persistent Test",
       .figure = F::kBandwidth,
       .exactly_two = true},
      {.name = "osu_bibw_persistent",
       .title = "OSU MPI Bi-Directional Bandwidth Persistent Test",
       .figure = F::kBandwidth,
       .exactly_two = true},
      {.name = "osu_mbw_mr",
       .title = "OSU MPI Multiple Bandwidth / Message Rate Test",
       .figure = F::kRate},
      {.name = "osu_multi_lat", .title = "OSU MPI Multi Latency Test", .figure = F::kLatency},
      // c/mpi/pt2pt/congestion: osu_bw's title (imports of their text read as osu_bw's).
      {.name = "osu_bw_fan_in", .title = "OSU MPI Bandwidth Test", .figure = F::kBandwidth},
      {.name = "osu_bw_fan_out", .title = "OSU MPI Bandwidth Test", .figure = F::kBandwidth},
      {.name = "osu_allreduce",
       .title = "OSU MPI Allreduce Latency Test",
       .figure = F::kCollective},
      {.name = "osu_bcast", .title = "OSU MPI Broadcast Latency Test", .figure = F::kCollective},
      {.name = "osu_alltoall",
       .title = "OSU MPI All-to-All Personalized Exchange Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_allgather",
       .title = "OSU MPI Allgather Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_reduce", .title = "OSU MPI Reduce Latency Test", .figure = F::kCollective},
      {.name = "osu_gather",
       .title = "OSU MPI Gather Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_scatter",
       .title = "OSU MPI Scatter Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_barrier",
       .title = "OSU MPI Barrier Latency Test",
       .figure = F::kCollective,
       .sized = false},
      {.name = "osu_alltoallv",
       .title = "OSU MPI All-to-Allv Personalized Exchange Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_allgatherv",
       .title = "OSU MPI Allgatherv Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_gatherv",
       .title = "OSU MPI Gatherv Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_scatterv",
       .title = "OSU MPI Scatterv Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_reduce_scatter",
       .title = "OSU MPI Reduce_scatter Latency Test",
       .figure = F::kCollective},
      {.name = "osu_reduce_scatter_block",
       .title = "OSU MPI Reduce_scatter_block Latency Test",
       .figure = F::kCollective},
      {.name = "osu_alltoallw",
       .title = "OSU MPI All-to-Allw Personalized Exchange Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      // The persistent collectives (c/mpi/collective/persistent): MPI 4.0's MPI_<Op>_init.
      {.name = "osu_allgather_persistent",
       .title = "OSU MPI Allgather Persistent Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_allgatherv_persistent",
       .title = "OSU MPI Allgatherv Persistent Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_allreduce_persistent",
       .title = "OSU MPI Allreduce Persistent Latency Test",
       .figure = F::kCollective},
      {.name = "osu_alltoall_persistent",
       .title = "OSU MPI All-to-All Personalized Exchange Persistent Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_alltoallv_persistent",
       .title = "OSU MPI All-to-Allv Personalized Exchange Persistent Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_alltoallw_persistent",
       .title = "OSU MPI All-to-Allw Personalized Exchange Persistent Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_barrier_persistent",
       .title = "OSU MPI Barrier Persistent Latency Test",
       .figure = F::kCollective,
       .sized = false},
      {.name = "osu_bcast_persistent",
       .title = "OSU MPI Broadcast Persistent Latency Test",
       .figure = F::kCollective},
      {.name = "osu_gather_persistent",
       .title = "OSU MPI Gather Persistent Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_gatherv_persistent",
       .title = "OSU MPI Gatherv Persistent Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_reduce_persistent",
       .title = "OSU MPI Reduce Persistent Latency Test",
       .figure = F::kCollective},
      {.name = "osu_reduce_scatter_persistent",
       .title = "OSU MPI Reduce_scatter Persistent Latency Test",
       .figure = F::kCollective},
      {.name = "osu_scatter_persistent",
       .title = "OSU MPI Scatter Persistent Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_scatterv_persistent",
       .title = "OSU MPI Scatterv Persistent Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      // The neighbourhood collectives (c/mpi/collective/neighborhood) on -N's topology. OSU
      // 7.4's osu_neighbor_alltoallw prints osu_alltoallw's title.
      {.name = "osu_neighbor_allgather",
       .title = "OSU MPI Neighborhood Allgather Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_neighbor_allgatherv",
       .title = "OSU MPI Neighborhood Allgatherv Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_neighbor_alltoall",
       .title = "OSU MPI Neighborhood Alltoall Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_neighbor_alltoallv",
       .title = "OSU MPI Neighborhood All-to-Allv Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_neighbor_alltoallw",
       .title = "OSU MPI All-to-Allw Personalized Exchange Latency Test",
       .figure = F::kCollective,
       .per_process_buffers = true},
      {.name = "osu_iallreduce",
       .title = "OSU MPI Non-blocking Allreduce Latency Test",
       .figure = F::kOverlap},
      {.name = "osu_ibcast",
       .title = "OSU MPI Non-Blocking Broadcast Latency Test",
       .figure = F::kOverlap},
      {.name = "osu_ialltoall",
       .title = "OSU MPI Non-blocking All-to-All Latency Test",
       .figure = F::kOverlap,
       .per_process_buffers = true},
      {.name = "osu_iallgather",
       .title = "OSU MPI Non-blocking Allgather Latency Test",
       .figure = F::kOverlap,
       .per_process_buffers = true},
      {.name = "osu_ireduce",
       .title = "OSU MPI Non-blocking Reduce Latency Test",
       .figure = F::kOverlap},
      {.name = "osu_igather",
       .title = "OSU MPI Non-blocking Gather Latency Test",
       .figure = F::kOverlap,
       .per_process_buffers = true},
      {.name = "osu_iscatter",
       .title = "OSU MPI Non-blocking Scatter Latency Test",
       .figure = F::kOverlap,
       .per_process_buffers = true},
      {.name = "osu_ibarrier",
       .title = "OSU MPI Non-blocking Barrier Latency Test",
       .figure = F::kOverlap,
       .sized = false},
      {.name = "osu_ialltoallv",
       .title = "OSU MPI Non-blocking All-to-Allv Personalized Exchange Latency Test",
       .figure = F::kOverlap,
       .per_process_buffers = true},
      {.name = "osu_iallgatherv",
       .title = "OSU MPI Non-blocking Allgatherv Latency Test",
       .figure = F::kOverlap,
       .per_process_buffers = true},
      {.name = "osu_igatherv",
       .title = "OSU MPI Non-blocking Gatherv Latency Test",
       .figure = F::kOverlap,
       .per_process_buffers = true},
      {.name = "osu_iscatterv",
       .title = "OSU MPI Non-blocking Scatterv Latency Test",
       .figure = F::kOverlap,
       .per_process_buffers = true},
      {.name = "osu_ireduce_scatter",
       .title = "OSU MPI Non-blocking Reduce_scatter Latency Test",
       .figure = F::kOverlap},
      {.name = "osu_ireduce_scatter_block",
       .title = "OSU MPI Non-blocking Reduce_scatter_block Latency Test",
       .figure = F::kOverlap},
      {.name = "osu_ialltoallw",
       .title = "OSU MPI Non-blocking All-to-Allw Personalized Exchange Latency Test",
       .figure = F::kOverlap,
       .per_process_buffers = true},
      {.name = "osu_ineighbor_allgather",
       .title = "OSU MPI Non-blocking Neighborhood Allgather Latency Test",
       .figure = F::kOverlap,
       .per_process_buffers = true},
      {.name = "osu_ineighbor_allgatherv",
       .title = "OSU MPI Non-blocking Neighborhood Allgatherv Latency Test",
       .figure = F::kOverlap,
       .per_process_buffers = true},
      {.name = "osu_ineighbor_alltoall",
       .title = "OSU MPI Non-blocking Neighborhood Alltoall Latency Test",
       .figure = F::kOverlap,
       .per_process_buffers = true},
      {.name = "osu_ineighbor_alltoallv",
       .title = "OSU MPI Non-blocking Neighborhood Alltoallv Latency Test",
       .figure = F::kOverlap,
       .per_process_buffers = true},
      {.name = "osu_ineighbor_alltoallw",
       .title = "OSU MPI Non-blocking Neighborhood Alltoallw Latency Test",
       .figure = F::kOverlap,
       .per_process_buffers = true},
      {.name = "osu_put_latency",
       .title = "OSU MPI_Put Latency Test",
       .figure = F::kOneSided,
       .exactly_two = true},
      {.name = "osu_get_latency",
       .title = "OSU MPI_Get latency Test",
       .figure = F::kOneSided,
       .exactly_two = true},
      {.name = "osu_put_bw",
       .title = "OSU MPI_Put Bandwidth Test",
       .figure = F::kOneSidedBandwidth,
       .exactly_two = true},
      {.name = "osu_get_bw",
       .title = "OSU MPI_Get Bandwidth Test",
       .figure = F::kOneSidedBandwidth,
       .exactly_two = true},
      {.name = "osu_get_mbw",
       .title = "OSU MPI_Get Multiple Bandwidth Bandwidth Test",
       .figure = F::kOneSidedBandwidth,
       .multi_pair_one_sided = true},
      {.name = "osu_get_multi_lat",
       .title = "OSU MPI_Get Multi Latency Test",
       .figure = F::kOneSided,
       .multi_pair_one_sided = true},
      {.name = "osu_put_bibw",
       .title = "OSU MPI_Put Bi-directional Bandwidth Test",
       .figure = F::kOneSidedBandwidth,
       .exactly_two = true,
       .active_target_only = true,
       .default_sync = "pscw"},
      {.name = "osu_acc_latency",
       .title = "OSU MPI_Accumulate latency Test",
       .figure = F::kOneSided,
       .exactly_two = true},
      {.name = "osu_fop_latency",
       .title = "OSU MPI_Fetch_and_op latency Test",
       .figure = F::kOneSided,
       .exactly_two = true},
      {.name = "osu_cas_latency",
       .title = "OSU MPI_Compare_and_swap latency Test",
       .figure = F::kOneSided,
       .exactly_two = true},
      // Its main() sets no window or synchronisation: OSU's zero values, create and lock.
      {.name = "osu_get_acc_latency",
       .title = "OSU MPI_Get_accumulate latency Test",
       .figure = F::kOneSided,
       .exactly_two = true,
       .default_window = "create",
       .default_sync = "lock",
       .prints_datatype = false},
      {.name = "osu_hello",
       .title = "OSU MPI Hello World Test",
       .figure = F::kStartup,
       .sized = false},
      {.name = "osu_init", .title = "OSU MPI Init Test", .figure = F::kStartup, .sized = false},
  };
  return list;
}

const Program* find_program(const std::string& name) {
  const auto& all = programs();
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const Program& p) { return p.name == name; });
  return it == all.end() ? nullptr : &*it;
}

TableKind table_kind(const Program& p) {
  // The benchmark that measures it on 2 ranks, the count the two-rank programs fix.
  return {core::family_name(benchmark_for(p, {.window = 1}).family), p.exactly_two ? 2 : 0};
}

const std::vector<std::pair<std::string, WindowCreation>>& window_creation_words() {
  static const std::vector<std::pair<std::string, WindowCreation>> words = {
      {"create", WindowCreation::Create},
      {"allocate", WindowCreation::Allocate},
      {"dynamic", WindowCreation::Dynamic}};
  return words;
}

const std::vector<std::pair<std::string, Sync>>& sync_words() {
  static const std::vector<std::pair<std::string, Sync>> words = {{"lock", Sync::Lock},
                                                                  {"pscw", Sync::Pscw},
                                                                  {"fence", Sync::Fence},
                                                                  {"flush", Sync::Flush},
                                                                  {"flush_local", Sync::FlushLocal},
                                                                  {"lock_all", Sync::LockAll}};
  return words;
}

std::string window_creation_name(WindowCreation w) {
  switch (w) {
    case WindowCreation::Create:
      return "MPI_Win_create";
    case WindowCreation::Dynamic:
      return "MPI_Win_create_dynamic";
    default:
      return "MPI_Win_allocate";
  }
}

std::string sync_name(Sync s) {
  switch (s) {
    case Sync::Lock:
      return "MPI_Win_lock/unlock";
    case Sync::Pscw:
      return "MPI_Win_post/start/complete/wait";
    case Sync::Fence:
      return "MPI_Win_fence";
    case Sync::FlushLocal:
      return "MPI_Win_flush_local";
    case Sync::LockAll:
      return "MPI_Win_lock_all/unlock_all";
    default:
      return "MPI_Win_flush";
  }
}

core::Benchmark benchmark_for(const Program& p, const BenchmarkChoices& c) {
  const int window = c.window, world_size = c.world_size;
  core::Benchmark b;
  if (p.figure == Figure::kStartup) {  // no kernel: startup.cpp measures MPI_Init itself
    b.name = p.name;
    b.sized = false;
    return b;
  }
  if (is_one_sided(p.figure)) {
    b = one_sided(p, c.creation, c.sync);
    // Bandwidth: the time per message, the window's (both windows' for bibw, every pair's for
    // osu_get_mbw) share.
    if (p.multi_pair_one_sided) b.fixed_processes = world_size / 2 * 2;  // an odd last idles
    if (p.figure == Figure::kOneSidedBandwidth)
      b.time_factor = 1.0 / (window * (p.name == "osu_put_bibw" ? 2
                                       : p.multi_pair_one_sided ? world_size / 2
                                                                : 1));
    return b;
  }
  if (p.name == "osu_latency") {
    b = ping_pong_latency();
  } else if (p.name == "osu_latency_mt") {
    b = threaded_ping_pong_latency(c.sender_threads, c.receiver_threads);
  } else if (p.name == "osu_latency_mp") {
    b = forked_ping_pong_latency();
  } else if (p.name == "osu_latency_persistent") {
    b = persistent_ping_pong_latency();
  } else if (p.name == "osu_partitioned_latency") {
    // Sizes of whole partitions of whole elements: Q partitions of n / Q elements each.
    b = partitioned_latency(c.partitions, c.type);
    b.unit *= static_cast<std::size_t>(c.partitions);
    b.fixed_processes = 2;
    return b;
  } else if (p.name == "osu_multi_lat") {
    b = multi_pair_latency();
  } else if (is_fan(p)) {  // every rank; a window to or from each of its fan's peers
    b = fan_bandwidth(p.name == "osu_bw_fan_in", c.buffer_per_message);
    b.turnover = 1;
    b.time_factor = 1.0 / (window * std::max(c.fan_edges, 1));
    b.fixed_processes = world_size;
    return on_osu_datatype(std::move(b), c.type);
  } else if (p.figure == Figure::kBandwidth || p.figure == Figure::kRate) {
    const bool both_ways = p.name == "osu_bibw" || p.name == "osu_bibw_persistent";
    const bool own = c.buffer_per_message;
    b = p.name == "osu_bw" || p.name == "osu_bibw"
            ? (both_ways ? windowed_bibandwidth(own) : windowed_bandwidth(own))
        : p.name == "osu_mbw_mr" ? multi_pair_bandwidth(own)
                                 : persistent_windowed_bandwidth(both_ways, own);
    // Messages one repetition moves: the window, both ways for bibw, from every pair for mbw_mr.
    const int messages =
        window * (both_ways ? 2 : 1) * (p.name == "osu_mbw_mr" ? world_size / 2 : 1);
    b.turnover = 1;
    b.time_factor = 1.0 / messages;
  } else if (p.figure == Figure::kOverlap) {
    return nonblocking_collective(p.name, c.type, c.in_place);
  } else if (is_neighbourhood_collective(p.name)) {
    return on_osu_datatype(neighbourhood_collective(p.name), c.type);
  } else if (is_persistent_collective(p)) {
    return on_osu_datatype(persistent_collective(p.name, c.in_place), c.type);
  } else {
    return on_osu_datatype(c.in_place ? in_place_collective(p.name) : collective(p.name), c.type);
  }
  // Pairs: every rank of an even count, all but the last of an odd one (OSU leaves it idle).
  b.fixed_processes = p.exactly_two ? 2 : world_size / 2 * 2;
  return on_osu_datatype(std::move(b), c.type);
}

}  // namespace mpiscope::osu
