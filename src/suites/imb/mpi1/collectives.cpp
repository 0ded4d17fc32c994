// IMB-MPI1 data-movement collectives (guide 3.3.4.4–3.3.4.13), on the benchmark's datatype
// (MPI_BYTE; OSU's -T type); rooted ones keep their root at 0 (current IMB's default) or, under
// -root_shift on, move it round robin as IMB 3.1 did (root = i % nprocs in repetition i). Each
// kernel is the one MPI call.
#include "suites/imb/mpi1/benchmarks.hpp"

namespace mpiscope::imb::mpi1 {
namespace {
using core::ExpectedBlock;
using core::PointContext;
using Blocks = std::vector<ExpectedBlock>;

int root_of(const PointContext& c, int i) {
  return c.root(i);
}

void bcast(PointContext& c, int i) {
  const int root = root_of(c, i);
  MPI_Bcast(c.rank == root ? c.send(i) : c.recv(i), c.count, c.datatype, root, c.comm);
}
void allgather(PointContext& c, int i) {
  MPI_Allgather(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype, c.comm);
}
void allgatherv(PointContext& c, int i) {
  MPI_Allgatherv(c.send(i), c.count, c.datatype, c.recv(i), c.counts.data(), c.displs.data(),
                 c.datatype, c.comm);
}
void scatter(PointContext& c, int i) {
  MPI_Scatter(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype, root_of(c, i),
              c.comm);
}
void scatterv(PointContext& c, int i) {
  MPI_Scatterv(c.send(i), c.counts.data(), c.displs.data(), c.datatype, c.recv(i), c.count,
               c.datatype, root_of(c, i), c.comm);
}
void gather(PointContext& c, int i) {
  MPI_Gather(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype, root_of(c, i), c.comm);
}
void gatherv(PointContext& c, int i) {
  MPI_Gatherv(c.send(i), c.count, c.datatype, c.recv(i), c.counts.data(), c.displs.data(),
              c.datatype, root_of(c, i), c.comm);
}
void alltoall(PointContext& c, int i) {
  MPI_Alltoall(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype, c.comm);
}
void alltoallv(PointContext& c, int i) {
  MPI_Alltoallv(c.send(i), c.counts.data(), c.displs.data(), c.datatype, c.recv(i), c.counts.data(),
                c.displs.data(), c.datatype, c.comm);
}
void barrier(PointContext& c, int) {
  MPI_Barrier(c.comm);
}

// The v-variants move the same data as their plain twins: X bytes per rank, blocks in rank order.
void uniform_blocks(PointContext& c) {
  for (int r = 0; r < c.nprocs; ++r) {
    c.counts.push_back(c.count);
    c.displs.push_back(r * c.count);
  }
}

// Receive buffer holds one X-byte block from every rank, in rank order.
Blocks block_per_rank(const PointContext& c, bool from_my_slot) {
  Blocks b;
  for (int r = 0; r < c.nprocs; ++r)
    b.push_back({r * c.bytes, r, from_my_slot ? c.rank * c.bytes : 0, c.bytes});
  return b;
}

core::BufferShape same(std::size_t x, int, int) {
  return {x, x};
}
core::BufferShape gathered(std::size_t x, int n, int) {
  return {x, n * x};
}
core::BufferShape scattered(std::size_t x, int n, int) {
  return {n * x, x};
}
core::BufferShape all_to_all(std::size_t x, int n, int) {
  return {n * x, n * x};
}

core::Benchmark collective(std::string name, core::Kernel kernel,
                           core::BufferShape (*shape)(std::size_t, int, int),
                           Blocks (*expected)(const PointContext&, int), bool rooted,
                           void (*prepare)(PointContext&) = nullptr) {
  core::Benchmark b;
  b.name = std::move(name);
  b.family = core::Family::Collective;
  b.kernel = kernel;
  b.shape = shape;
  b.expected = expected;
  b.rooted = rooted;
  b.setup = prepare;
  return b;
}

Blocks bcast_expected(const PointContext& c, int i) {
  if (c.rank == root_of(c, i)) return {};
  return {{0, root_of(c, i), 0, c.bytes}};
}
Blocks allgather_expected(const PointContext& c, int) {
  return block_per_rank(c, false);
}
Blocks scatter_expected(const PointContext& c, int i) {
  return {{0, root_of(c, i), c.rank * c.bytes, c.bytes}};
}
Blocks gather_expected(const PointContext& c, int i) {
  return c.rank == root_of(c, i) ? block_per_rank(c, false) : Blocks{};
}
Blocks alltoall_expected(const PointContext& c, int) {
  return block_per_rank(c, true);
}
}  // namespace

std::vector<core::Benchmark> collective_benchmarks() {
  std::vector<core::Benchmark> list = {
      collective("Allgather", core::kernel<allgather>(), gathered, allgather_expected, false),
      collective("Allgatherv", core::kernel<allgatherv>(), gathered, allgather_expected, false,
                 uniform_blocks),
      collective("Gather", core::kernel<gather>(), gathered, gather_expected, true),
      collective("Gatherv", core::kernel<gatherv>(), gathered, gather_expected, true,
                 uniform_blocks),
      collective("Scatter", core::kernel<scatter>(), scattered, scatter_expected, true),
      collective("Scatterv", core::kernel<scatterv>(), scattered, scatter_expected, true,
                 uniform_blocks),
      collective("Alltoall", core::kernel<alltoall>(), all_to_all, alltoall_expected, false),
      collective("Alltoallv", core::kernel<alltoallv>(), all_to_all, alltoall_expected, false,
                 uniform_blocks),
      collective("Bcast", core::kernel<bcast>(), same, bcast_expected, true),
      collective(
          "Barrier", core::kernel<barrier>(),
          [](std::size_t, int, int) { return core::BufferShape{}; }, nullptr, false),
  };
  list.back().sized = false;
  return list;
}

}  // namespace mpiscope::imb::mpi1
