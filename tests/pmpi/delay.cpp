// A PMPI interposition library of the project's own, LD_PRELOADed into the ranks by tests:
//  - MPISCOPE_DELAY="MPI_Allreduce=300,MPI_Bcast=50" (microseconds) adds a known busy-wait before
//    those calls (MPI_Allreduce, MPI_Bcast, MPI_Ibcast, MPI_Send, MPI_Pready, MPI_File_write,
//    MPI_File_write_all, MPI_File_write_ordered), so that a test can check that accurate mode
//    measures it within its interval, that compare flags a slowdown, or that b_eff_io's reads on a
//    disk with slow writes still run their time; and MPI_Init_thread (osu_init's start-up);
//    MPISCOPE_THREAD_LEVEL_PROVIDED=L makes MPI_Init_thread grant at most thread level L (0 single
//    … 3 multiple);
//  - MPISCOPE_DELAY_RANKS=1,3 applies those delays on those world ranks only (a collective whose
//    ranks' times differ: OSU's -z for collectives averages them);
//  - MPISCOPE_DELAY_AFTER=N applies those delays only from the (N+1)-th call of each function on:
//    a machine that changes speed in the middle of a measurement; MPISCOPE_DELAY_UNTIL=N only to
//    the first N calls (a measurement slowed at its start, as SKaMPI's empty measurement);
//  - MPISCOPE_DELAY_UNLESS_ALGORITHM=K applies those delays only while the last value written
//    through MPI_T_cvar_write (an algorithm control variable, as `mpiscope tune` forces them) is
//    not K: every algorithm of a collective but one is made slow;
//  - MPISCOPE_FAIL_IF_ALGORITHM=K makes MPI_Allreduce on a communicator made while that value
//    is K fail (MPI_ERR_OTHER, through the communicator's error handler, as a library does; as
//    Open MPI, which takes a forced algorithm when a communicator is made, MPI_COMM_WORLD's
//    calls never fail): an algorithm the library cannot run at this process count;
//  - MPISCOPE_TRACE=DIR makes every rank write the calls below, with their message size and root,
//    one per line to DIR/trace.<world rank>, so that a test can check the calling sequence a
//    benchmark issues (warm-up runs, barriers before the timed loop, root rotation, buffers);
//    MPI_Recv is traced with its source in the root column, as "MPI_Recv(MPI_ANY_SOURCE)" for
//    the wildcard (whose value differs between MPI libraries), MPI_Isend with its destination
//    and "type NAME" (the datatype's MPI name: OSU's -D),
//    MPI_Test (OSU's -t) without a size, the one-sided calls (MPI_Put, MPI_Get, MPI_Accumulate,
//    MPI_Fetch_and_op, MPI_Compare_and_swap) and the passive-target synchronisation (flush,
//    lock, unlock and their _local and _all variants) with their target (-1 for the _all
//    variants), the active-target synchronisation (fence, start, complete, post, wait), and
//    MPI_Comm_split ("of the session's" when it splits what MPI_Comm_create_from_group made) and
//    MPI_Comm_free, MPI_Session_init and MPI_Comm_create_from_group (with its tag; MPI 4
//    libraries), MPI_Send_init and MPI_Recv_init with their peer and buffer,
//    MPI_Start, and MPI_Startall with the number of requests it starts, MPI_Request_free, the
//    persistent collectives MPI_Allreduce_init (with "type NAME" and how the buffers were given)
//    and MPI_Bcast_init (with its root; Open MPI 4.1: MPIX_*_init, traced under these names),
//    MPI_Dist_graph_create_adjacent ("sources S0,S1,… destinations D0,D1,…") and
//    MPI_Neighbor_alltoall, MPI_Irecv (with its source), fork, and MPI 4.0's partitioned
//    MPI_Psend_init and MPI_Precv_init (partitions, peer, "count N" per partition) and
//    MPI_Pready (the partition);
//    with MPISCOPE_TRACE_THREADS=1 as well, MPI_Send too, and MPI_Send and MPI_Recv lines end in
//    "tag T thread K inside N comm C", K numbering the process's threads in the order of their
//    first call, N the MPI_Send and MPI_Recv calls under way in the process as it entered, its own
//    among them (osu_latency_mt: which thread made which iteration's calls, and whether threads
//    were inside MPI at once), C the communicator's number in the order of its first traced call
//    (IMB-MT: each thread's own);
//    with MPISCOPE_TRACE_WTIME=1 as well, MPI_Wtime (between MPI_Init and MPI_Finalize), so that
//    a test can check where a timed loop reads the timer. The reductions (MPI_Allreduce,
//    MPI_Reduce, MPI_Reduce_scatter, MPI_Reduce_scatter_block and their non-blocking forms) and
//    the gathers, scatters and all-to-alls (blocking and not) add "type NAME" (the datatype's MPI
//    name) and how the buffers were given ("in_place send", "in_place recv", "send=recv": OSU's
//    -l), MPI_Alltoallw "displs D0,D1,…" (its receive displacements in bytes),
//    MPI_Reduce_scatter/MPI_Ireduce_scatter "counts C0,C1,…" (every rank's recvcounts; the
//    count column is the calling rank's own).
#include <dlfcn.h>
#include <mpi.h>
#if MPI_VERSION < 4 && defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace {
double delay_of(const char* call) {
  const char* spec = std::getenv("MPISCOPE_DELAY");
  if (spec == nullptr) return 0;
  const std::string all(spec), key = std::string(call) + "=";
  const auto at = all.find(key);
  if (at == std::string::npos) return 0;
  if (const char* ranks = std::getenv("MPISCOPE_DELAY_RANKS")) {
    int initialized = 0, rank = 0;
    PMPI_Initialized(&initialized);
    if (initialized) PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const std::string list = std::string(",") + ranks + ",";
    if (list.find("," + std::to_string(rank) + ",") == std::string::npos) return 0;
  }
  return std::atof(all.c_str() + at + key.size()) * 1e-6;
}

