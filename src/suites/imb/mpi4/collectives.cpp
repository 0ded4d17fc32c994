// IMB-MPI4's persistent collectives (current Intel IMB, src_c/IMB_*.c's *_persist kernels). Each
// is IMB-NBC's benchmark of the same operation with the start replaced: the definition (buffers,
// counts, root, -check blocks) is the one IMB-NBC uses, and imb::nbc's two kernels run it
// (overlapped with CPU work, and _pure). What differs is that the request is made once per length
// by MPI_<Op>_init on repetition 0's buffers and root 0, as IMB makes it before its loop.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "suites/imb/mpi1/benchmarks.hpp"
#include "suites/imb/mpi4/benchmarks.hpp"
#include "suites/imb/nbc/benchmarks.hpp"

#if MPI_VERSION < 4 && defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#if MPI_VERSION >= 4
#define MPISCOPE_HAS_PERSISTENT_COLLECTIVES 1
#define MPISCOPE_INIT(op) MPI_##op##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define MPISCOPE_HAS_PERSISTENT_COLLECTIVES 1
#define MPISCOPE_INIT(op) MPIX_##op##_init
#else
#define MPISCOPE_HAS_PERSISTENT_COLLECTIVES 0
#endif

namespace mpiscope::imb::mpi4 {
namespace {
using core::PointContext;

#if MPISCOPE_HAS_PERSISTENT_COLLECTIVES
void bcast(PointContext& c, MPI_Request* r) {
  const int root = c.root(0);
  MPISCOPE_INIT(Bcast)
  (c.rank == root ? c.send(0) : c.recv(0), c.count, c.datatype, root, c.comm, MPI_INFO_NULL, r);
}
void allgather(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Allgather)
  (c.send(0), c.count, c.datatype, c.recv(0), c.count, c.datatype, c.comm, MPI_INFO_NULL, r);
}
void allgatherv(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Allgatherv)
  (c.send(0), c.count, c.datatype, c.recv(0), c.counts.data(), c.displs.data(), c.datatype, c.comm,
   MPI_INFO_NULL, r);
}
void gather(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Gather)
  (c.send(0), c.count, c.datatype, c.recv(0), c.count, c.datatype, c.root(0), c.comm, MPI_INFO_NULL,
   r);
}
void gatherv(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Gatherv)
  (c.send(0), c.count, c.datatype, c.recv(0), c.counts.data(), c.displs.data(), c.datatype,
   c.root(0), c.comm, MPI_INFO_NULL, r);
}
void scatter(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Scatter)
  (c.send(0), c.count, c.datatype, c.recv(0), c.count, c.datatype, c.root(0), c.comm, MPI_INFO_NULL,
   r);
}
void scatterv(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Scatterv)
  (c.send(0), c.counts.data(), c.displs.data(), c.datatype, c.recv(0), c.count, c.datatype,
   c.root(0), c.comm, MPI_INFO_NULL, r);
}
void alltoall(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Alltoall)
  (c.send(0), c.count, c.datatype, c.recv(0), c.count, c.datatype, c.comm, MPI_INFO_NULL, r);
}
void alltoallv(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Alltoallv)
  (c.send(0), c.counts.data(), c.displs.data(), c.datatype, c.recv(0), c.counts.data(),
   c.displs.data(), c.datatype, c.comm, MPI_INFO_NULL, r);
}
void alltoallw(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Alltoallw)
  (c.send(0), c.counts.data(), c.displs.data(), c.types.data(), c.recv(0), c.counts.data(),
   c.displs.data(), c.types.data(), c.comm, MPI_INFO_NULL, r);
}
void reduce(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Reduce)
  (c.send(0), c.recv(0), c.count, c.datatype, c.op, c.root(0), c.comm, MPI_INFO_NULL, r);
}
void reduce_scatter(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Reduce_scatter)
  (c.send(0), c.recv(0), c.counts.data(), c.datatype, c.op, c.comm, MPI_INFO_NULL, r);
}
void allreduce(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Allreduce)
  (c.send(0), c.recv(0), c.count, c.datatype, c.op, c.comm, MPI_INFO_NULL, r);
}
void barrier(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Barrier)(c.comm, MPI_INFO_NULL, r);
}

