// IMB-MPI1 reductions (guide 3.3.4.1–3.3.4.3): X/sizeof(float) floats, MPI_FLOAT with MPI_SUM.
#include "suites/imb/mpi1/benchmarks.hpp"

namespace mpiscope::imb::mpi1 {
namespace {
using core::ExpectedBlock;
using core::PointContext;
using Blocks = std::vector<ExpectedBlock>;

void reduce(PointContext& c, int i) {
  MPI_Reduce(c.send(i), c.recv(i), c.count, MPI_FLOAT, MPI_SUM, c.root(i), c.comm);
}
void allreduce(PointContext& c, int i) {
  MPI_Allreduce(c.send(i), c.recv(i), c.count, MPI_FLOAT, MPI_SUM, c.comm);
}
void reduce_scatter(PointContext& c, int i) {
  MPI_Reduce_scatter(c.send(i), c.recv(i), c.counts.data(), MPI_FLOAT, MPI_SUM, c.comm);
}

// L = r·np + s floats: ranks below s get r+1 of them, the others r (guide 3.3.4.2).
void split_evenly(PointContext& c) {
  const int r = c.count / c.nprocs, s = c.count % c.nprocs;
  int displ = 0;
  for (int rank = 0; rank < c.nprocs; ++rank) {
    c.counts.push_back(rank < s ? r + 1 : r);
    c.displs.push_back(displ);
    displ += c.counts.back();
  }
}

Blocks whole_sum(const PointContext& c) {
  return {{0, ExpectedBlock::kAllRanks, 0, c.count * sizeof(float)}};
}

core::Benchmark reduction(std::string name, core::Kernel kernel,
                          Blocks (*expected)(const PointContext&, int), bool rooted,
                          void (*prepare)(PointContext&) = nullptr) {
  core::Benchmark b;
  b.name = std::move(name);
  b.family = core::Family::Collective;
  b.datatype = core::Datatype::FloatSum;
  b.unit = sizeof(float);
  b.kernel = kernel;
  b.shape = [](std::size_t x, int, int) { return core::BufferShape{x, x}; };
  b.expected = expected;
  b.rooted = rooted;
  b.setup = prepare;
  return b;
}
}  // namespace

std::vector<core::Benchmark> reduction_benchmarks() {
  return {
      reduction(
          "Allreduce", core::kernel<allreduce>(),
          [](const PointContext& c, int) { return whole_sum(c); }, false),
      reduction(
          "Reduce", core::kernel<reduce>(),
          [](const PointContext& c, int i) {
            return c.rank == c.root(i) ? whole_sum(c) : Blocks{};
          },
          true),
      reduction(
          "Reduce_scatter", core::kernel<reduce_scatter>(),
          [](const PointContext& c, int) {
            const auto mine = static_cast<std::size_t>(c.rank);
            return Blocks{{0, ExpectedBlock::kAllRanks, c.displs[mine] * sizeof(float),
                           c.counts[mine] * sizeof(float)}};
          },
          false, split_evenly),
  };
}

}  // namespace mpiscope::imb::mpi1