int last_written_value = -1;  // by MPI_T_cvar_write, as an int

// The delay of this call of a function, given how many calls of it came before.
double delay_now(double delay, std::atomic<long>& calls) {
  static const long after = [] {
    const char* n = std::getenv("MPISCOPE_DELAY_AFTER");
    return n == nullptr ? 0L : std::atol(n);
  }();
  static const long until = [] {
    const char* n = std::getenv("MPISCOPE_DELAY_UNTIL");
    return n == nullptr ? -1L : std::atol(n);
  }();
  static const char* spared = std::getenv("MPISCOPE_DELAY_UNLESS_ALGORITHM");
  const long call = calls++;
  if (spared != nullptr && last_written_value == std::atoi(spared)) return 0.0;
  return call >= after && (until < 0 || call < until) ? delay : 0.0;
}

void spin(double seconds) {
  if (seconds <= 0) return;
  const double until = PMPI_Wtime() + seconds;
  while (PMPI_Wtime() < until) {
  }
}

// "MPI_Bcast 1024 root 2 buf 0x7f…": the count, the root and the (send) buffer's address, then
// `extra` ("type MPI_CHAR", …).
void trace(const char* call, int count, int root, const void* buffer = nullptr,
           const std::string& extra = "") {
  static const char* dir = std::getenv("MPISCOPE_TRACE");
  if (dir == nullptr) return;
  static FILE* out = [] {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return std::fopen((std::string(dir) + "/trace." + std::to_string(rank)).c_str(), "w");
  }();
  if (out == nullptr) return;
  std::fprintf(out, "%s %d root %d buf %p%s%s\n", call, count, root, buffer,
               extra.empty() ? "" : " ", extra.c_str());
  std::fflush(out);  // the ranks may leave by _exit
}

bool tracing() {
  static const bool on = std::getenv("MPISCOPE_TRACE") != nullptr;
  return on;
}

// MPI_Send and MPI_Recv calls under way in this process, counted from their entry (before any
// delay) to their return: two or more means threads inside MPI at once.
std::atomic<int> point_to_point_calls{0};
struct InPointToPoint {
  InPointToPoint() { ++point_to_point_calls; }
  ~InPointToPoint() { --point_to_point_calls; }
};

// MPISCOPE_TRACE_THREADS: "tag T thread K inside N" for a point-to-point call (N: the calls under
// way as it entered, its own among them); empty otherwise.
std::string tag_and_thread(int tag, MPI_Comm comm) {
  static const bool on = tracing() && std::getenv("MPISCOPE_TRACE_THREADS") != nullptr;
  if (!on) return {};
  static std::atomic<int> threads{0};
  thread_local const int thread = threads++;
  // The communicator, numbered in the order of its first traced call (IMB-MT: each thread's own).
  static std::mutex mutex;
  static std::map<std::uintptr_t, int> comms;
  std::uintptr_t handle = 0;
  std::memcpy(&handle, &comm, std::min(sizeof handle, sizeof comm));
  int number = 0;
  {
    const std::lock_guard lock(mutex);
    number = comms.emplace(handle, static_cast<int>(comms.size())).first->second;
  }
  return "tag " + std::to_string(tag) + " thread " + std::to_string(thread) + " inside " +
         std::to_string(point_to_point_calls.load()) + " comm " + std::to_string(number);
}