// In place (OSU's -l), MPI_IN_PLACE where OSU 7.4's blocking programs pass it: every rank's send
// buffer for the all-to-all kinds and allreduce, the root's for the rooted calls (a scatter's
// receive buffer; a reduction's other ranks send from their receive buffer).
void allgather_in_place(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Allgather)
  (MPI_IN_PLACE, c.count, c.datatype, c.recv(0), c.count, c.datatype, c.comm, MPI_INFO_NULL, r);
}
void allgatherv_in_place(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Allgatherv)
  (MPI_IN_PLACE, c.count, c.datatype, c.recv(0), c.counts.data(), c.displs.data(), c.datatype,
   c.comm, MPI_INFO_NULL, r);
}
void gather_in_place(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Gather)
  (c.in_place_at_root(0, c.send(0)), c.count, c.datatype, c.recv(0), c.count, c.datatype, c.root(0),
   c.comm, MPI_INFO_NULL, r);
}
void gatherv_in_place(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Gatherv)
  (c.in_place_at_root(0, c.send(0)), c.count, c.datatype, c.recv(0), c.counts.data(),
   c.displs.data(), c.datatype, c.root(0), c.comm, MPI_INFO_NULL, r);
}
void scatter_in_place(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Scatter)
  (c.send(0), c.count, c.datatype, const_cast<void*>(c.in_place_at_root(0, c.recv(0))), c.count,
   c.datatype, c.root(0), c.comm, MPI_INFO_NULL, r);
}
void scatterv_in_place(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Scatterv)
  (c.send(0), c.counts.data(), c.displs.data(), c.datatype,
   const_cast<void*>(c.in_place_at_root(0, c.recv(0))), c.count, c.datatype, c.root(0), c.comm,
   MPI_INFO_NULL, r);
}
void alltoall_in_place(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Alltoall)
  (MPI_IN_PLACE, c.count, c.datatype, c.recv(0), c.count, c.datatype, c.comm, MPI_INFO_NULL, r);
}
void alltoallv_in_place(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Alltoallv)
  (MPI_IN_PLACE, c.counts.data(), c.displs.data(), c.datatype, c.recv(0), c.counts.data(),
   c.displs.data(), c.datatype, c.comm, MPI_INFO_NULL, r);
}
void alltoallw_in_place(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Alltoallw)
  (MPI_IN_PLACE, c.counts.data(), c.displs.data(), c.types.data(), c.recv(0), c.counts.data(),
   c.displs.data(), c.types.data(), c.comm, MPI_INFO_NULL, r);
}
void reduce_in_place(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Reduce)
  (c.in_place_at_root(0, c.recv(0)), c.recv(0), c.count, c.datatype, c.op, c.root(0), c.comm,
   MPI_INFO_NULL, r);
}
void reduce_scatter_in_place(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Reduce_scatter)
  (MPI_IN_PLACE, c.recv(0), c.counts.data(), c.datatype, c.op, c.comm, MPI_INFO_NULL, r);
}
void allreduce_in_place(PointContext& c, MPI_Request* r) {
  MPISCOPE_INIT(Allreduce)
  (MPI_IN_PLACE, c.recv(0), c.count, c.datatype, c.op, c.comm, MPI_INFO_NULL, r);
}
#endif

