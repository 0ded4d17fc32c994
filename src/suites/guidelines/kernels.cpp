// The mock-ups (guidelines.hpp) and the collectives they are held against. A collective is
// IMB-MPI1's own benchmark of it (its kernel is the one MPI call; the guidelines run with
// root_shift off, so its root is rank 0); a mock-up is the MPI calls of one repetition below,
// reducing MPI_FLOAT with MPI_SUM as IMB's reductions do and moving MPI_BYTE otherwise, roots at
// rank 0.
#include <mpi.h>

#include <algorithm>
#include <stdexcept>

#include "suites/guidelines/guidelines.hpp"
#include "suites/imb/mpi1/benchmarks.hpp"

namespace mpiscope::guidelines {
namespace {
using core::PointContext;

constexpr int kRoot = 0;

void reduce_then_bcast(PointContext& c, int i) {
  MPI_Reduce(c.send(i), c.recv(i), c.count, c.datatype, MPI_SUM, kRoot, c.comm);
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
void gather_then_bcast(PointContext& c, int i) {
  MPI_Gather(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype, kRoot, c.comm);
  MPI_Bcast(c.recv(i), c.count * c.nprocs, c.datatype, kRoot, c.comm);
}
// Every rank gets all n blocks of X bytes and keeps its own.
void bcast_every_block(PointContext& c, int i) {
  MPI_Bcast(c.rank == kRoot ? c.send(i) : c.recv(i), c.count * c.nprocs, c.datatype, kRoot, c.comm);
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

struct MockUp {
  const char* name;
  core::Kernel kernel;
  core::BufferShape (*shape)(std::size_t, int, int);
  bool sum = false;
  void (*setup)(PointContext&) = nullptr;
};

core::Benchmark benchmark_of(const MockUp& m) {
  core::Benchmark b;
  b.name = m.name;
  b.family = core::Family::Collective;
  b.datatype = m.sum ? core::Datatype::FloatSum : core::Datatype::Byte;
  b.unit = m.sum ? sizeof(float) : 1;
  b.kernel = m.kernel;
  b.shape = m.shape;
  b.setup = m.setup;
  return b;
}

core::Benchmark imb_benchmark(const std::string& name) {
  for (const auto& b : imb::mpi1::all_benchmarks())
    if (b.name == name) return b;
  throw std::logic_error("guidelines: IMB-MPI1 has no benchmark " + name);
}

}  // namespace

const std::vector<core::Benchmark>& benchmarks() {
  static const std::vector<core::Benchmark> list = [] {
    const MockUp mock_ups[] = {
        {.name = "Reduce + Bcast",
         .kernel = core::kernel<reduce_then_bcast>(),
         .shape = x_and_x,
         .sum = true},
        {.name = "Scatter + Allgather",
         .kernel = core::kernel<scatter_then_allgather>(),
         .shape = x_and_x,
         .setup = core::split_evenly},
        {.name = "Gather + Bcast", .kernel = core::kernel<gather_then_bcast>(), .shape = x_and_all},
        {.name = "Bcast of every block",
         .kernel = core::kernel<bcast_every_block>(),
         .shape = all_and_all},
        {.name = "Isend/Irecv to every rank",
         .kernel = core::kernel<isend_irecv_to_every_rank>(),
         .shape = all_and_all},
        {.name = "Reduce + Scatter",
         .kernel = core::kernel<reduce_then_scatter>(),
         .shape = all_and_all,
         .sum = true},
    };
    std::vector<core::Benchmark> out;
    for (const auto& g : all_guidelines()) {
      const auto named = [&](const std::string& n) {
        return std::any_of(out.begin(), out.end(), [&](const auto& b) { return b.name == n; });
      };
      for (const auto& name : {g.collective, g.mock_up}) {
        if (named(name)) continue;
        const auto own = std::find_if(std::begin(mock_ups), std::end(mock_ups),
                                      [&](const MockUp& m) { return name == m.name; });
        out.push_back(own != std::end(mock_ups) ? benchmark_of(*own) : imb_benchmark(name));
      }
    }
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
