// A process topology for the neighbourhood collectives (OSU 7.4's -N): a periodic Cartesian grid
// of D dimensions in MPI_Dims_create's shape, each process's neighbours those within R steps in
// every dimension; or a directed graph read from a file of "source,destination" edges.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mpiscope::core {

struct Neighbourhood {
  enum class Kind { Cartesian, Graph };
  Kind kind = Kind::Cartesian;
  int dimensions = 1, radius = 1;          // Cartesian
  std::vector<std::pair<int, int>> edges;  // Graph: source → destination, in the file's order
  std::string text = "cart:1:1";           // as the user gave it (the run's setting)
};

struct Neighbours {
  std::vector<int> sources;       // whose data a process receives, block k from sources[k]
  std::vector<int> destinations;  // whom block j of its send buffer goes to
};

// Every process's neighbours on `nprocs` processes, in OSU 7.4's order (omb_neighborhood_create):
// Cartesian, the displacement vectors from (−R, …, −R) to (R, …, R), the last dimension fastest,
// the process itself left out, the same list as sources and destinations; a graph, each process's
// edges in the file's order. Throws std::invalid_argument when the topology does not fit: a
// radius above (smallest dimension − 1) / 2 (neighbours would repeat), a graph node that is no
// process, or an edge given twice or from a process to itself.
std::vector<Neighbours> neighbours_of(const Neighbourhood& n, int nprocs);
// MPI_Dims_create's shape of `nprocs` processes in `dimensions` dimensions.
std::vector<int> cartesian_shape(int nprocs, int dimensions);
// "cart:D:R" or "graph:FILE" as OSU 7.4's -N takes it (the file's lines "source,destination",
// '#' comments); throws std::invalid_argument naming what is wrong.
Neighbourhood parse_neighbourhood(const std::string& text);

}  // namespace mpiscope::core