struct Maker {
  std::string_view operation;  // the IMB-MPI1 benchmark whose call it makes persistent
  MakeRequestFn make;
  MakeRequestFn make_in_place = nullptr;  // nullptr: no in-place form (Bcast, Barrier)
};
#if MPISCOPE_HAS_PERSISTENT_COLLECTIVES
constexpr Maker kMakers[] = {{"Bcast", bcast},
                             {"Allgather", allgather, allgather_in_place},
                             {"Allgatherv", allgatherv, allgatherv_in_place},
                             {"Gather", gather, gather_in_place},
                             {"Gatherv", gatherv, gatherv_in_place},
                             {"Scatter", scatter, scatter_in_place},
                             {"Scatterv", scatterv, scatterv_in_place},
                             {"Alltoall", alltoall, alltoall_in_place},
                             {"Alltoallv", alltoallv, alltoallv_in_place},
                             {"Alltoallw", alltoallw, alltoallw_in_place},
                             {"Reduce", reduce, reduce_in_place},
                             {"Reduce_scatter", reduce_scatter, reduce_scatter_in_place},
                             {"Allreduce", allreduce, allreduce_in_place},
                             {"Barrier", barrier}};
#else
constexpr Maker kMakers[] = {{"", nullptr}};
#endif

// IMB-MPI4's benchmarks: the persistent form of IMB-NBC's pair on the same definition.
struct Source {
  std::string_view name, nbc;
  std::string_view operation;  // its maker
};
constexpr Source kSources[] = {
    {"Bcast_persist", "Ibcast", "Bcast"},
    {"Allgather_persist", "Iallgather", "Allgather"},
    {"Allgatherv_persist", "Iallgatherv", "Allgatherv"},
    {"Gather_persist", "Igather", "Gather"},
    {"Gatherv_persist", "Igatherv", "Gatherv"},
    {"Scatter_persist", "Iscatter", "Scatter"},
    {"Scatterv_persist", "Iscatterv", "Scatterv"},
    {"Alltoall_persist", "Ialltoall", "Alltoall"},
    {"Alltoallv_persist", "Ialltoallv", "Alltoallv"},
    {"Reduce_persist", "Ireduce", "Reduce"},
    // IMB-NBC's Ireduce_scatter definition (X to every process), as IMB's reccnt gives it.
    {"Reduce_scatter_persist", "Ireduce_scatter", "Reduce_scatter"},
    {"Allreduce_persist", "Iallreduce", "Allreduce"},
    {"Barrier_persist", "Ibarrier", "Barrier"}};
}  // namespace

bool library_has_persistent_collectives() {
  return MPISCOPE_HAS_PERSISTENT_COLLECTIVES != 0;
}

std::string_view init_call_prefix() {
  return MPI_VERSION >= 4 ? "MPI_" : "MPIX_";
}

void start_persistent(PointContext& c, int, MPI_Request* request) {
  MPI_Start(&c.persistent[0]);
  *request = c.persistent[0];  // a persistent request's handle outlives its completion
}

MakeRequestFn request_maker(std::string_view name, bool in_place) {
  const auto* it = std::find_if(std::begin(kMakers), std::end(kMakers),
                                [&](const Maker& m) { return m.operation == name; });
  if (it == std::end(kMakers)) return nullptr;
  return in_place ? it->make_in_place : it->make;
}

const std::vector<core::Benchmark>& all_benchmarks() {
  static const std::vector<core::Benchmark> list = [] {
    std::vector<core::Benchmark> all;
    if (!library_has_persistent_collectives()) return all;
    for (const Source& s : kSources) {
      const auto [nbc_overlapped, nbc_pure] = nbc::overlapped_pair(s.nbc);
      auto [overlapped, pure] =
          nbc::pair_on(nbc_overlapped, std::string(s.name),
                       core::kernel<nbc::overlapped_with_cpu<start_persistent>>(),
                       core::kernel<nbc::started_then_waited<start_persistent>>());
      overlapped.make_request = pure.make_request = request_maker(s.operation);
      all.push_back(std::move(overlapped));
      all.push_back(std::move(pure));
    }
    // The vector is final here: the twins can point into it.
    for (std::size_t k = 0; k + 1 < all.size(); k += 2) all[k].blocking_twin = &all[k + 1];
    return all;
  }();
  return list;
}

}  // namespace mpiscope::imb::mpi4
