// Which ranks take part in a measurement: the active-process series (-npmin), the -map PxQ
// renumbering, and Multi mode (disjoint groups of the active size running at the same time).
#pragma once

#include <string>
#include <vector>

#include "core/mpi.hpp"

namespace mpiscope::core {

// P_min, 2·P_min, 4·P_min, … (while < P), P. P_min > P is taken as P (IMB guide 5.1.2.2).
std::vector<int> active_process_series(int world_size, int npmin);

// -map PxQ: world ranks laid out column by column in a P×Q matrix, renumbered row by row.
// Returns order[new_rank] = world rank. rows*cols must equal world_size.
std::vector<int> map_order(int world_size, int rows, int cols);

// The groups for one active size. Outside Multi mode there is one group (the first `active`
// ranks in the mapped order); in Multi mode there are world_size/active disjoint groups.
struct Layout {
  int active_size = 0;
  bool multi = false;
  std::vector<std::vector<int>> groups;  // world ranks of each group, in group-rank order
  int inactive = 0;                      // ranks that only wait
  int active_ranks() const { return active_size * static_cast<int>(groups.size()); }
};
Layout make_layout(const std::vector<int>& order, int active_size, bool multi);

// This rank's view of a layout: its group communicator and the communicator of all active ranks
// (used to agree on repetition counts and to collect times). Inactive ranks hold null comms.
struct ProcessSet {
  Layout layout;
  int group_index = -1;  // -1: inactive
  mpi::Comm group;       // ranks ordered as in the layout
  mpi::Comm active;      // all active ranks, group by group; rank 0 is world rank 0's position
  std::vector<mpi::Comm> id_padding;  // Multi mode: keeps the groups' context ids apart
  bool is_active() const { return group_index >= 0; }
};
ProcessSet make_process_set(const Layout& layout, MPI_Comm world = MPI_COMM_WORLD);

}  // namespace mpiscope::core
