// OSU's non-blocking collectives with overlap (c/mpi/collective/non_blocking in OSU 7.4). Each is
// an IMB-NBC benchmark (the same MPI call: its overlapped kernel and its _pure twin, which gives
// t_pure) under OSU's name, on OSU's -T type (on_osu_datatype); what OSU does
// differently is a parameter: the overlap rule
// (core::OverlapMethod::WorkTimedToPure: CPU work that computes for each rank's own t_pure, with
// -t MPI_Test calls inside, and means over the ranks) and its output (text_output.cpp). OSU's
// timing (each iteration alone, an untimed barrier after it, root 0) comes from the front end's
// engine settings, as for the blocking collectives.
#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "suites/imb/nbc/benchmarks.hpp"
#include "suites/osu/osu.hpp"

namespace mpiscope::osu {
namespace {

struct Source {
  std::string_view osu, imb_nbc;
  // The IMB-MPI1 definition when IMB-NBC's differs from what OSU's call moves.
  std::string_view definition = {};
};
constexpr Source kSources[] = {
    {"osu_ibcast", "Ibcast"},
    {"osu_iallgather", "Iallgather"},
    {"osu_iallgatherv", "Iallgatherv"},
    {"osu_igather", "Igather"},
    {"osu_igatherv", "Igatherv"},
    {"osu_iscatter", "Iscatter"},
    {"osu_iscatterv", "Iscatterv"},
    {"osu_ialltoall", "Ialltoall"},
    {"osu_ialltoallv", "Ialltoallv"},
    {"osu_ireduce", "Ireduce"},
    // OSU splits X over the ranks (X/P elements, one more to the first X mod P), as IMB 3.1's
    // Reduce_scatter; IMB-NBC's Ireduce_scatter gives every rank X.
    {"osu_ireduce_scatter", "Ireduce_scatter", "Reduce_scatter"},
    {"osu_iallreduce", "Iallreduce"},
    {"osu_ibarrier", "Ibarrier"}};

// The non-blocking forms of calls IMB-NBC does not have, on OSU's blocking programs' definitions
// (collectives.cpp): the same buffers, counts, types and -c blocks.
void ireduce_scatter_block(core::PointContext& c, int i, MPI_Request* r) {
  MPI_Ireduce_scatter_block(c.send(i), c.recv(i), c.count / c.nprocs, c.datatype, MPI_SUM, c.comm,
                            r);
}
void ialltoallw(core::PointContext& c, int i, MPI_Request* r) {
  MPI_Ialltoallw(c.send(i), c.counts.data(), c.displs.data(), c.types.data(), c.recv(i),
                 c.counts.data(), c.displs.data(), c.types.data(), c.comm, r);
}

// Every program's benchmark followed by its _pure twin, on each of OSU's types, built once: the
// twins are pointed at.
const std::vector<core::Benchmark>& pairs(const OsuType& type, bool in_place) {
  static const std::vector<std::vector<core::Benchmark>> lists = [] {
    std::vector<std::vector<core::Benchmark>> out;
    for (const bool calls_in_place : {false, true})
      for (const OsuType& t : osu_types()) {
        std::vector<core::Benchmark> all;
        const auto add = [&](std::pair<core::Benchmark, core::Benchmark> imb,
                             std::string_view osu) {
          core::Benchmark overlapped = on_osu_datatype(std::move(imb.first), t);
          core::Benchmark pure = on_osu_datatype(std::move(imb.second), t);
          overlapped.name = osu;
          pure.name = std::string(osu) + "_pure";
          overlapped.overlap_method = core::OverlapMethod::WorkTimedToPure;
          overlapped.turnover = pure.turnover = 0;  // OSU prints times only
          // osu_ibarrier times its pure loop back to back and its overlapped loop with a barrier
          // after each iteration (the sized programs have the barrier in both: -sync).
          if (!overlapped.sized) overlapped.barrier_between_repetitions = true;
          all.push_back(std::move(overlapped));
          all.push_back(std::move(pure));
        };
        if (calls_in_place) {  // -l: the programs that have an in-place form
          for (const Program& p : programs())
            if (p.figure == Figure::kOverlap && has_in_place_form(p.name))
              add(in_place_nonblocking_pair(p.name), p.name);
          out.push_back(std::move(all));
          continue;
        }
        for (const Source& s : kSources)
          add(imb::nbc::overlapped_pair(s.imb_nbc, s.definition), s.osu);
        add(imb::nbc::overlapped_pair_on<ireduce_scatter_block>(
                collective("osu_reduce_scatter_block"), "osu_ireduce_scatter_block"),
            "osu_ireduce_scatter_block");
        add(imb::nbc::overlapped_pair_on<ialltoallw>(collective("osu_alltoallw"), "osu_ialltoallw"),
            "osu_ialltoallw");
        for (const Program& p : programs())
          if (p.figure == Figure::kOverlap && is_neighbourhood_collective(p.name))
            add(neighbourhood_nonblocking_pair(p.name), p.name);
        out.push_back(std::move(all));
      }
    // Pointed at only once every list has its final place.
    for (auto& all : out)
      for (std::size_t k = 0; k + 1 < all.size(); k += 2) all[k].blocking_twin = &all[k + 1];
    return out;
  }();
  const auto& types = osu_types();
  for (std::size_t k = 0; k < types.size(); ++k)
    if (std::string(types[k].name) == type.name) return lists[(in_place ? types.size() : 0) + k];
  throw std::logic_error(std::string("no OSU type ") + type.name);
}

}  // namespace

core::Benchmark nonblocking_collective(const std::string& osu_name, const OsuType& type,
                                       bool in_place) {
  const auto& all = pairs(type, in_place);
  const auto it = std::find_if(all.begin(), all.end(),
                               [&](const core::Benchmark& b) { return b.name == osu_name; });
  if (it == all.end()) throw std::logic_error("no IMB-NBC kernel for " + osu_name);
  return *it;
}

}  // namespace mpiscope::osu
