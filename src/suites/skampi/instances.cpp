#include "suites/skampi/instances.hpp"

#include <algorithm>
#include <numeric>

namespace mpiscope::skampi {

const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::kPingPong:
      return "ping-pong";
    case Pattern::kCollective:
      return "collective";
    case Pattern::kMasterWorker:
      return "master-worker";
    case Pattern::kSimple:
      return "simple";
  }
  return "?";
}

// Figure 2 of the paper. Types 47 and 48 (hand-written Scatterv) are mpiscope's additions, the
// counterparts of 45 and 46.
const std::vector<InstanceInfo>& all_instances() {
  using P = Pattern;
  static const std::vector<InstanceInfo> list = {
      {1, P::kPingPong, "MPI_Send-MPI_Recv"},
      {2, P::kPingPong, "MPI_Send-MPI_Recv(MPI_ANY_TAG)"},
      {3, P::kPingPong, "MPI_Send-MPI_Irecv"},
      {4, P::kPingPong, "MPI_Send-MPI_Iprobe-MPI_Recv"},
      {5, P::kPingPong, "MPI_Ssend-MPI_Recv"},
      {6, P::kPingPong, "MPI_Isend-MPI_Recv"},
      {7, P::kPingPong, "MPI_Bsend-MPI_Recv"},
      {8, P::kPingPong, "MPI_Sendrecv"},
      {9, P::kPingPong, "MPI_Sendrecv_replace"},
      {34, P::kPingPong, "MPI_Issend-MPI_Recv"},
      {10, P::kMasterWorker, "MPI_Waitsome"},
      {11, P::kMasterWorker, "MPI_Waitany"},
      {12, P::kMasterWorker, "MPI_Recv(MPI_ANY_SOURCE)"},
      {13, P::kMasterWorker, "MPI_Send"},
      {14, P::kMasterWorker, "MPI_Ssend"},
      {15, P::kMasterWorker, "MPI_Isend"},
      {16, P::kMasterWorker, "MPI_Bsend"},
      {17, P::kCollective, "MPI_Bcast"},
      {18, P::kCollective, "MPI_Barrier", false, false},
      {19, P::kCollective, "MPI_Reduce", true},
      {20, P::kCollective, "MPI_Alltoall"},
      {21, P::kCollective, "MPI_Scan", true},
      {22, P::kCollective, "MPI_Comm_split", false, false},
      {kMemcpyType, P::kCollective, "memcpy"},
      {33, P::kCollective, "MPI_Gather"},
      {35, P::kCollective, "MPI_Scatter"},
      {36, P::kCollective, "MPI_Allreduce", true},
      {37, P::kCollective, "MPI_Reduce-MPI_Bcast", true},
      {38, P::kCollective, "MPI_Reduce_scatter", true},
      {39, P::kCollective, "MPI_Allgather"},
      {40, P::kCollective, "MPI_Scatterv"},
      {41, P::kCollective, "MPI_Gatherv"},
      {42, P::kCollective, "MPI_Allgatherv"},
      {43, P::kCollective, "MPI_Alltoallv"},
      {44, P::kCollective, "MPI_Reduce-MPI_Scatterv", true},
      {45, P::kCollective, "Gatherv by MPI_Send-MPI_Recv"},
      {46, P::kCollective, "Gatherv by MPI_Isend-MPI_Irecv-MPI_Waitall"},
      {47, P::kCollective, "Scatterv by MPI_Send-MPI_Recv"},
      {48, P::kCollective, "Scatterv by MPI_Isend-MPI_Irecv-MPI_Waitall"},
      {24, P::kSimple, "MPI_Wtime", false, false},
      {25, P::kSimple, "MPI_Comm_rank", false, false},
      {26, P::kSimple, "MPI_Comm_size", false, false},
      {27, P::kSimple, "MPI_Iprobe (unsuccessful)", false, false},
      {28, P::kSimple, "MPI_Buffer_attach", false, false},
  };
  return list;
}

const InstanceInfo* find_instance(int type) {
  const auto& l = all_instances();
  const auto it = std::find_if(l.begin(), l.end(), [&](const auto& i) { return i.type == type; });
  return it == l.end() ? nullptr : &*it;
}

bool variation_allowed(Pattern p, Variation v) {
  switch (p) {
    case Pattern::kPingPong:
      return v == Variation::kLength;
    case Pattern::kCollective:
      return v == Variation::kLength || v == Variation::kNodes;
    case Pattern::kMasterWorker:
      return v != Variation::kNone;
    case Pattern::kSimple:
      return v == Variation::kNone;
  }
  return false;
}

BaseType effective_base(const Config& c, const SuiteSpec& s) {
  BaseType b = c.basetypes.at(s.basetype);
  if (find_instance(s.type)->reduction && b.items[0].type == "MPI_CHAR")
    b.items[0].type = "MPI_SIGNED_CHAR";
  return b;
}

long length_unit(long multiple_of, long base_size) {
  return std::lcm(std::max(multiple_of, 1L), std::max(base_size, 1L));
}

int participants(const InstanceInfo& instance, const SuiteSpec& s, long argument, int world) {
  if (instance.pattern == Pattern::kPingPong) return 2;
  if (instance.pattern == Pattern::kSimple) return 1;
  if (s.variation == Variation::kNodes) return static_cast<int>(argument);
  return world;
}

bool waits_for_another_process(const InstanceInfo& instance, int nprocs) {
  switch (instance.pattern) {
    case Pattern::kPingPong:
    case Pattern::kMasterWorker:
      return true;
    case Pattern::kCollective:
      return nprocs >= 2 && instance.type != kMemcpyType;
    case Pattern::kSimple:
      return false;
  }
  return false;
}

}  // namespace mpiscope::skampi