// "type MPI_CHAR": a reduction's datatype by its MPI name (the same in every library).
std::string type_of(MPI_Datatype type) {
  if (!tracing()) return {};
  if (type == MPI_DATATYPE_NULL) return "type MPI_DATATYPE_NULL";
  char name[MPI_MAX_OBJECT_NAME] = {};
  int length = 0;
  PMPI_Type_get_name(type, name, &length);
  return std::string("type ") + name;
}

// How a collective was given its buffers: "in_place send" (MPI_IN_PLACE for the send buffer),
// "in_place recv" (for the receive buffer: a scatter's root), "send=recv" (one buffer for both: a
// reduction's non-root under OSU's -l), else nothing; after the datatype.
std::string places(const void* send, const void* recv, MPI_Datatype type) {
  if (!tracing()) return {};
  std::string out = type_of(type);
  if (send == MPI_IN_PLACE) return out + " in_place send";
  if (recv == MPI_IN_PLACE) return out + " in_place recv";
  if (send == recv) return out + " send=recv";
  return out;
}

// A reduce-scatter's line: this rank's count, then "type NAME counts C0,C1,…".
void trace_reduce_scatter(const char* call, const int* counts, MPI_Datatype type, MPI_Comm comm,
                          const void* buffer, const void* recv) {
  if (!tracing()) return;
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  std::string list;
  for (int r = 0; r < size; ++r) list += (r ? "," : "") + std::to_string(counts[r]);
  trace(call, counts[rank], -1, buffer, places(buffer, recv, type) + " counts " + list);
}

// "displs D0,D1,…": every peer's receive displacement in bytes (MPI_Alltoallw).
std::string displacements(const int* displs, MPI_Comm comm) {
  if (!tracing()) return {};
  int size = 0;
  PMPI_Comm_size(comm, &size);
  std::string list;
  for (int r = 0; r < size; ++r) list += (r ? "," : "") + std::to_string(displs[r]);
  return " displs " + list;
}
}  // namespace

extern "C" double MPI_Wtime() {
  static const bool traced = std::getenv("MPISCOPE_TRACE_WTIME") != nullptr;
  int started = 0, finished = 0;
  if (traced) PMPI_Initialized(&started), PMPI_Finalized(&finished);
  if (started && !finished) trace("MPI_Wtime", 0, -1);
  return PMPI_Wtime();
}

extern "C" int MPI_Allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm) {
  static const double delay = delay_of("MPI_Allreduce");
  static std::atomic<long> calls{0};
  static const char* failing = std::getenv("MPISCOPE_FAIL_IF_ALGORITHM");
  if (failing != nullptr && comm != MPI_COMM_WORLD && last_written_value == std::atoi(failing)) {
    MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
    return MPI_ERR_OTHER;
  }
  spin(delay_now(delay, calls));
  trace("MPI_Allreduce", count, -1, nullptr, places(send, recv, type));
  return PMPI_Allreduce(send, recv, count, type, op, comm);
}

// MPISCOPE_DELAY="MPI_Init_thread=300000": a start-up that takes that much longer (osu_init). The
// MPI timer cannot run yet: the wait is on the C++ clock.
extern "C" int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const double delay = delay_of("MPI_Init_thread");
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(delay);
  while (std::chrono::steady_clock::now() < until) {
  }
  const int status = PMPI_Init_thread(argc, argv, required, provided);
  // MPISCOPE_THREAD_LEVEL_PROVIDED=L: a library that grants at most level L (0 single, 1
  // funneled, 2 serialized, 3 multiple), as the MPI standard's levels are ordered.
  if (const char* level = std::getenv("MPISCOPE_THREAD_LEVEL_PROVIDED")) {
    const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                          MPI_THREAD_MULTIPLE};
    const int at_most = levels[std::atoi(level) & 3];
    if (*provided > at_most) *provided = at_most;
  }
  return status;
}

extern "C" int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buffer) {
  last_written_value = *static_cast<const int*>(buffer);
  return PMPI_T_cvar_write(handle, buffer);
}

