// IMB-MPI1 reductions (guide 3.3.4.1–3.3.4.3): X/sizeof(float) floats, MPI_FLOAT with MPI_SUM;
// and current IMB's Reduce_scatter_block and Reduce_local, which run only when named. The kernels
// reduce the benchmark's element (PointContext::datatype): OSU's programs run them on MPI_CHAR.
// The operation is PointContext::op: MPI_SUM, or IMB's own sum under -contig_type.
#include "suites/imb/mpi1/benchmarks.hpp"

namespace mpiscope::imb::mpi1 {
namespace {
using core::ExpectedBlock;
using core::PointContext;
using Blocks = std::vector<ExpectedBlock>;

void reduce(PointContext& c, int i) {
  MPI_Reduce(c.send(i), c.recv(i), c.count, c.datatype, c.op, c.root(i), c.comm);
}
void allreduce(PointContext& c, int i) {
  MPI_Allreduce(c.send(i), c.recv(i), c.count, c.datatype, c.op, c.comm);
}
void reduce_scatter(PointContext& c, int i) {
  MPI_Reduce_scatter(c.send(i), c.recv(i), c.counts.data(), c.datatype, c.op, c.comm);
}
// Current IMB: every process receives a block of X bytes (X/4 floats) of the reduced np·X.
void reduce_scatter_block(PointContext& c, int i) {
  MPI_Reduce_scatter_block(c.send(i), c.recv(i), c.count, c.datatype, c.op, c.comm);
}
// Current IMB: the local reduction alone, recv += send on every process, no communication.
void reduce_local(PointContext& c, int i) {
  MPI_Reduce_local(c.send(i), c.recv(i), c.count, c.datatype, c.op);
}

Blocks whole_sum(const PointContext& c) {
  return {{0, ExpectedBlock::kAllRanks, 0, static_cast<std::size_t>(c.count) * c.element_bytes}};
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
// A benchmark of current IMB: off IMB 3.1's default list, with its own buffer shape if given.
core::Benchmark later_imb(core::Benchmark b,
                          core::BufferShape (*shape)(std::size_t, int, int) = nullptr) {
  b.in_default_list = false;
  if (shape) b.shape = shape;
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
            return Blocks{{0, ExpectedBlock::kAllRanks,
                           static_cast<std::size_t>(c.displs[mine]) * c.element_bytes,
                           static_cast<std::size_t>(c.counts[mine]) * c.element_bytes}};
          },
          false, core::split_evenly),
      later_imb(reduction(
                    "Reduce_scatter_block", core::kernel<reduce_scatter_block>(),
                    [](const PointContext& c, int) {
                      return Blocks{{0, ExpectedBlock::kAllRanks,
                                     static_cast<std::size_t>(c.rank) * c.bytes, c.bytes}};
                    },
                    false),
                [](std::size_t x, int np, int) {
                  return core::BufferShape{x * static_cast<std::size_t>(np), x};
                }),
      // -check starts from a zeroed receive buffer: one local sum leaves the rank's own floats.
      later_imb(reduction(
          "Reduce_local", core::kernel<reduce_local>(),
          [](const PointContext& c, int) {
            return Blocks{{0, ExpectedBlock::kOwnFloats, 0, c.bytes}};
          },
          false)),
  };
}

}  // namespace mpiscope::imb::mpi1
