// OSU 7.4's -l: the collectives called in place, MPI_IN_PLACE where its programs put it (the
// ranks that pass it, and the buffer that then holds the input, differ by call). Each form is its
// MPI call, blocking and non-blocking; the buffers, counts and -check blocks stay the program's
// own, and -check first puts the input where the call reads it.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "suites/imb/nbc/benchmarks.hpp"
#include "suites/osu/osu.hpp"

namespace mpiscope::osu {
namespace {
using core::ExpectedBlock;
using core::PointContext;

// Every rank reduces or exchanges from its receive buffer.
void allreduce_in_place(PointContext& c, int i) {
  MPI_Allreduce(MPI_IN_PLACE, c.recv(i), c.count, c.datatype, MPI_SUM, c.comm);
}
void iallreduce_in_place(PointContext& c, int i, MPI_Request* r) {
  MPI_Iallreduce(MPI_IN_PLACE, c.recv(i), c.count, c.datatype, MPI_SUM, c.comm, r);
}
void reduce_scatter_in_place(PointContext& c, int i) {
  MPI_Reduce_scatter(MPI_IN_PLACE, c.recv(i), c.counts.data(), c.datatype, MPI_SUM, c.comm);
}
void ireduce_scatter_in_place(PointContext& c, int i, MPI_Request* r) {
  MPI_Ireduce_scatter(MPI_IN_PLACE, c.recv(i), c.counts.data(), c.datatype, MPI_SUM, c.comm, r);
}
void reduce_scatter_block_in_place(PointContext& c, int i) {
  MPI_Reduce_scatter_block(MPI_IN_PLACE, c.recv(i), c.count / c.nprocs, c.datatype, MPI_SUM,
                           c.comm);
}
void ireduce_scatter_block_in_place(PointContext& c, int i, MPI_Request* r) {
  MPI_Ireduce_scatter_block(MPI_IN_PLACE, c.recv(i), c.count / c.nprocs, c.datatype, MPI_SUM,
                            c.comm, r);
}
void alltoall_in_place(PointContext& c, int i) {
  MPI_Alltoall(MPI_IN_PLACE, c.count, c.datatype, c.recv(i), c.count, c.datatype, c.comm);
}
void ialltoall_in_place(PointContext& c, int i, MPI_Request* r) {
  MPI_Ialltoall(MPI_IN_PLACE, c.count, c.datatype, c.recv(i), c.count, c.datatype, c.comm, r);
}
void alltoallv_in_place(PointContext& c, int i) {
  MPI_Alltoallv(MPI_IN_PLACE, c.counts.data(), c.displs.data(), c.datatype, c.recv(i),
                c.counts.data(), c.displs.data(), c.datatype, c.comm);
}
void ialltoallv_in_place(PointContext& c, int i, MPI_Request* r) {
  MPI_Ialltoallv(MPI_IN_PLACE, c.counts.data(), c.displs.data(), c.datatype, c.recv(i),
                 c.counts.data(), c.displs.data(), c.datatype, c.comm, r);
}
void alltoallw_in_place(PointContext& c, int i) {
  MPI_Alltoallw(MPI_IN_PLACE, c.counts.data(), c.displs.data(), c.types.data(), c.recv(i),
                c.counts.data(), c.displs.data(), c.types.data(), c.comm);
}
void ialltoallw_in_place(PointContext& c, int i, MPI_Request* r) {
  MPI_Ialltoallw(MPI_IN_PLACE, c.counts.data(), c.displs.data(), c.types.data(), c.recv(i),
                 c.counts.data(), c.displs.data(), c.types.data(), c.comm, r);
}
// Every rank's own block already sits at its place in the receive buffer.
void allgather_in_place(PointContext& c, int i) {
  MPI_Allgather(MPI_IN_PLACE, c.count, c.datatype, c.recv(i), c.count, c.datatype, c.comm);
}
void iallgather_in_place(PointContext& c, int i, MPI_Request* r) {
  MPI_Iallgather(MPI_IN_PLACE, c.count, c.datatype, c.recv(i), c.count, c.datatype, c.comm, r);
}
void allgatherv_in_place(PointContext& c, int i) {
  MPI_Allgatherv(MPI_IN_PLACE, c.count, c.datatype, c.recv(i), c.counts.data(), c.displs.data(),
                 c.datatype, c.comm);
}
void iallgatherv_in_place(PointContext& c, int i, MPI_Request* r) {
  MPI_Iallgatherv(MPI_IN_PLACE, c.count, c.datatype, c.recv(i), c.counts.data(), c.displs.data(),
                  c.datatype, c.comm, r);
}
// The root alone passes MPI_IN_PLACE: gathering, its own block is in place; scattering, its own
// block stays in the send buffer. Reducing, the other ranks send from their receive buffer, as
// OSU's do.
void gather_in_place(PointContext& c, int i) {
  MPI_Gather(c.in_place_at_root(i, c.send(i)), c.count, c.datatype, c.recv(i), c.count, c.datatype,
             c.root(i), c.comm);
}
void igather_in_place(PointContext& c, int i, MPI_Request* r) {
  MPI_Igather(c.in_place_at_root(i, c.send(i)), c.count, c.datatype, c.recv(i), c.count, c.datatype,
              c.root(i), c.comm, r);
}
void gatherv_in_place(PointContext& c, int i) {
  MPI_Gatherv(c.in_place_at_root(i, c.send(i)), c.count, c.datatype, c.recv(i), c.counts.data(),
              c.displs.data(), c.datatype, c.root(i), c.comm);
}
void igatherv_in_place(PointContext& c, int i, MPI_Request* r) {
  MPI_Igatherv(c.in_place_at_root(i, c.send(i)), c.count, c.datatype, c.recv(i), c.counts.data(),
               c.displs.data(), c.datatype, c.root(i), c.comm, r);
}
void scatter_in_place(PointContext& c, int i) {
  MPI_Scatter(c.send(i), c.count, c.datatype, const_cast<void*>(c.in_place_at_root(i, c.recv(i))),
              c.count, c.datatype, c.root(i), c.comm);
}
void iscatter_in_place(PointContext& c, int i, MPI_Request* r) {
  MPI_Iscatter(c.send(i), c.count, c.datatype, const_cast<void*>(c.in_place_at_root(i, c.recv(i))),
               c.count, c.datatype, c.root(i), c.comm, r);
}
void scatterv_in_place(PointContext& c, int i) {
  MPI_Scatterv(c.send(i), c.counts.data(), c.displs.data(), c.datatype,
               const_cast<void*>(c.in_place_at_root(i, c.recv(i))), c.count, c.datatype, c.root(i),
               c.comm);
}
void iscatterv_in_place(PointContext& c, int i, MPI_Request* r) {
  MPI_Iscatterv(c.send(i), c.counts.data(), c.displs.data(), c.datatype,
                const_cast<void*>(c.in_place_at_root(i, c.recv(i))), c.count, c.datatype, c.root(i),
                c.comm, r);
}
void reduce_in_place(PointContext& c, int i) {
  MPI_Reduce(c.in_place_at_root(i, c.recv(i)), c.recv(i), c.count, c.datatype, MPI_SUM, c.root(i),
             c.comm);
}
void ireduce_in_place(PointContext& c, int i, MPI_Request* r) {
  MPI_Ireduce(c.in_place_at_root(i, c.recv(i)), c.recv(i), c.count, c.datatype, MPI_SUM, c.root(i),
              c.comm, r);
}

// -check: the input where the call reads it. The whole send buffer (as much as the receive
// buffer holds) for the calls that read all of theirs from the receive buffer; the rank's own
// block at its place for the gathers.
void whole_input(PointContext& c, int i) {
  std::memcpy(c.recv(i), c.send(i), std::min(c.buffers->shape().send, c.buffers->shape().recv));
}
void own_block(PointContext& c, int i) {
  const std::size_t at =
      c.displs.empty()
          ? static_cast<std::size_t>(c.rank) * c.bytes
          : static_cast<std::size_t>(c.displs[static_cast<std::size_t>(c.rank)]) * c.element_bytes;
  std::memcpy(c.recv(i) + at, c.send(i), c.bytes);
}
// A scatter's root receives nothing: its block stays where it was sent from.
std::vector<ExpectedBlock> scattered_to_others(const PointContext& c, int i) {
  if (c.rank == c.root(i)) return {};
  return {{0, c.root(i), static_cast<std::size_t>(c.rank) * c.bytes, c.bytes}};
}

using PairOn = std::pair<core::Benchmark, core::Benchmark> (*)(const core::Benchmark&, std::string);
struct InPlaceForm {
  const char* program;  // the blocking program; its non-blocking one has an "i" after "osu_"
  core::Kernel kernel;
  PairOn nonblocking;
  void (*prepare_check)(PointContext&, int);
  std::vector<ExpectedBlock> (*expected)(const PointContext&, int) = nullptr;  // nullptr: its own
};

const std::vector<InPlaceForm>& forms() {
  using imb::nbc::overlapped_pair_on;
  static const std::vector<InPlaceForm> list = {
      {"osu_allreduce", core::kernel<allreduce_in_place>(),
       &overlapped_pair_on<iallreduce_in_place>, whole_input},
      {"osu_reduce", core::kernel<reduce_in_place>(), &overlapped_pair_on<ireduce_in_place>,
       whole_input},
      {"osu_reduce_scatter", core::kernel<reduce_scatter_in_place>(),
       &overlapped_pair_on<ireduce_scatter_in_place>, whole_input},
      {"osu_reduce_scatter_block", core::kernel<reduce_scatter_block_in_place>(),
       &overlapped_pair_on<ireduce_scatter_block_in_place>, whole_input},
      {"osu_alltoall", core::kernel<alltoall_in_place>(), &overlapped_pair_on<ialltoall_in_place>,
       whole_input},
      {"osu_alltoallv", core::kernel<alltoallv_in_place>(),
       &overlapped_pair_on<ialltoallv_in_place>, whole_input},
      {"osu_alltoallw", core::kernel<alltoallw_in_place>(),
       &overlapped_pair_on<ialltoallw_in_place>, whole_input},
      {"osu_allgather", core::kernel<allgather_in_place>(),
       &overlapped_pair_on<iallgather_in_place>, own_block},
      {"osu_allgatherv", core::kernel<allgatherv_in_place>(),
       &overlapped_pair_on<iallgatherv_in_place>, own_block},
      {"osu_gather", core::kernel<gather_in_place>(), &overlapped_pair_on<igather_in_place>,
       own_block},
      {"osu_gatherv", core::kernel<gatherv_in_place>(), &overlapped_pair_on<igatherv_in_place>,
       own_block},
      {"osu_scatter", core::kernel<scatter_in_place>(), &overlapped_pair_on<iscatter_in_place>,
       nullptr, scattered_to_others},
      {"osu_scatterv", core::kernel<scatterv_in_place>(), &overlapped_pair_on<iscatterv_in_place>,
       nullptr, scattered_to_others},
  };
  return list;
}

// The form of a blocking, non-blocking or persistent program; nullptr if it has none.
const InPlaceForm* form_of(std::string_view program) {
  constexpr std::string_view kPersistentSuffix = "_persistent";
  if (program.ends_with(kPersistentSuffix)) program.remove_suffix(kPersistentSuffix.size());
  const std::string blocking = program.rfind("osu_i", 0) == 0
                                   ? "osu_" + std::string(program.substr(5))
                                   : std::string(program);
  for (const auto& f : forms())
    if (blocking == f.program) return &f;
  return nullptr;
}

// The blocking program's benchmark called in place.
core::Benchmark in_place_definition(const InPlaceForm& f) {
  core::Benchmark b = collective(f.program);
  b.kernel = f.kernel;
  b.prepare_check = f.prepare_check;
  if (f.expected) b.expected = f.expected;
  return b;
}
}  // namespace

bool has_in_place_form(const std::string& program) {
  return form_of(program) != nullptr;
}

core::Benchmark in_place_collective(const std::string& program) {
  const InPlaceForm* f = form_of(program);
  if (!f || program.rfind("osu_i", 0) == 0) throw std::logic_error("no -l form of " + program);
  return in_place_definition(*f);
}

std::pair<core::Benchmark, core::Benchmark> in_place_nonblocking_pair(const std::string& program) {
  const InPlaceForm* f = form_of(program);
  if (!f || program.rfind("osu_i", 0) != 0) throw std::logic_error("no -l form of " + program);
  return f->nonblocking(in_place_definition(*f), program);
}

}  // namespace mpiscope::osu