// OSU's and IMB's other reductions: datatype and counts.
extern "C" int MPI_Reduce_scatter(const void* send, void* recv, const int counts[],
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  trace_reduce_scatter("MPI_Reduce_scatter", counts, type, comm, send, recv);
  return PMPI_Reduce_scatter(send, recv, counts, type, op, comm);
}
extern "C" int MPI_Iallreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request) {
  trace("MPI_Iallreduce", count, -1, send, places(send, recv, type));
  return PMPI_Iallreduce(send, recv, count, type, op, comm, request);
}
extern "C" int MPI_Ireduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                           int root, MPI_Comm comm, MPI_Request* request) {
  trace("MPI_Ireduce", count, root, send, places(send, recv, type));
  return PMPI_Ireduce(send, recv, count, type, op, root, comm, request);
}
extern "C" int MPI_Ireduce_scatter(const void* send, void* recv, const int counts[],
                                   MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                   MPI_Request* request) {
  trace_reduce_scatter("MPI_Ireduce_scatter", counts, type, comm, send, recv);
  return PMPI_Ireduce_scatter(send, recv, counts, type, op, comm, request);
}

extern "C" int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  static const double delay = delay_of("MPI_Bcast");
  static std::atomic<long> calls{0};
  spin(delay_now(delay, calls));
  trace("MPI_Bcast", count, root, buffer);
  return PMPI_Bcast(buffer, count, type, root, comm);
}
// Its non-blocking form: the delay before the start (OSU's -z on osu_ibcast).
extern "C" int MPI_Ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                          MPI_Request* request) {
  static const double delay = delay_of("MPI_Ibcast");
  static std::atomic<long> calls{0};
  spin(delay_now(delay, calls));
  return PMPI_Ibcast(buffer, count, type, root, comm, request);
}

extern "C" int MPI_Reduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                          int root, MPI_Comm comm) {
  trace("MPI_Reduce", count, root, send, places(send, recv, type));
  return PMPI_Reduce(send, recv, count, type, op, root, comm);
}

// Communicators made and freed (SKaMPI's MPI_Comm_split kernel must not pile them up).
// The communicator the last MPI_Comm_create_from_group made (a session's: OSU's -I).
MPI_Comm from_session = MPI_COMM_NULL;

extern "C" int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* out) {
  trace("MPI_Comm_split", 0, -1, nullptr,
        comm != MPI_COMM_NULL && comm == from_session ? "of the session's" : "");
  return PMPI_Comm_split(comm, color, key, out);
}

// fork (osu_latency_mp's children), traced before the process splits.
extern "C" pid_t fork() {
  static const auto real = reinterpret_cast<pid_t (*)()>(dlsym(RTLD_NEXT, "fork"));
  trace("fork", 0, -1);
  return real();
}

#if MPI_VERSION >= 4
extern "C" int MPI_Session_init(MPI_Info info, MPI_Errhandler handler, MPI_Session* session) {
  trace("MPI_Session_init", 0, -1);
  return PMPI_Session_init(info, handler, session);
}
extern "C" int MPI_Comm_create_from_group(MPI_Group group, const char* tag, MPI_Info info,
                                          MPI_Errhandler handler, MPI_Comm* out) {
  const int rc = PMPI_Comm_create_from_group(group, tag, info, handler, out);
  from_session = *out;
  trace("MPI_Comm_create_from_group", 0, -1, nullptr, std::string("tag ") + tag);
  return rc;
}
#endif

extern "C" int MPI_Comm_free(MPI_Comm* comm) {
  trace("MPI_Comm_free", 0, -1);
  return PMPI_Comm_free(comm);
}

extern "C" int MPI_Barrier(MPI_Comm comm) {
  trace("MPI_Barrier", 0, -1);
  return PMPI_Barrier(comm);
}

extern "C" int MPI_Send(const void* buffer, int count, MPI_Datatype type, int dest, int tag,
                        MPI_Comm comm) {
  const InPointToPoint under_way;
  static const double delay = delay_of("MPI_Send");
  static std::atomic<long> calls{0};
  spin(delay_now(delay, calls));
  if (const auto extra = tag_and_thread(tag, comm); !extra.empty())
    trace("MPI_Send", count, dest, buffer, extra);
  return PMPI_Send(buffer, count, type, dest, tag, comm);
}

