// The OSU programs mpiscope runs, with OSU 7.4's titles (each program's BENCHMARK macro).
#include <algorithm>

#include "suites/osu/osu.hpp"

namespace mpiscope::osu {

const std::vector<Program>& programs() {
  using F = Figure;
  static const std::vector<Program> list = {
      {"osu_latency", "OSU MPI Latency Test", F::kLatency, true},
      {"osu_latency_persistent", "OSU MPI Latency Persistent Test", F::kLatency, true},
      {"osu_latency_mt", "OSU MPI Multi-threaded Latency Test", F::kLatency, true},
      {"osu_latency_mp", "OSU MPI Multi-process Latency Test", F::kLatency, true},
      {"osu_bw", "OSU MPI Bandwidth Test", F::kBandwidth, true},
      {"osu_bibw", "OSU MPI Bi-Directional Bandwidth Test", F::kBandwidth, true},
      {"osu_bw_persistent", "OSU MPI Bandwidth Persistent Test", F::kBandwidth, true},
      {"osu_bibw_persistent", "OSU MPI Bi-Directional Bandwidth Persistent Test", F::kBandwidth,
       true},
      {"osu_mbw_mr", "OSU MPI Multiple Bandwidth / Message Rate Test", F::kRate},
      {"osu_multi_lat", "OSU MPI Multi Latency Test", F::kLatency},
      {"osu_allreduce", "OSU MPI Allreduce Latency Test", F::kCollective},
      {"osu_bcast", "OSU MPI Broadcast Latency Test", F::kCollective},
      {"osu_alltoall", "OSU MPI All-to-All Personalized Exchange Latency Test", F::kCollective,
       false, true},
      {"osu_allgather", "OSU MPI Allgather Latency Test", F::kCollective, false, true},
      {"osu_reduce", "OSU MPI Reduce Latency Test", F::kCollective},
      {"osu_gather", "OSU MPI Gather Latency Test", F::kCollective, false, true},
      {"osu_scatter", "OSU MPI Scatter Latency Test", F::kCollective, false, true},
      {"osu_barrier", "OSU MPI Barrier Latency Test", F::kCollective, false, false, false},
      {"osu_alltoallv", "OSU MPI All-to-Allv Personalized Exchange Latency Test", F::kCollective,
       false, true},
      {"osu_allgatherv", "OSU MPI Allgatherv Latency Test", F::kCollective, false, true},
      {"osu_gatherv", "OSU MPI Gatherv Latency Test", F::kCollective, false, true},
      {"osu_scatterv", "OSU MPI Scatterv Latency Test", F::kCollective, false, true},
      {"osu_reduce_scatter", "OSU MPI Reduce_scatter Latency Test", F::kCollective},
      {"osu_reduce_scatter_block", "OSU MPI Reduce_scatter_block Latency Test", F::kCollective},
      {"osu_alltoallw", "OSU MPI All-to-Allw Personalized Exchange Latency Test", F::kCollective,
       false, true},
      {"osu_iallreduce", "OSU MPI Non-blocking Allreduce Latency Test", F::kOverlap},
      {"osu_ibcast", "OSU MPI Non-Blocking Broadcast Latency Test", F::kOverlap},
      {"osu_ialltoall", "OSU MPI Non-blocking All-to-All Latency Test", F::kOverlap, false, true},
      {"osu_iallgather", "OSU MPI Non-blocking Allgather Latency Test", F::kOverlap, false, true},
      {"osu_ireduce", "OSU MPI Non-blocking Reduce Latency Test", F::kOverlap},
      {"osu_igather", "OSU MPI Non-blocking Gather Latency Test", F::kOverlap, false, true},
      {"osu_iscatter", "OSU MPI Non-blocking Scatter Latency Test", F::kOverlap, false, true},
      {"osu_ibarrier", "OSU MPI Non-blocking Barrier Latency Test", F::kOverlap, false, false,
       false},
      {"osu_ialltoallv", "OSU MPI Non-blocking All-to-Allv Personalized Exchange Latency Test",
       F::kOverlap, false, true},
      {"osu_iallgatherv", "OSU MPI Non-blocking Allgatherv Latency Test", F::kOverlap, false, true},
      {"osu_igatherv", "OSU MPI Non-blocking Gatherv Latency Test", F::kOverlap, false, true},
      {"osu_iscatterv", "OSU MPI Non-blocking Scatterv Latency Test", F::kOverlap, false, true},
      {"osu_ireduce_scatter", "OSU MPI Non-blocking Reduce_scatter Latency Test", F::kOverlap},
      {"osu_ireduce_scatter_block", "OSU MPI Non-blocking Reduce_scatter_block Latency Test",
       F::kOverlap},
      {"osu_ialltoallw", "OSU MPI Non-blocking All-to-Allw Personalized Exchange Latency Test",
       F::kOverlap, false, true},
      {"osu_put_latency", "OSU MPI_Put Latency Test", F::kOneSided, true},
      {"osu_get_latency", "OSU MPI_Get latency Test", F::kOneSided, true},
      {"osu_put_bw", "OSU MPI_Put Bandwidth Test", F::kOneSidedBandwidth, true},
      {"osu_get_bw", "OSU MPI_Get Bandwidth Test", F::kOneSidedBandwidth, true},
      {"osu_put_bibw", "OSU MPI_Put Bi-directional Bandwidth Test", F::kOneSidedBandwidth, true,
       false, true, true, "allocate", "pscw"},
      {"osu_acc_latency", "OSU MPI_Accumulate latency Test", F::kOneSided, true},
      {"osu_fop_latency", "OSU MPI_Fetch_and_op latency Test", F::kOneSided, true},
      {"osu_cas_latency", "OSU MPI_Compare_and_swap latency Test", F::kOneSided, true},
      // Its main() sets no window or synchronisation: OSU's zero values, create and lock.
      {"osu_get_acc_latency", "OSU MPI_Get_accumulate latency Test", F::kOneSided, true, false,
       true, false, "create", "lock", false},
      {"osu_hello", "OSU MPI Hello World Test", F::kStartup, false, false, false},
      {"osu_init", "OSU MPI Init Test", F::kStartup, false, false, false}};
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
    // Bandwidth: the time per message, the window's (both windows' for bibw) share.
    if (p.figure == Figure::kOneSidedBandwidth)
      b.time_factor = 1.0 / (window * (p.name == "osu_put_bibw" ? 2 : 1));
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
  } else if (p.name == "osu_multi_lat") {
    b = multi_pair_latency();
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
  } else {
    return on_osu_datatype(c.in_place ? in_place_collective(p.name) : collective(p.name), c.type);
  }
  // Pairs: every rank of an even count, all but the last of an odd one (OSU leaves it idle).
  b.fixed_processes = p.exactly_two ? 2 : world_size / 2 * 2;
  return on_osu_datatype(std::move(b), c.type);
}

}  // namespace mpiscope::osu
