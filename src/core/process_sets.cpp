#include "core/process_sets.hpp"

#include <stdexcept>

namespace mpiscope::core {

std::vector<int> active_process_series(int world_size, int npmin) {
  if (world_size < 1 || npmin < 1) throw std::invalid_argument("process counts must be positive");
  std::vector<int> series;
  if (npmin >= world_size) return {world_size};
  for (int q = npmin; q < world_size; q *= 2) series.push_back(q);
  series.push_back(world_size);
  return series;
}

std::vector<int> map_order(int world_size, int rows, int cols) {
  if (rows < 1 || cols < 1 || rows * cols != world_size)
    throw std::invalid_argument("-map " + std::to_string(rows) + "x" + std::to_string(cols) +
                                " needs " + std::to_string(rows * cols) + " processes, but " +
                                std::to_string(world_size) + " are running");
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(world_size));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) order.push_back(c * rows + r);
  return order;
}

Layout make_layout(const std::vector<int>& order, int active_size, bool multi) {
  const int world = static_cast<int>(order.size());
  if (active_size < 1 || active_size > world) throw std::invalid_argument("bad active size");
  Layout l;
  l.active_size = active_size;
  l.multi = multi;
  const int ngroups = multi ? world / active_size : 1;
  for (int g = 0; g < ngroups; ++g)
    l.groups.emplace_back(order.begin() + g * active_size, order.begin() + (g + 1) * active_size);
  l.inactive = world - ngroups * active_size;
  return l;
}

ProcessSet make_process_set(const Layout& layout, MPI_Comm world_comm) {
  ProcessSet ps;
  ps.layout = layout;
  const int me = mpi::world_rank();
  int position = -1;  // my index among all active ranks
  for (std::size_t g = 0; g < layout.groups.size(); ++g)
    for (std::size_t i = 0; i < layout.groups[g].size(); ++i)
      if (layout.groups[g][i] == me) {
        ps.group_index = static_cast<int>(g);
        position = static_cast<int>(g * layout.groups[g].size() + i);
      }
  // Collective over the world (MPI_COMM_WORLD, or a session's: its ranks are the same): every rank
  // calls both splits, inactive ones with MPI_UNDEFINED.
  auto world = mpi::Comm::borrow(world_comm);
  ps.active = world.split(ps.is_active() ? 0 : MPI_UNDEFINED, position);
  if (layout.groups.size() == 1) {
    ps.group = world.split(ps.is_active() ? 0 : MPI_UNDEFINED, position);
    return ps;
  }
  // Multi mode: each group's communicator gets a context id of its own. A split of the world
  // would give every group the same id, and Open MPI 4.1's one-sided component names its shared
  // memory after that id, so windows created by two groups on one node collide. Group g first
  // holds g duplicates of MPI_COMM_SELF, then agrees on its id among its own members only.
  if (!ps.is_active()) return ps;
  for (int g = 0; g < ps.group_index; ++g) {
    MPI_Comm pad = MPI_COMM_NULL;
    mpi::check(MPI_Comm_dup(MPI_COMM_SELF, &pad), "MPI_Comm_dup");
    ps.id_padding.push_back(mpi::Comm::own(pad));
  }
  MPI_Group world_group = MPI_GROUP_NULL, mine = MPI_GROUP_NULL;
  MPI_Comm_group(world_comm, &world_group);
  const auto& members = layout.groups[static_cast<std::size_t>(ps.group_index)];
  MPI_Group_incl(world_group, static_cast<int>(members.size()), members.data(), &mine);
  MPI_Comm group = MPI_COMM_NULL;
  mpi::check(MPI_Comm_create_group(world_comm, mine, ps.group_index, &group),
             "MPI_Comm_create_group");
  MPI_Group_free(&mine);
  MPI_Group_free(&world_group);
  ps.group = mpi::Comm::own(group);
  return ps;
}

}  // namespace mpiscope::core