// Persistent point-to-point (osu_latency_persistent): each request made, and each start.
extern "C" int MPI_Send_init(const void* buffer, int count, MPI_Datatype type, int dest, int tag,
                             MPI_Comm comm, MPI_Request* request) {
  trace("MPI_Send_init", count, dest, buffer);
  return PMPI_Send_init(buffer, count, type, dest, tag, comm, request);
}
extern "C" int MPI_Recv_init(void* buffer, int count, MPI_Datatype type, int source, int tag,
                             MPI_Comm comm, MPI_Request* request) {
  trace("MPI_Recv_init", count, source, buffer);
  return PMPI_Recv_init(buffer, count, type, source, tag, comm, request);
}
// The persistent collectives' requests (IMB-MPI4, OSU's *_persistent): MPI 4.0's MPI_<Op>_init,
// or Open MPI 4.1's MPIX_<Op>_init (its pcollreq extension), traced under the MPI 4.0 name.
#if MPI_VERSION >= 4
#define MPISCOPE_PCOLL(op) MPI_##op##_init
#define MPISCOPE_PMPI_PCOLL(op) PMPI_##op##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define MPISCOPE_PCOLL(op) MPIX_##op##_init
#define MPISCOPE_PMPI_PCOLL(op) PMPIX_##op##_init
#endif
#ifdef MPISCOPE_PCOLL
extern "C" int MPISCOPE_PCOLL(Allreduce)(const void* send, void* recv, int count, MPI_Datatype type,
                                         MPI_Op op, MPI_Comm comm, MPI_Info info,
                                         MPI_Request* request) {
  trace("MPI_Allreduce_init", count, -1, recv, places(send, recv, type));
  return MPISCOPE_PMPI_PCOLL(Allreduce)(send, recv, count, type, op, comm, info, request);
}
extern "C" int MPISCOPE_PCOLL(Bcast)(void* buffer, int count, MPI_Datatype type, int root,
                                     MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  trace("MPI_Bcast_init", count, root, buffer);
  return MPISCOPE_PMPI_PCOLL(Bcast)(buffer, count, type, root, comm, info, request);
}
#endif
// Partitioned point-to-point (osu_partitioned_latency; MPI 4.0): each request with its partition
// count in the count column ("partitions P count N" after it), and each partition marked ready.
#if MPI_VERSION >= 4
extern "C" int MPI_Psend_init(const void* buffer, int partitions, MPI_Count count,
                              MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Info info,
                              MPI_Request* request) {
  trace("MPI_Psend_init", partitions, dest, buffer, "count " + std::to_string(count));
  return PMPI_Psend_init(buffer, partitions, count, type, dest, tag, comm, info, request);
}
extern "C" int MPI_Precv_init(void* buffer, int partitions, MPI_Count count, MPI_Datatype type,
                              int source, int tag, MPI_Comm comm, MPI_Info info,
                              MPI_Request* request) {
  trace("MPI_Precv_init", partitions, source, buffer, "count " + std::to_string(count));
  return PMPI_Precv_init(buffer, partitions, count, type, source, tag, comm, info, request);
}
extern "C" int MPI_Pready(int partition, MPI_Request request) {
  static const double delay = delay_of("MPI_Pready");
  static std::atomic<long> calls{0};
  spin(delay_now(delay, calls));
  trace("MPI_Pready", partition, -1);
  return PMPI_Pready(partition, request);
}
#endif
// The neighbourhood collectives' topology: "sources S0,S1,… destinations D0,D1,…" (world ranks
// where the communicator is MPI_COMM_WORLD's), and the calls on it.
extern "C" int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                              const int sourceweights[], int outdegree,
                                              const int destinations[], const int destweights[],
                                              MPI_Info info, int reorder, MPI_Comm* graph) {
  const auto list = [](int n, const int* ranks) {
    std::string s;
    for (int k = 0; k < n; ++k) s += (k ? "," : "") + std::to_string(ranks[k]);
    return s.empty() ? std::string("none") : s;
  };
  trace("MPI_Dist_graph_create_adjacent", indegree, -1, nullptr,
        "sources " + list(indegree, sources) + " destinations " + list(outdegree, destinations));
  return PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
                                         destinations, destweights, info, reorder, graph);
}
extern "C" int MPI_Neighbor_alltoall(const void* send, int send_count, MPI_Datatype send_type,
                                     void* recv, int recv_count, MPI_Datatype recv_type,
                                     MPI_Comm comm) {
  trace("MPI_Neighbor_alltoall", send_count, -1, recv, type_of(send_type));
  return PMPI_Neighbor_alltoall(send, send_count, send_type, recv, recv_count, recv_type, comm);
}
extern "C" int MPI_Request_free(MPI_Request* request) {
  trace("MPI_Request_free", 0, -1);
  return PMPI_Request_free(request);
}
extern "C" int MPI_Start(MPI_Request* request) {
  trace("MPI_Start", 0, -1);
  return PMPI_Start(request);
}

// The count column: how many requests are started together.
extern "C" int MPI_Startall(int count, MPI_Request* requests) {
  trace("MPI_Startall", count, -1);
  return PMPI_Startall(count, requests);
}

extern "C" int MPI_Recv(void* buffer, int count, MPI_Datatype type, int source, int tag,
                        MPI_Comm comm, MPI_Status* status) {
  const InPointToPoint under_way;
  trace(source == MPI_ANY_SOURCE ? "MPI_Recv(MPI_ANY_SOURCE)" : "MPI_Recv", count, source, buffer,
        tag_and_thread(tag, comm));
  return PMPI_Recv(buffer, count, type, source, tag, comm, status);
}

