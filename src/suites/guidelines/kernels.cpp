// The collectives and their mock-ups (guidelines.hpp). Each kernel is the MPI calls of one
// repetition; the reductions sum MPI_FLOAT as IMB's do, the others move MPI_BYTE; roots are rank 0.
#include <mpi.h>

#include "suites/guidelines/guidelines.hpp"

namespace mpiscope::guidelines {
namespace {
using core::PointContext;

constexpr int kRoot = 0;

void allreduce(PointContext& c, int i) {
  MPI_Allreduce(c.send(i), c.recv(i), c.count, c.datatype, MPI_SUM, c.comm);
}
void reduce(PointContext& c, int i) {
  MPI_Reduce(c.send(i), c.recv(i), c.count, c.datatype, MPI_SUM, kRoot, c.comm);
}
void reduce_then_bcast(PointContext& c, int i) {
  reduce(c, i);
  MPI_Bcast(c.recv(i), c.count, c.datatype, kRoot, c.comm);
}
void bcast(PointContext& c, int i) {
  MPI_Bcast(c.recv(i), c.count, c.datatype, kRoot, c.comm);
}
// The root's X bytes in blocks (split_evenly), each rank's block to it, then every block to all.
void scatter_then_allgather(PointContext& c, int i) {
  std::byte* all = c.recv(i);
  const auto mine = static_cast<std::size_t>(c.rank);
  MPI_Scatterv(all, c.counts.data(), c.displs.data(), c.datatype,
               c.rank == kRoot ? MPI_IN_PLACE : all + c.displs[mine], c.counts[mine], c.datatype,
               kRoot, c.comm);
  MPI_Allgatherv(MPI_IN_PLACE, 0, c.datatype, all, c.counts.data(), c.displs.data(), c.datatype,
                 c.comm);
}
void gather(PointContext& c, int i) {
  MPI_Gather(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype, kRoot, c.comm);
}
void allgather(PointContext& c, int i) {
  MPI_Allgather(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype, c.comm);
}
void gather_then_bcast(PointContext& c, int i) {
  gather(c, i);
  MPI_Bcast(c.recv(i), c.count * c.nprocs, c.datatype, kRoot, c.comm);
}
void scatter(PointContext& c, int i) {
  MPI_Scatter(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype, kRoot, c.comm);
}
// Every rank gets all n blocks of X bytes and keeps its own.
void bcast_every_block(PointContext& c, int i) {
  MPI_Bcast(c.rank == kRoot ? c.send(i) : c.recv(i), c.count * c.nprocs, c.datatype, kRoot, c.comm);
}
void alltoall(PointContext& c, int i) {
  MPI_Alltoall(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype, c.comm);
}
void isend_irecv_to_every_rank(PointContext& c, int i) {
  thread_local std::vector<MPI_Request> requests;
  requests.resize(2 * static_cast<std::size_t>(c.nprocs));
  const std::size_t block = static_cast<std::size_t>(c.count) * c.element_bytes;
  for (int r = 0; r < c.nprocs; ++r) {
    const auto at = static_cast<std::size_t>(r);
    MPI_Irecv(c.recv(i) + at * block, c.count, c.datatype, r, 0, c.comm, &requests[2 * at]);
    MPI_Isend(c.send(i) + at * block, c.count, c.datatype, r, 0, c.comm, &requests[2 * at + 1]);
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}
void reduce_scatter_block(PointContext& c, int i) {
  MPI_Reduce_scatter_block(c.send(i), c.recv(i), c.count, c.datatype, MPI_SUM, c.comm);
}
// The n blocks reduced to the root (into the receive buffer), then each block to its rank.
void reduce_then_scatter(PointContext& c, int i) {
  MPI_Reduce(c.send(i), c.recv(i), c.count * c.nprocs, c.datatype, MPI_SUM, kRoot, c.comm);
  MPI_Scatter(c.recv(i), c.count, c.datatype, c.rank == kRoot ? MPI_IN_PLACE : c.recv(i), c.count,
              c.datatype, kRoot, c.comm);
}

core::BufferShape x_and_x(std::size_t x, int, int) {
  return {x, x};
}
core::BufferShape x_and_all(std::size_t x, int n, int) {
  return {x, static_cast<std::size_t>(n) * x};
}
core::BufferShape all_and_all(std::size_t x, int n, int) {
  return {static_cast<std::size_t>(n) * x, static_cast<std::size_t>(n) * x};
}
core::BufferShape all_and_x(std::size_t x, int n, int) {
  return {static_cast<std::size_t>(n) * x, x};
}

struct Spec {
  const char* name;
  core::Kernel kernel;
  core::BufferShape (*shape)(std::size_t, int, int);
  bool sum = false;
  void (*setup)(PointContext&) = nullptr;
};

core::Benchmark benchmark_of(const Spec& s) {
  core::Benchmark b;
  b.name = s.name;
  b.family = core::Family::Collective;
  b.datatype = s.sum ? core::Datatype::FloatSum : core::Datatype::Byte;
  b.unit = s.sum ? sizeof(float) : 1;
  b.kernel = s.kernel;
  b.shape = s.shape;
  b.setup = s.setup;
  return b;
}

}  // namespace

const std::vector<core::Benchmark>& benchmarks() {
  static const std::vector<core::Benchmark> list = [] {
    const Spec specs[] = {
        {.name = "Allreduce", .kernel = core::kernel<allreduce>(), .shape = x_and_x, .sum = true},
        {.name = "Reduce + Bcast",
         .kernel = core::kernel<reduce_then_bcast>(),
         .shape = x_and_x,
         .sum = true},
        {.name = "Reduce", .kernel = core::kernel<reduce>(), .shape = x_and_x, .sum = true},
        {.name = "Bcast", .kernel = core::kernel<bcast>(), .shape = x_and_x},
        {.name = "Scatter + Allgather",
         .kernel = core::kernel<scatter_then_allgather>(),
         .shape = x_and_x,
         .setup = core::split_evenly},
        {.name = "Gather", .kernel = core::kernel<gather>(), .shape = x_and_all},
        {.name = "Allgather", .kernel = core::kernel<allgather>(), .shape = x_and_all},
        {.name = "Gather + Bcast", .kernel = core::kernel<gather_then_bcast>(), .shape = x_and_all},
        {.name = "Scatter", .kernel = core::kernel<scatter>(), .shape = all_and_x},
        {.name = "Bcast of every block",
         .kernel = core::kernel<bcast_every_block>(),
         .shape = all_and_all},
        {.name = "Alltoall", .kernel = core::kernel<alltoall>(), .shape = all_and_all},
        {.name = "Isend/Irecv to every rank",
         .kernel = core::kernel<isend_irecv_to_every_rank>(),
         .shape = all_and_all},
        {.name = "Reduce_scatter_block",
         .kernel = core::kernel<reduce_scatter_block>(),
         .shape = all_and_x,
         .sum = true},
        {.name = "Reduce + Scatter",
         .kernel = core::kernel<reduce_then_scatter>(),
         .shape = all_and_all,
         .sum = true},
    };
    std::vector<core::Benchmark> out;
    for (const auto& s : specs) out.push_back(benchmark_of(s));
    return out;
  }();
  return list;
}

const std::vector<Guideline>& all_guidelines() {
  static const std::vector<Guideline> list = {
      {"Allreduce", "Reduce + Bcast"},           {"Reduce", "Allreduce"},
      {"Bcast", "Scatter + Allgather"},          {"Gather", "Allgather"},
      {"Allgather", "Gather + Bcast"},           {"Scatter", "Bcast of every block"},
      {"Alltoall", "Isend/Irecv to every rank"}, {"Reduce_scatter_block", "Reduce + Scatter"},
  };
  return list;
}

}  // namespace mpiscope::guidelines
