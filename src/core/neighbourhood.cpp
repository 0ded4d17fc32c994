#include "core/neighbourhood.hpp"

#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include "core/input_file.hpp"
#include "core/text.hpp"

namespace mpiscope::core {
namespace {

// A whole number (no sign) of the text into `out`; false when the text is none.
bool read_int(const std::string& text, int& out) {
  const std::string t = trim(text);
  if (t.empty() || t.size() > 9 || !std::all_of(t.begin(), t.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      }))
    return false;
  out = std::atoi(t.c_str());
  return true;
}

std::vector<std::pair<int, int>> read_edges(const std::string& path) {
  InputFile in(path, "a -N graph file (lines 'source,destination')", kOptionFileLimits);
  std::vector<std::pair<int, int>> edges;
  std::string line;
  while (in.next_line(line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty() || line[0] == '#') continue;
    const auto comma = line.find(',');
    int source = 0, destination = 0;
    if (comma == std::string::npos || !read_int(line.substr(0, comma), source) ||
        !read_int(line.substr(comma + 1), destination))
      throw std::invalid_argument("-N graph:" + path + " line " + std::to_string(in.line_number()) +
                                  ": '" + printable(line) +
                                  "' is not 'source,destination' (two ranks)");
    edges.emplace_back(source, destination);
  }
  if (edges.empty()) throw std::invalid_argument("-N graph:" + path + " has no edge");
  return edges;
}

}  // namespace

std::vector<int> cartesian_shape(int nprocs, int dimensions) {
  std::vector<int> dims(static_cast<std::size_t>(dimensions), 0);
  MPI_Dims_create(nprocs, dimensions, dims.data());
  return dims;
}

std::vector<Neighbours> neighbours_of(const Neighbourhood& n, int nprocs) {
  std::vector<Neighbours> all(static_cast<std::size_t>(nprocs));
  if (n.kind == Neighbourhood::Kind::Graph) {
    std::set<std::pair<int, int>> seen;
    for (const auto& [source, destination] : n.edges) {
      if (source >= nprocs || destination >= nprocs)
        throw std::invalid_argument("-N " + n.text + ": the edge " + std::to_string(source) + "," +
                                    std::to_string(destination) + " names a rank of " +
                                    std::to_string(nprocs) + " processes that does not exist");
      if (source == destination || !seen.insert({source, destination}).second)
        throw std::invalid_argument(
            "-N " + n.text + ": the edge " + std::to_string(source) + "," +
            std::to_string(destination) +
            (source == destination ? " leads from a rank to itself" : " is given twice"));
      all[static_cast<std::size_t>(source)].destinations.push_back(destination);
      all[static_cast<std::size_t>(destination)].sources.push_back(source);
    }
    return all;
  }
  const int d = n.dimensions, r = n.radius;
  const auto dims = cartesian_shape(nprocs, d);
  const int smallest = *std::min_element(dims.begin(), dims.end());
  if (r > (smallest - 1) / 2)
    throw std::invalid_argument(
        "-N " + n.text + ": the radius " + std::to_string(r) + " is more than half of the " +
        "smallest dimension less one (" + std::to_string(smallest) + " of " +
        std::to_string(nprocs) + " processes in " + std::to_string(d) +
        " dimensions): neighbours would repeat; use more processes or a smaller radius");
  // Row-major ranks (MPI_Cart_create without reordering: the last dimension fastest).
  const auto rank_of = [&](const std::vector<int>& coords) {
    int rank = 0;
    for (int k = 0; k < d; ++k) {
      const int size = dims[static_cast<std::size_t>(k)];
      rank = rank * size + ((coords[static_cast<std::size_t>(k)] % size) + size) % size;
    }
    return rank;
  };
  for (int me = 0; me < nprocs; ++me) {
    std::vector<int> mine(static_cast<std::size_t>(d));
    for (int k = d - 1, rest = me; k >= 0; --k) {
      mine[static_cast<std::size_t>(k)] = rest % dims[static_cast<std::size_t>(k)];
      rest /= dims[static_cast<std::size_t>(k)];
    }
    std::vector<int> displacement(static_cast<std::size_t>(d), -r), at(mine.size());
    for (bool done = false; !done;) {
      for (std::size_t k = 0; k < mine.size(); ++k) at[k] = mine[k] + displacement[k];
      const int other = rank_of(at);
      if (other != me) {
        all[static_cast<std::size_t>(me)].sources.push_back(other);
        all[static_cast<std::size_t>(me)].destinations.push_back(other);
      }
      done = true;  // the next vector, the last dimension fastest
      for (int k = d - 1; k >= 0; --k) {
        auto& v = displacement[static_cast<std::size_t>(k)];
        if (v < r) {
          ++v;
          done = false;
          break;
        }
        v = -r;
      }
    }
  }
  return all;
}

Neighbourhood parse_neighbourhood(const std::string& text) {
  Neighbourhood n;
  n.text = text;
  const auto colon = text.find(':');
  const std::string kind = to_lower(text.substr(0, colon));
  const std::string rest = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (kind == "cart") {
    const auto second = rest.find(':');
    if (colon == std::string::npos || second == std::string::npos ||
        !read_int(rest.substr(0, second), n.dimensions) ||
        !read_int(rest.substr(second + 1), n.radius) || n.dimensions < 1 || n.dimensions > 8 ||
        n.radius < 1)
      throw std::invalid_argument("-N " + printable(text) +
                                  ": cart:D:R takes D dimensions (1 to 8) and a radius R of 1 or "
                                  "more");
    return n;
  }
  if (kind == "graph") {
    if (rest.empty())
      throw std::invalid_argument("-N " + printable(text) +
                                  ": graph:FILE needs the file of 'source,destination' lines");
    n.kind = Neighbourhood::Kind::Graph;
    n.edges = read_edges(rest);
    return n;
  }
  throw std::invalid_argument("-N " + printable(text) + ": the topology is cart:D:R or graph:FILE");
}

}  // namespace mpiscope::core
