// OSU 7.4's neighbourhood collectives (c/mpi/collective/neighborhood): MPI_Neighbor_allgather(v)
// and MPI_Neighbor_alltoall(v,w), blocking and not, over a distributed-graph communicator made
// from -N's topology (core::Neighbourhood: a periodic Cartesian grid of radius R, or a graph
// file) by MPI_Dist_graph_create_adjacent with each process's sources and destinations, as
// OSU's omb_neighborhood_create lists them. Buffers, timing and -c are osu_allgather's and
// osu_alltoall's (collectives.cpp), with the blocks coming from the neighbours: block k of the
// receive buffer from sources[k]; block j of the send buffer to destinations[j].
#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "suites/imb/nbc/benchmarks.hpp"
#include "suites/osu/osu.hpp"

namespace mpiscope::osu {
namespace {
using core::ExpectedBlock;
using core::PointContext;

const core::Neighbours& mine(const PointContext& c) {
  return c.neighbours[static_cast<std::size_t>(c.rank)];
}

// The distributed-graph communicator of one process's neighbours (unweighted, not reordered).
MPI_Comm graph_communicator(MPI_Comm comm, const core::Neighbours& n) {
  MPI_Comm graph = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(comm, static_cast<int>(n.sources.size()), n.sources.data(),
                                 MPI_UNWEIGHTED, static_cast<int>(n.destinations.size()),
                                 n.destinations.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
  return graph;
}

// The communicator, and the v- and w-forms' counts and displacements: every neighbour's block X
// bytes, k·X from the start (one array serves both directions: each entry is the same). Under
// -D a block is one derived type: the v-forms place block k at k extents of it, as the plain
// forms do; the w-form's byte displacements are message slots apart (what the type reaches).
void make_neighbourhood(PointContext& c) {
  c.neighbours = core::neighbours_of(*c.neighbourhood, c.nprocs);
  const auto& n = mine(c);
  c.neighbour_comm = graph_communicator(c.comm, n);
  const std::size_t blocks = std::max(n.sources.size(), n.destinations.size());
  for (std::size_t k = 0; k < blocks; ++k) {
    c.counts.push_back(c.count);
    c.displs.push_back(static_cast<int>(k) * c.count);
    c.byte_displs.push_back(static_cast<MPI_Aint>(k * c.message_slot()));
    c.types.push_back(c.datatype);
  }
}
void free_neighbourhood(PointContext& c) {
  if (c.neighbour_comm != MPI_COMM_NULL) MPI_Comm_free(&c.neighbour_comm);
  c.byte_displs.clear();
}

// Block k from sources[k]: its send buffer's first X bytes (allgather), or the block it sends
// this process, the j-th of its destinations (alltoall).
std::vector<ExpectedBlock> gathered_from_neighbours(const PointContext& c, int) {
  std::vector<ExpectedBlock> blocks;
  const auto& sources = mine(c).sources;
  for (std::size_t k = 0; k < sources.size(); ++k)
    blocks.push_back({k * c.bytes, sources[k], 0, c.bytes});
  return blocks;
}
std::vector<ExpectedBlock> exchanged_with_neighbours(const PointContext& c, int) {
  std::vector<ExpectedBlock> blocks;
  const auto& sources = mine(c).sources;
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const auto& theirs = c.neighbours[static_cast<std::size_t>(sources[k])].destinations;
    const auto j =
        static_cast<std::size_t>(std::find(theirs.begin(), theirs.end(), c.rank) - theirs.begin());
    blocks.push_back({k * c.bytes, sources[k], j * c.bytes, c.bytes});
  }
  return blocks;
}

void neighbor_allgather(PointContext& c, int i) {
  MPI_Neighbor_allgather(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype,
                         c.neighbour_comm);
}
void neighbor_allgatherv(PointContext& c, int i) {
  MPI_Neighbor_allgatherv(c.send(i), c.count, c.datatype, c.recv(i), c.counts.data(),
                          c.displs.data(), c.datatype, c.neighbour_comm);
}
void neighbor_alltoall(PointContext& c, int i) {
  MPI_Neighbor_alltoall(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype,
                        c.neighbour_comm);
}
void neighbor_alltoallv(PointContext& c, int i) {
  MPI_Neighbor_alltoallv(c.send(i), c.counts.data(), c.displs.data(), c.datatype, c.recv(i),
                         c.counts.data(), c.displs.data(), c.datatype, c.neighbour_comm);
}
void neighbor_alltoallw(PointContext& c, int i) {
  MPI_Neighbor_alltoallw(c.send(i), c.counts.data(), c.byte_displs.data(), c.types.data(),
                         c.recv(i), c.counts.data(), c.byte_displs.data(), c.types.data(),
                         c.neighbour_comm);
}
void ineighbor_allgather(PointContext& c, int i, MPI_Request* r) {
  MPI_Ineighbor_allgather(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype,
                          c.neighbour_comm, r);
}
void ineighbor_allgatherv(PointContext& c, int i, MPI_Request* r) {
  MPI_Ineighbor_allgatherv(c.send(i), c.count, c.datatype, c.recv(i), c.counts.data(),
                           c.displs.data(), c.datatype, c.neighbour_comm, r);
}
void ineighbor_alltoall(PointContext& c, int i, MPI_Request* r) {
  MPI_Ineighbor_alltoall(c.send(i), c.count, c.datatype, c.recv(i), c.count, c.datatype,
                         c.neighbour_comm, r);
}
void ineighbor_alltoallv(PointContext& c, int i, MPI_Request* r) {
  MPI_Ineighbor_alltoallv(c.send(i), c.counts.data(), c.displs.data(), c.datatype, c.recv(i),
                          c.counts.data(), c.displs.data(), c.datatype, c.neighbour_comm, r);
}
void ineighbor_alltoallw(PointContext& c, int i, MPI_Request* r) {
  MPI_Ineighbor_alltoallw(c.send(i), c.counts.data(), c.byte_displs.data(), c.types.data(),
                          c.recv(i), c.counts.data(), c.byte_displs.data(), c.types.data(),
                          c.neighbour_comm, r);
}

struct NeighbourhoodForm {
  std::string_view name;  // the blocking program's
  std::string_view like;  // the OSU program whose buffers it has
  core::Kernel kernel;
  std::pair<core::Benchmark, core::Benchmark> (*overlapped)(const core::Benchmark&, std::string);
};
const NeighbourhoodForm kNeighbourhoodForms[] = {
    {"osu_neighbor_allgather", "osu_allgather", core::kernel<neighbor_allgather>(),
     &imb::nbc::overlapped_pair_on<ineighbor_allgather>},
    {"osu_neighbor_allgatherv", "osu_allgather", core::kernel<neighbor_allgatherv>(),
     &imb::nbc::overlapped_pair_on<ineighbor_allgatherv>},
    {"osu_neighbor_alltoall", "osu_alltoall", core::kernel<neighbor_alltoall>(),
     &imb::nbc::overlapped_pair_on<ineighbor_alltoall>},
    {"osu_neighbor_alltoallv", "osu_alltoall", core::kernel<neighbor_alltoallv>(),
     &imb::nbc::overlapped_pair_on<ineighbor_alltoallv>},
    {"osu_neighbor_alltoallw", "osu_alltoall", core::kernel<neighbor_alltoallw>(),
     &imb::nbc::overlapped_pair_on<ineighbor_alltoallw>}};

const NeighbourhoodForm& neighbourhood_form(std::string_view blocking) {
  for (const NeighbourhoodForm& f : kNeighbourhoodForms)
    if (f.name == blocking) return f;
  throw std::logic_error("no neighbourhood collective " + std::string(blocking));
}
}  // namespace

bool is_neighbourhood_collective(const std::string& program) {
  return program.find("neighbor_") != std::string::npos;
}

core::Benchmark neighbourhood_collective(const std::string& program) {
  const NeighbourhoodForm& f = neighbourhood_form(program);
  core::Benchmark b = collective(std::string(f.like));
  b.name = program;
  b.kernel = f.kernel;
  b.setup = make_neighbourhood;
  b.release = free_neighbourhood;
  b.expected = f.like == "osu_allgather" ? gathered_from_neighbours : exchanged_with_neighbours;
  return b;
}

std::string topology_lines(const core::Neighbourhood& n, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const auto all = core::neighbours_of(n, size);
  std::string lines;
  if (n.kind == core::Neighbourhood::Kind::Cartesian) {
    lines = "Dimensions size = ";
    for (const int d : core::cartesian_shape(size, n.dimensions)) lines += fmt::format("{} ", d);
    lines += "\n";
  }
  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  MPI_Comm graph = graph_communicator(comm, all[static_cast<std::size_t>(rank)]);
  const double seconds = MPI_Wtime() - start;
  MPI_Comm_free(&graph);
  double sum = 0;
  MPI_Reduce(&seconds, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  return lines + fmt::format("Time took to create topology graph:{:.2f} us.\n", sum * 1e6 / size);
}

std::pair<core::Benchmark, core::Benchmark> neighbourhood_nonblocking_pair(
    const std::string& program) {
  const std::string blocking = "osu_" + program.substr(std::string("osu_i").size());
  return neighbourhood_form(blocking).overlapped(neighbourhood_collective(blocking), program);
}

}  // namespace mpiscope::osu