// IMB-P2P's stencils: whom each receive is posted for ("MPI_Irecv count root source").
extern "C" int MPI_Irecv(void* buffer, int count, MPI_Datatype type, int source, int tag,
                         MPI_Comm comm, MPI_Request* request) {
  trace("MPI_Irecv", count, source, buffer);
  return PMPI_Irecv(buffer, count, type, source, tag, comm, request);
}

// OSU's windows: how many messages a benchmark has in flight.
extern "C" int MPI_Isend(const void* buffer, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm, MPI_Request* request) {
  trace("MPI_Isend", count, dest, buffer, type_of(type));
  return PMPI_Isend(buffer, count, type, dest, tag, comm, request);
}

// OSU's non-blocking collectives: the MPI_Test calls (-t) during their CPU work.
extern "C" int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  trace("MPI_Test", 0, -1);
  return PMPI_Test(request, flag, status);
}

// IMB-RMA's passive-target calls: puts per repetition, flushes per repetition or per sample,
// epochs per point (the target rank in the root column).
extern "C" int MPI_Put(const void* buffer, int count, MPI_Datatype type, int target,
                       MPI_Aint displacement, int target_count, MPI_Datatype target_type,
                       MPI_Win win) {
  trace("MPI_Put", count, target, buffer);
  return PMPI_Put(buffer, count, type, target, displacement, target_count, target_type, win);
}
extern "C" int MPI_Win_flush(int target, MPI_Win win) {
  trace("MPI_Win_flush", 0, target);
  return PMPI_Win_flush(target, win);
}
extern "C" int MPI_Win_flush_all(MPI_Win win) {
  trace("MPI_Win_flush_all", 0, -1);
  return PMPI_Win_flush_all(win);
}
extern "C" int MPI_Win_lock(int type, int target, int assertion, MPI_Win win) {
  trace("MPI_Win_lock", 0, target);
  return PMPI_Win_lock(type, target, assertion, win);
}
extern "C" int MPI_Win_lock_all(int assertion, MPI_Win win) {
  trace("MPI_Win_lock_all", 0, -1);
  return PMPI_Win_lock_all(assertion, win);
}

// OSU's one-sided programs: the other calls and every synchronisation -s chooses.
extern "C" int MPI_Get(void* buffer, int count, MPI_Datatype type, int target,
                       MPI_Aint displacement, int target_count, MPI_Datatype target_type,
                       MPI_Win win) {
  trace("MPI_Get", count, target, buffer);
  return PMPI_Get(buffer, count, type, target, displacement, target_count, target_type, win);
}
extern "C" int MPI_Accumulate(const void* buffer, int count, MPI_Datatype type, int target,
                              MPI_Aint displacement, int target_count, MPI_Datatype target_type,
                              MPI_Op op, MPI_Win win) {
  trace("MPI_Accumulate", count, target, buffer);
  return PMPI_Accumulate(buffer, count, type, target, displacement, target_count, target_type, op,
                         win);
}
extern "C" int MPI_Fetch_and_op(const void* buffer, void* result, MPI_Datatype type, int target,
                                MPI_Aint displacement, MPI_Op op, MPI_Win win) {
  trace("MPI_Fetch_and_op", 1, target, buffer);
  return PMPI_Fetch_and_op(buffer, result, type, target, displacement, op, win);
}
extern "C" int MPI_Compare_and_swap(const void* buffer, const void* compare, void* result,
                                    MPI_Datatype type, int target, MPI_Aint displacement,
                                    MPI_Win win) {
  trace("MPI_Compare_and_swap", 1, target, buffer);
  return PMPI_Compare_and_swap(buffer, compare, result, type, target, displacement, win);
}
extern "C" int MPI_Win_flush_local(int target, MPI_Win win) {
  trace("MPI_Win_flush_local", 0, target);
  return PMPI_Win_flush_local(target, win);
}
extern "C" int MPI_Win_unlock(int target, MPI_Win win) {
  trace("MPI_Win_unlock", 0, target);
  return PMPI_Win_unlock(target, win);
}
extern "C" int MPI_Win_unlock_all(MPI_Win win) {
  trace("MPI_Win_unlock_all", 0, -1);
  return PMPI_Win_unlock_all(win);
}
extern "C" int MPI_Win_fence(int assertion, MPI_Win win) {
  trace("MPI_Win_fence", 0, -1);
  return PMPI_Win_fence(assertion, win);
}
extern "C" int MPI_Win_start(MPI_Group group, int assertion, MPI_Win win) {
  trace("MPI_Win_start", 0, -1);
  return PMPI_Win_start(group, assertion, win);
}
extern "C" int MPI_Win_complete(MPI_Win win) {
  trace("MPI_Win_complete", 0, -1);
  return PMPI_Win_complete(win);
}
extern "C" int MPI_Win_post(MPI_Group group, int assertion, MPI_Win win) {
  trace("MPI_Win_post", 0, -1);
  return PMPI_Win_post(group, assertion, win);
}
extern "C" int MPI_Win_wait(MPI_Win win) {
  trace("MPI_Win_wait", 0, -1);
  return PMPI_Win_wait(win);
}

