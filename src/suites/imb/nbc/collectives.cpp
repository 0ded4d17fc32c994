// IMB-NBC's non-blocking collectives (current Intel IMB). Each is the blocking IMB-MPI1 collective
// of the same operation with the call replaced: buffer shapes, counts and displacements, roots and
// the data -check expects are taken from that benchmark's definition, not repeated here. Two
// kernels per operation: _pure starts it and waits at once (t_pure); the overlapped one runs
// CPU_Exploit, sized by the engine to this rank's t_pure, between the start and the wait.
//
// Differences from IMB-MPI1 that are current IMB's: Ireduce_scatter gives every process X bytes
// of the reduced np·X (as Reduce_scatter_block), where IMB 3.1's Reduce_scatter splits X.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "suites/imb/mpi1/benchmarks.hpp"
#include "suites/imb/nbc/benchmarks.hpp"

namespace mpiscope::imb::nbc {
namespace {
using core::PointContext;

void ibcast(PointContext& c, int i, MPI_Request* r) {
  const int root = c.root(i);
  MPI_Ibcast(c.rank == root ? c.send(i) : c.recv(i), c.count, c.datatype, root, c.comm, r);
}
void iallgather(PointContext& c, int i, MPI_Request* r) {
  MPI_Iallgather(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype, c.comm, r);
}
void iallgatherv(PointContext& c, int i, MPI_Request* r) {
  MPI_Iallgatherv(c.send(i), c.count, c.datatype, c.recv(i), c.counts.data(), c.displs.data(),
                  c.datatype, c.comm, r);
}
void igather(PointContext& c, int i, MPI_Request* r) {
  MPI_Igather(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype, c.root(i), c.comm, r);
}
void igatherv(PointContext& c, int i, MPI_Request* r) {
  MPI_Igatherv(c.send(i), c.count, c.datatype, c.recv(i), c.counts.data(), c.displs.data(),
               c.datatype, c.root(i), c.comm, r);
}
void iscatter(PointContext& c, int i, MPI_Request* r) {
  MPI_Iscatter(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype, c.root(i), c.comm,
               r);
}
void iscatterv(PointContext& c, int i, MPI_Request* r) {
  MPI_Iscatterv(c.send(i), c.counts.data(), c.displs.data(), c.datatype, c.recv(i), c.count,
                c.datatype, c.root(i), c.comm, r);
}
void ialltoall(PointContext& c, int i, MPI_Request* r) {
  MPI_Ialltoall(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype, c.comm, r);
}
void ialltoallv(PointContext& c, int i, MPI_Request* r) {
  MPI_Ialltoallv(c.send(i), c.counts.data(), c.displs.data(), c.datatype, c.recv(i),
                 c.counts.data(), c.displs.data(), c.datatype, c.comm, r);
}
void ireduce(PointContext& c, int i, MPI_Request* r) {
  MPI_Ireduce(c.send(i), c.recv(i), c.count, c.datatype, MPI_SUM, c.root(i), c.comm, r);
}
void ireduce_scatter(PointContext& c, int i, MPI_Request* r) {
  MPI_Ireduce_scatter(c.send(i), c.recv(i), c.counts.data(), c.datatype, MPI_SUM, c.comm, r);
}
void iallreduce(PointContext& c, int i, MPI_Request* r) {
  MPI_Iallreduce(c.send(i), c.recv(i), c.count, c.datatype, MPI_SUM, c.comm, r);
}
void ibarrier(PointContext& c, int, MPI_Request* r) {
  MPI_Ibarrier(c.comm, r);
}

const core::Benchmark& blocking(std::string_view name) {
  const auto& all = mpi1::all_benchmarks();
  const auto it = std::find_if(all.begin(), all.end(),
                               [&](const core::Benchmark& b) { return b.name == name; });
  if (it == all.end())
    throw std::logic_error("IMB-NBC: no IMB-MPI1 benchmark " + std::string(name));
  return *it;
}

// The operation as its overlapped benchmark and its _pure variant, on `like`'s definition;
// `counts_from` lends its counts set-up when `like` has another one.
template <StartFn Start>
void add_pair(std::vector<core::Benchmark>& list, std::string name, std::string_view like,
              std::string_view counts_from = {}) {
  core::Benchmark definition = blocking(like);
  if (!counts_from.empty()) definition.setup = blocking(counts_from).setup;
  auto [overlapped, pure] = overlapped_pair_on<Start>(definition, std::move(name));
  list.push_back(std::move(overlapped));
  list.push_back(std::move(pure));
}
}  // namespace

std::pair<core::Benchmark, core::Benchmark> pair_on(const core::Benchmark& definition,
                                                    std::string name,
                                                    core::Kernel overlapped_kernel,
                                                    core::Kernel pure_kernel) {
  core::Benchmark overlapped = definition;
  overlapped.in_default_list = true;
  overlapped.overlap_method = core::OverlapMethod::WorkSizedToPure;
  overlapped.blocking_twin = nullptr;
  core::Benchmark pure = overlapped;
  overlapped.name = name;
  overlapped.kernel = overlapped_kernel;
  pure.name = name + "_pure";
  pure.kernel = pure_kernel;
  pure.in_default_list = false;  // IMB-NBC runs the _pure variants only when named
  return {std::move(overlapped), std::move(pure)};
}

std::vector<core::Benchmark> collective_benchmarks() {
  std::vector<core::Benchmark> list;
  add_pair<ibcast>(list, "Ibcast", "Bcast");
  add_pair<iallgather>(list, "Iallgather", "Allgather");
  add_pair<iallgatherv>(list, "Iallgatherv", "Allgatherv");
  add_pair<igather>(list, "Igather", "Gather");
  add_pair<igatherv>(list, "Igatherv", "Gatherv");
  add_pair<iscatter>(list, "Iscatter", "Scatter");
  add_pair<iscatterv>(list, "Iscatterv", "Scatterv");
  add_pair<ialltoall>(list, "Ialltoall", "Alltoall");
  add_pair<ialltoallv>(list, "Ialltoallv", "Alltoallv");
  add_pair<ireduce>(list, "Ireduce", "Reduce");
  // X/4 floats to every process, as Reduce_scatter_block; the count list of Allgatherv.
  add_pair<ireduce_scatter>(list, "Ireduce_scatter", "Reduce_scatter_block", "Allgatherv");
  add_pair<iallreduce>(list, "Iallreduce", "Allreduce");
  add_pair<ibarrier>(list, "Ibarrier", "Barrier");
  return list;
}

std::pair<core::Benchmark, core::Benchmark> overlapped_pair(std::string_view name,
                                                            std::string_view definition) {
  const auto& all = all_benchmarks();
  const auto it = std::find_if(all.begin(), all.end(), [&](const core::Benchmark& b) {
    return b.name == name && b.blocking_twin != nullptr;
  });
  if (it == all.end()) throw std::logic_error("IMB-NBC has no " + std::string(name));
  if (definition.empty()) {
    std::pair<core::Benchmark, core::Benchmark> copies{*it, *it->blocking_twin};
    copies.first.blocking_twin = nullptr;
    return copies;
  }
  return pair_on(blocking(definition), it->name, it->kernel, it->blocking_twin->kernel);
}

}  // namespace mpiscope::imb::nbc