// b_eff_io's writes (MPI_File_write, _write_all, _write_ordered): a slow disk whose reads are fast.
extern "C" int MPI_File_write(MPI_File file, const void* buffer, int count, MPI_Datatype type,
                              MPI_Status* status) {
  static const double delay = delay_of("MPI_File_write");
  static std::atomic<long> calls{0};
  spin(delay_now(delay, calls));
  return PMPI_File_write(file, buffer, count, type, status);
}

extern "C" int MPI_File_write_all(MPI_File file, const void* buffer, int count, MPI_Datatype type,
                                  MPI_Status* status) {
  static const double delay = delay_of("MPI_File_write_all");
  static std::atomic<long> calls{0};
  spin(delay_now(delay, calls));
  return PMPI_File_write_all(file, buffer, count, type, status);
}

extern "C" int MPI_File_write_ordered(MPI_File file, const void* buffer, int count,
                                      MPI_Datatype type, MPI_Status* status) {
  static const double delay = delay_of("MPI_File_write_ordered");
  static std::atomic<long> calls{0};
  spin(delay_now(delay, calls));
  return PMPI_File_write_ordered(file, buffer, count, type, status);
}

// The other collectives OSU's -l calls in place: traced with their send count (a scatter's
// receive count), root, send buffer, datatype and places().
extern "C" int MPI_Reduce_scatter_block(const void* send, void* recv, int count, MPI_Datatype type,
                                        MPI_Op op, MPI_Comm comm) {
  trace("MPI_Reduce_scatter_block", count, -1, send, places(send, recv, type));
  return PMPI_Reduce_scatter_block(send, recv, count, type, op, comm);
}
extern "C" int MPI_Ireduce_scatter_block(const void* send, void* recv, int count, MPI_Datatype type,
                                         MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  trace("MPI_Ireduce_scatter_block", count, -1, send, places(send, recv, type));
  return PMPI_Ireduce_scatter_block(send, recv, count, type, op, comm, request);
}
extern "C" int MPI_Allgather(const void* send, int scount, MPI_Datatype stype, void* recv,
                             int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  trace("MPI_Allgather", scount, -1, send, places(send, recv, rtype));
  return PMPI_Allgather(send, scount, stype, recv, rcount, rtype, comm);
}
extern "C" int MPI_Iallgather(const void* send, int scount, MPI_Datatype stype, void* recv,
                              int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* request) {
  trace("MPI_Iallgather", scount, -1, send, places(send, recv, rtype));
  return PMPI_Iallgather(send, scount, stype, recv, rcount, rtype, comm, request);
}
extern "C" int MPI_Allgatherv(const void* send, int scount, MPI_Datatype stype, void* recv,
                              const int rcounts[], const int displs[], MPI_Datatype rtype,
                              MPI_Comm comm) {
  trace("MPI_Allgatherv", scount, -1, send, places(send, recv, rtype));
  return PMPI_Allgatherv(send, scount, stype, recv, rcounts, displs, rtype, comm);
}
extern "C" int MPI_Iallgatherv(const void* send, int scount, MPI_Datatype stype, void* recv,
                               const int rcounts[], const int displs[], MPI_Datatype rtype,
                               MPI_Comm comm, MPI_Request* request) {
  trace("MPI_Iallgatherv", scount, -1, send, places(send, recv, rtype));
  return PMPI_Iallgatherv(send, scount, stype, recv, rcounts, displs, rtype, comm, request);
}
extern "C" int MPI_Alltoall(const void* send, int scount, MPI_Datatype stype, void* recv,
                            int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  trace("MPI_Alltoall", scount, -1, send, places(send, recv, rtype));
  return PMPI_Alltoall(send, scount, stype, recv, rcount, rtype, comm);
}
extern "C" int MPI_Ialltoall(const void* send, int scount, MPI_Datatype stype, void* recv,
                             int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* request) {
  trace("MPI_Ialltoall", scount, -1, send, places(send, recv, rtype));
  return PMPI_Ialltoall(send, scount, stype, recv, rcount, rtype, comm, request);
}
extern "C" int MPI_Alltoallv(const void* send, const int scounts[], const int sdispls[],
                             MPI_Datatype stype, void* recv, const int rcounts[],
                             const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
  trace("MPI_Alltoallv", rcounts[0], -1, send, places(send, recv, rtype));
  return PMPI_Alltoallv(send, scounts, sdispls, stype, recv, rcounts, rdispls, rtype, comm);
}
extern "C" int MPI_Ialltoallv(const void* send, const int scounts[], const int sdispls[],
                              MPI_Datatype stype, void* recv, const int rcounts[],
                              const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                              MPI_Request* request) {
  trace("MPI_Ialltoallv", rcounts[0], -1, send, places(send, recv, rtype));
  return PMPI_Ialltoallv(send, scounts, sdispls, stype, recv, rcounts, rdispls, rtype, comm,
                         request);
}
extern "C" int MPI_Alltoallw(const void* send, const int scounts[], const int sdispls[],
                             const MPI_Datatype stypes[], void* recv, const int rcounts[],
                             const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm) {
  trace("MPI_Alltoallw", rcounts[0], -1, send,
        places(send, recv, rtypes[0]) + displacements(rdispls, comm));
  return PMPI_Alltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm);
}
extern "C" int MPI_Ialltoallw(const void* send, const int scounts[], const int sdispls[],
                              const MPI_Datatype stypes[], void* recv, const int rcounts[],
                              const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                              MPI_Request* request) {
  trace("MPI_Ialltoallw", rcounts[0], -1, send, places(send, recv, rtypes[0]));
  return PMPI_Ialltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm,
                         request);
}
extern "C" int MPI_Gather(const void* send, int scount, MPI_Datatype stype, void* recv, int rcount,
                          MPI_Datatype rtype, int root, MPI_Comm comm) {
  trace("MPI_Gather", scount, root, send, places(send, recv, stype));
  return PMPI_Gather(send, scount, stype, recv, rcount, rtype, root, comm);
}
extern "C" int MPI_Igather(const void* send, int scount, MPI_Datatype stype, void* recv, int rcount,
                           MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* request) {
  trace("MPI_Igather", scount, root, send, places(send, recv, stype));
  return PMPI_Igather(send, scount, stype, recv, rcount, rtype, root, comm, request);
}
extern "C" int MPI_Gatherv(const void* send, int scount, MPI_Datatype stype, void* recv,
                           const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
                           MPI_Comm comm) {
  trace("MPI_Gatherv", scount, root, send, places(send, recv, stype));
  return PMPI_Gatherv(send, scount, stype, recv, rcounts, displs, rtype, root, comm);
}
extern "C" int MPI_Igatherv(const void* send, int scount, MPI_Datatype stype, void* recv,
                            const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
                            MPI_Comm comm, MPI_Request* request) {
  trace("MPI_Igatherv", scount, root, send, places(send, recv, stype));
  return PMPI_Igatherv(send, scount, stype, recv, rcounts, displs, rtype, root, comm, request);
}
extern "C" int MPI_Scatter(const void* send, int scount, MPI_Datatype stype, void* recv, int rcount,
                           MPI_Datatype rtype, int root, MPI_Comm comm) {
  trace("MPI_Scatter", rcount, root, send, places(send, recv, stype));
  return PMPI_Scatter(send, scount, stype, recv, rcount, rtype, root, comm);
}
extern "C" int MPI_Iscatter(const void* send, int scount, MPI_Datatype stype, void* recv,
                            int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                            MPI_Request* request) {
  trace("MPI_Iscatter", rcount, root, send, places(send, recv, stype));
  return PMPI_Iscatter(send, scount, stype, recv, rcount, rtype, root, comm, request);
}
extern "C" int MPI_Scatterv(const void* send, const int scounts[], const int displs[],
                            MPI_Datatype stype, void* recv, int rcount, MPI_Datatype rtype,
                            int root, MPI_Comm comm) {
  trace("MPI_Scatterv", rcount, root, send, places(send, recv, stype));
  return PMPI_Scatterv(send, scounts, displs, stype, recv, rcount, rtype, root, comm);
}
extern "C" int MPI_Iscatterv(const void* send, const int scounts[], const int displs[],
                             MPI_Datatype stype, void* recv, int rcount, MPI_Datatype rtype,
                             int root, MPI_Comm comm, MPI_Request* request) {
  trace("MPI_Iscatterv", rcount, root, send, places(send, recv, stype));
  return PMPI_Iscatterv(send, scounts, displs, stype, recv, rcount, rtype, root, comm, request);
}
