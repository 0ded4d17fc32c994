// IMB-IO kernels. One template covers every flavour of Table 1: the action (read or write),
// how the file position is given (individual pointer, explicit offset, shared pointer), and who
// takes part (S_: one process; P_: all, independently, on a common file or, _priv, each on its
// own; C_: all, collectively). Writes assure completion with MPI_File_sync / MPI_Barrier /
// MPI_File_sync (guide 4.2.2.2.1). The I- flavours start the transfer, run CPU_Exploit, then
// wait for it.
#include "suites/imb/io/benchmarks.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <string>

#include "core/buffers.hpp"
#include "core/cpu_exploit.hpp"
#include "core/mpi.hpp"
#include "core/scratch_files.hpp"

namespace mpiscope::imb::io {

MPI_Info user_file_info() {
  return MPI_INFO_NULL;
}

namespace {
using core::ExpectedBlock;
using core::PointContext;
using Blocks = std::vector<ExpectedBlock>;

enum class Action { Read, Write };
enum class Position { Individual, Explicit, Shared };
enum class Scope { Single, Parallel, Private, Collective };

// Failures. The MPI standard's default error handler for files is MPI_ERRORS_RETURN, so every
// MPI_File_* call's code is checked. A rank notes its first failure (cheaply: in the timed loops
// an int comparison and MPI_Get_count per call); the ranks of a group agree on failures after each
// set-up and release (outside any timed region), and a failure ends the job with one message and no
// file left behind.
std::string running_benchmark;  // set by the set-up, for the message
std::string first_failure;      // on this rank, since the last agreement

[[gnu::noinline, gnu::cold]] void note_failure(int rc, const char* call) {
  if (first_failure.empty())
    first_failure = std::string(call) + " failed: " + mpi::error_string(rc);
}
inline void checked(int rc, const char* call) {
  if (rc != MPI_SUCCESS) [[unlikely]]
    note_failure(rc, call);
}
// Some libraries (Open MPI's OMPIO) report a full file system only by moving fewer bytes than
// asked, with MPI_SUCCESS: transfers check the count in their status too.
[[gnu::noinline, gnu::cold]] void note_short(int moved, int asked, const char* call) {
  if (first_failure.empty())
    first_failure = std::string(call) + " moved " + std::to_string(moved) + " of " +
                    std::to_string(asked) + " bytes";
}
inline void checked(int rc, const MPI_Status& status, int asked, const char* call) {
  int moved = 0;
  if (rc != MPI_SUCCESS) [[unlikely]]
    note_failure(rc, call);
  else if (MPI_Get_count(&status, MPI_BYTE, &moved) != MPI_SUCCESS || moved != asked) [[unlikely]]
    note_short(moved, asked, call);
}

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// Collective over the group: if any rank noted a failure, every rank removes its files, group
// rank 0 prints the first failing rank's reason once, and the job is aborted (a full or failing
// file system makes every further measurement meaningless). Called from release hooks, which may
// run in a destructor, so the job ends here rather than by an exception.
void end_job_if_any_rank_failed(const PointContext& c) {
  int mine = first_failure.empty() ? INT_MAX : c.rank, first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, c.comm);
  if (first == INT_MAX) return;
  const std::string reason = mpi::broadcast(first_failure, first, c.comm);
  core::scratch_files::remove_all();
  MPI_Barrier(c.comm);  // every rank's files are gone before the abort
  if (c.rank == 0) {
    std::fprintf(stderr, "mpiscope imb-io: error: %s in %s (on group rank %d): %s\n",
                 running_benchmark.c_str(), directory_of(c.scratch_prefix).c_str(), first,
                 reason.c_str());
    mpi::abort_job(1);
  }
  MPI_Barrier(c.comm);  // never completes: rank 0 ends the job
}

constexpr bool own_file(Scope s) {
  return s == Scope::Single || s == Scope::Private;
}
MPI_Comm file_comm(Scope s, const PointContext& c) {
  return own_file(s) ? MPI_COMM_SELF : c.comm;
}
std::string file_path(Scope s, const PointContext& c) {
  return c.scratch_prefix + (s == Scope::Private ? "_" + std::to_string(c.rank) : "");
}

// Where in the file (in bytes) this rank's transfer i lands: consecutive places on an own file;
// rank-interleaved blocks on a common one (P_indv's tiled view, P_expl's offsets, C_shared's
// order). Successive transfers go to disjoint places in both modes, as the file pointers do
// (guide 4.2.2.2.2 requires it for aggregate mode).
// Transfers beyond the point's repetitions (--method accurate keeps going) wrap around to the
// start of the region that was filled for reading.
MPI_Offset physical_offset(Scope s, const PointContext& c, int i) {
  const auto x = static_cast<MPI_Offset>(c.bytes);
  const MPI_Offset step = i % std::max(1, c.repetitions);
  if (own_file(s)) return step * x;
  return (step * c.nprocs + c.rank) * x;
}
// Explicit offsets are counted in the (byte) view; the individual pointer walks the view.
MPI_Offset explicit_offset(Scope s, const PointContext& c, int i) {
  return physical_offset(s, c, i);
}

// Guide 5.2.3.4: disp 0, native; P_ and C_ with an individual pointer see their own tiles of X
// bytes in a row of nprocs tiles.
void set_view(Scope s, Position p, PointContext& c) {
  MPI_Datatype filetype = MPI_BYTE;
  const bool tiled = p == Position::Individual && !own_file(s) && c.bytes > 0;
  if (tiled) {
    MPI_Datatype block;
    const int length = c.count;
    const MPI_Aint where = static_cast<MPI_Aint>(c.rank) * static_cast<MPI_Aint>(c.bytes);
    MPI_Type_create_hindexed(1, &length, &where, MPI_BYTE, &block);
    MPI_Type_create_resized(
        block, 0, static_cast<MPI_Aint>(c.nprocs) * static_cast<MPI_Aint>(c.bytes), &filetype);
    MPI_Type_free(&block);
    MPI_Type_commit(&filetype);
  }
  checked(MPI_File_set_view(c.file, 0, MPI_BYTE, filetype, "native", user_file_info()),
          "MPI_File_set_view");
  if (tiled) MPI_Type_free(&filetype);
}

// Reads need data: the file gets the bytes of rank 0's pattern at their own offsets, so that
// what any read returns is known (-check) wherever it lands.
void fill_for_reading(Scope s, PointContext& c) {
  const MPI_Offset extent =
      static_cast<MPI_Offset>(c.bytes) * c.repetitions * (own_file(s) ? 1 : c.nprocs);
  int writer = 0;
  MPI_Comm_rank(file_comm(s, c), &writer);
  if (writer == 0) {
    std::vector<std::byte> chunk(std::min<MPI_Offset>(extent, 1 << 20));
    for (MPI_Offset at = 0; at < extent; at += static_cast<MPI_Offset>(chunk.size())) {
      const auto n = static_cast<std::size_t>(
          std::min<MPI_Offset>(extent - at, static_cast<MPI_Offset>(chunk.size())));
      core::fill_pattern(chunk.data(), n, 0, static_cast<std::size_t>(at));
      MPI_Status status;
      checked(MPI_File_write_at(c.file, at, chunk.data(), static_cast<int>(n), MPI_BYTE, &status),
              status, static_cast<int>(n), "MPI_File_write_at (filling the file to read)");
      if (!first_failure.empty()) break;
    }
  }
  checked(MPI_File_sync(c.file), "MPI_File_sync");
  MPI_Barrier(file_comm(s, c));
  checked(MPI_File_sync(c.file), "MPI_File_sync");
}

// Guide 5.2.3.2: the file per group (and per process for _priv), amode CREATE | RDWR; with EXCL
// too, so that a file that happens to have the name is never overwritten (the open fails then).
constexpr int kCreateAmode = MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR;

// Opens the file; false (a failure noted) if it cannot be created: a directory that passed the
// front end's check but where files cannot be made (no inodes left, immutable), a file of that
// name that exists already or a run directory that was replaced ends the job like any other
// file-system failure. The file is in the run's own directory (scratch_files::RunDirectory), so
// the reopens by name that follow (MPI-IO's own after a create, Open_Close's) find this file.
bool create_file(PointContext& c, MPI_Comm comm, const std::string& path) {
  if (const auto problem = core::scratch_files::run_directory_problem(); !problem.empty()) {
    if (first_failure.empty()) first_failure = problem;
    c.file = MPI_FILE_NULL;
    return false;
  }
  core::scratch_files::add(path);
  const int rc = MPI_File_open(comm, path.c_str(), kCreateAmode, user_file_info(), &c.file);
  if (rc == MPI_SUCCESS) {
    MPI_File_set_errhandler(c.file, MPI_ERRORS_RETURN);  // the default; made explicit
    return true;
  }
  if (first_failure.empty()) first_failure = "cannot create " + path + ": " + mpi::error_string(rc);
  c.file = MPI_FILE_NULL;
  core::scratch_files::forget(path);  // EXCL: a file that was there before is not ours to delete
  return false;
}

template <Action A, Position P, Scope S, bool Overlapped>
std::string benchmark_name();

template <Action A, Position P, Scope S, bool Overlapped>
void open_file(PointContext& c) {
  running_benchmark = benchmark_name<A, P, S, Overlapped>();
  if (create_file(c, file_comm(S, c), file_path(S, c))) {
    if (A == Action::Read) fill_for_reading(S, c);
    set_view(S, P, c);
  }
  end_job_if_any_rank_failed(c);
}

// A common file is deleted by one rank once every rank has closed it, so that no rank deletes a
// file another has just opened again for the next point.
void remove_common_file(const std::string& path, MPI_Comm comm) {
  MPI_Barrier(comm);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) core::scratch_files::remove(path);
  MPI_Barrier(comm);
  core::scratch_files::forget(path);
}

template <Scope S>
void close_file(PointContext& c) {
  if (c.file != MPI_FILE_NULL) checked(MPI_File_close(&c.file), "MPI_File_close");
  end_job_if_any_rank_failed(c);
  if (own_file(S))
    core::scratch_files::remove(file_path(S, c));
  else
    remove_common_file(file_path(S, c), c.comm);
}

template <Scope S>
void sync_triplet(PointContext& c) {
  checked(MPI_File_sync(c.file), "MPI_File_sync");
  MPI_Barrier(file_comm(S, c));
  checked(MPI_File_sync(c.file), "MPI_File_sync");
}

template <Action A>
void* data(PointContext& c) {
  return A == Action::Write ? static_cast<void*>(c.send(0)) : static_cast<void*>(c.recv(0));
}

// --method accurate runs more transfers than the point's repetitions: file pointers go back to
// the start of the file then, so that every read reads data that was written for it.
template <Position P, Scope S>
[[gnu::cold]] void rewind(PointContext& c) {
  if constexpr (P == Position::Individual)
    checked(MPI_File_seek(c.file, 0, MPI_SEEK_SET), "MPI_File_seek");
  else if constexpr (P == Position::Shared)  // collective: every rank is at the same repetition
    checked(MPI_File_seek_shared(c.file, 0, MPI_SEEK_SET), "MPI_File_seek_shared");
}
template <Position P, Scope S>
inline void wrap_pointer(PointContext& c, int i) {
  const int n = std::max(1, c.repetitions);
  if (i >= n && i % n == 0) [[unlikely]]
    rewind<P, S>(c);
}

// The elementary, blocking transfer.
template <Action A, Position P, Scope S>
void transfer(PointContext& c, int i) {
  constexpr bool w = A == Action::Write, coll = S == Scope::Collective;
  void* buf = data<A>(c);
  const int n = c.count;
  MPI_Status status;
  MPI_Status* st = &status;
  if constexpr (P == Position::Individual) {
    wrap_pointer<P, S>(c, i);
    if constexpr (coll)
      checked(w ? MPI_File_write_all(c.file, buf, n, MPI_BYTE, st)
                : MPI_File_read_all(c.file, buf, n, MPI_BYTE, st),
              status, n, w ? "MPI_File_write_all" : "MPI_File_read_all");
    else
      checked(w ? MPI_File_write(c.file, buf, n, MPI_BYTE, st)
                : MPI_File_read(c.file, buf, n, MPI_BYTE, st),
              status, n, w ? "MPI_File_write" : "MPI_File_read");
  } else if constexpr (P == Position::Explicit) {
    const MPI_Offset at = explicit_offset(S, c, i);
    if constexpr (coll)
      checked(w ? MPI_File_write_at_all(c.file, at, buf, n, MPI_BYTE, st)
                : MPI_File_read_at_all(c.file, at, buf, n, MPI_BYTE, st),
              status, n, w ? "MPI_File_write_at_all" : "MPI_File_read_at_all");
    else
      checked(w ? MPI_File_write_at(c.file, at, buf, n, MPI_BYTE, st)
                : MPI_File_read_at(c.file, at, buf, n, MPI_BYTE, st),
              status, n, w ? "MPI_File_write_at" : "MPI_File_read_at");
  } else {
    wrap_pointer<P, S>(c, i);
    if constexpr (coll)
      checked(w ? MPI_File_write_ordered(c.file, buf, n, MPI_BYTE, st)
                : MPI_File_read_ordered(c.file, buf, n, MPI_BYTE, st),
              status, n, w ? "MPI_File_write_ordered" : "MPI_File_read_ordered");
    else
      checked(w ? MPI_File_write_shared(c.file, buf, n, MPI_BYTE, st)
                : MPI_File_read_shared(c.file, buf, n, MPI_BYTE, st),
              status, n, w ? "MPI_File_write_shared" : "MPI_File_read_shared");
  }
}

// The same transfer started, overlapped with CPU_Exploit, then finished.
template <Action A, Position P, Scope S>
void overlapped_transfer(PointContext& c, int i) {
  constexpr bool w = A == Action::Write;
  void* buf = data<A>(c);
  const int n = c.count;
  MPI_Status status;
  if constexpr (P != Position::Explicit) wrap_pointer<P, S>(c, i);
  if constexpr (S == Scope::Collective) {  // split collectives: _begin ... _end
    if constexpr (P == Position::Individual) {
      checked(w ? MPI_File_write_all_begin(c.file, buf, n, MPI_BYTE)
                : MPI_File_read_all_begin(c.file, buf, n, MPI_BYTE),
              w ? "MPI_File_write_all_begin" : "MPI_File_read_all_begin");
      core::cpu_exploit::run();
      checked(w ? MPI_File_write_all_end(c.file, buf, &status)
                : MPI_File_read_all_end(c.file, buf, &status),
              status, n, w ? "MPI_File_write_all_end" : "MPI_File_read_all_end");
    } else if constexpr (P == Position::Explicit) {
      const MPI_Offset at = explicit_offset(S, c, i);
      checked(w ? MPI_File_write_at_all_begin(c.file, at, buf, n, MPI_BYTE)
                : MPI_File_read_at_all_begin(c.file, at, buf, n, MPI_BYTE),
              w ? "MPI_File_write_at_all_begin" : "MPI_File_read_at_all_begin");
      core::cpu_exploit::run();
      checked(w ? MPI_File_write_at_all_end(c.file, buf, &status)
                : MPI_File_read_at_all_end(c.file, buf, &status),
              status, n, w ? "MPI_File_write_at_all_end" : "MPI_File_read_at_all_end");
    } else {
      checked(w ? MPI_File_write_ordered_begin(c.file, buf, n, MPI_BYTE)
                : MPI_File_read_ordered_begin(c.file, buf, n, MPI_BYTE),
              w ? "MPI_File_write_ordered_begin" : "MPI_File_read_ordered_begin");
      core::cpu_exploit::run();
      checked(w ? MPI_File_write_ordered_end(c.file, buf, &status)
                : MPI_File_read_ordered_end(c.file, buf, &status),
              status, n, w ? "MPI_File_write_ordered_end" : "MPI_File_read_ordered_end");
    }
  } else {
    MPI_Request r = MPI_REQUEST_NULL;
    if constexpr (P == Position::Individual)
      checked(w ? MPI_File_iwrite(c.file, buf, n, MPI_BYTE, &r)
                : MPI_File_iread(c.file, buf, n, MPI_BYTE, &r),
              w ? "MPI_File_iwrite" : "MPI_File_iread");
    else if constexpr (P == Position::Explicit) {
      const MPI_Offset at = explicit_offset(S, c, i);
      checked(w ? MPI_File_iwrite_at(c.file, at, buf, n, MPI_BYTE, &r)
                : MPI_File_iread_at(c.file, at, buf, n, MPI_BYTE, &r),
              w ? "MPI_File_iwrite_at" : "MPI_File_iread_at");
    } else
      checked(w ? MPI_File_iwrite_shared(c.file, buf, n, MPI_BYTE, &r)
                : MPI_File_iread_shared(c.file, buf, n, MPI_BYTE, &r),
              w ? "MPI_File_iwrite_shared" : "MPI_File_iread_shared");
    core::cpu_exploit::run();
    checked(MPI_Wait(&r, &status), status, n,
            w ? "MPI_File_iwrite + MPI_Wait" : "MPI_File_iread + MPI_Wait");
  }
}

// -check: reads return rank 0's pattern at the offset they read; writes are read back from the
// place they were written. Through the shared pointer of P_ the ranks race, so where a block
// landed is found from the data: the X-byte slot, among those the transfers so far can have
// reached, whose expected content it matches best (the pattern encodes its offset).
std::size_t shared_landing = 0;  // byte offset of the slot found for the last -check transfer

template <Position P, Scope S>
constexpr bool position_raced() {
  return P == Position::Shared && S != Scope::Collective;
}

std::size_t best_slot(const PointContext& c, int i, const std::byte* got, int pattern_rank) {
  const auto x = c.bytes;
  const int slots = (i % std::max(1, c.repetitions) + 1) * c.nprocs;
  std::size_t best = 0, fewest = x + 1;
  for (int k = 0; k < slots && fewest > 0; ++k) {
    const std::size_t wrong =
        core::count_pattern_mismatches(got, x, pattern_rank, static_cast<std::size_t>(k) * x);
    if (wrong < fewest) fewest = wrong, best = static_cast<std::size_t>(k) * x;
  }
  return best;
}

template <Action A, Position P, Scope S>
Blocks expected(const PointContext& c, int i) {
  if (c.bytes == 0) return {};
  if (A == Action::Write) return {{0, c.rank, 0, c.bytes}};
  const std::size_t at =
      position_raced<P, S>() ? shared_landing : static_cast<std::size_t>(physical_offset(S, c, i));
  return {{0, 0, at, c.bytes}};
}

// Reads through the shared pointer: find the slot the block came from (rank 0's pattern there).
void locate_shared_read(PointContext& c) {
  if (c.bytes > 0) shared_landing = best_slot(c, 0, c.recv(0), 0);
}

template <Position P, Scope S>
void read_back_written(PointContext& c) {
  if (c.bytes == 0) return;
  checked(MPI_File_set_view(c.file, 0, MPI_BYTE, MPI_BYTE, "native", user_file_info()),
          "MPI_File_set_view");
  MPI_Offset at = physical_offset(S, c, 0);
  if constexpr (position_raced<P, S>()) {
    // This rank's block is in one of the Q slots of the first transfer: the one holding its
    // pattern (the send buffer's content) best.
    std::size_t best = 0, fewest = c.bytes + 1;
    for (int k = 0; k < c.nprocs && fewest > 0; ++k) {
      const auto slot = static_cast<MPI_Offset>(k) * static_cast<MPI_Offset>(c.bytes);
      checked(MPI_File_read_at(c.file, slot, c.recv(0), c.count, MPI_BYTE, MPI_STATUS_IGNORE),
              "MPI_File_read_at");
      const std::size_t wrong = core::count_pattern_mismatches(c.recv(0), c.bytes, c.rank, 0);
      if (wrong < fewest) fewest = wrong, best = static_cast<std::size_t>(slot);
    }
    at = static_cast<MPI_Offset>(best);
  }
  checked(MPI_File_read_at(c.file, at, c.recv(0), c.count, MPI_BYTE, MPI_STATUS_IGNORE),
          "MPI_File_read_at");
}

core::BufferShape one_block(std::size_t x, int, int) {
  return {x, x};
}

const char* scope_prefix(Scope s) {
  switch (s) {
    case Scope::Single:
      return "S_";
    case Scope::Collective:
      return "C_";
    default:
      return "P_";
  }
}
const char* position_suffix(Position p, Scope s) {
  if (s == Scope::Private) return "_priv";
  return p == Position::Individual ? "_indv" : p == Position::Explicit ? "_expl" : "_shared";
}

template <Action A, Position P, Scope S, bool Overlapped>
std::string benchmark_name() {
  return std::string(scope_prefix(S)) + (Overlapped ? "I" : "") +
         (A == Action::Write ? "Write" : "Read") + position_suffix(P, S);
}

template <Action A, Position P, Scope S, bool Overlapped>
core::Benchmark define() {
  constexpr bool w = A == Action::Write;
  core::Benchmark b;
  b.name = benchmark_name<A, P, S, Overlapped>();
  b.family = S == Scope::Single       ? core::Family::SingleTransfer
             : S == Scope::Collective ? core::Family::Collective
                                      : core::Family::ParallelTransfer;
  b.fixed_processes = S == Scope::Single ? 1 : 0;
  b.turnover = Overlapped ? 0 : 1;              // t_ovrl includes CPU work: no throughput from it
  b.turnover_per_process = S != Scope::Single;  // guide 4.2.1.2: the sum over all processes
  b.warm_up = false;                            // guide 5.2.6: MPI1 and EXT only
  b.uses_files = true;
  // Blocking writes run non-aggregate and aggregate; non-blocking ones only non-aggregate
  // (IMB 3.2.4); reads have no completion step to place.
  if (w)
    b.modes = Overlapped
                  ? std::vector{core::Aggregation::NonAggregate}
                  : std::vector{core::Aggregation::NonAggregate, core::Aggregation::Aggregate};
  b.nonaggregate_repetitions = Overlapped;
  b.shape = one_block;
  b.setup = open_file<A, P, S, Overlapped>;
  b.release = close_file<S>;
  if constexpr (w) {
    if constexpr (Overlapped)
      b.kernel = core::kernel<overlapped_transfer<A, P, S>, sync_triplet<S>>();
    else
      b.kernel = core::kernel<transfer<A, P, S>, sync_triplet<S>>();
    b.fetch_for_check = read_back_written<P, S>;
  } else {
    if constexpr (Overlapped)
      b.kernel = core::kernel<overlapped_transfer<A, P, S>>();
    else
      b.kernel = core::kernel<transfer<A, P, S>>();
    if constexpr (position_raced<P, S>()) b.fetch_for_check = locate_shared_read;
  }
  b.expected = expected<A, P, S>;
  return b;
}

// Open_Close (guide 4.2.4.10): all processes open the same file, do a negligible non-trivial
// thing with it (as IMB: write one etype, a byte, with the individual file pointer), and close
// it. The set-up creates the file (EXCL) in the run's own directory; the timed opens find it
// there, and nobody else can have put another file in its place.
void open_close(PointContext& c, int) {
  MPI_File f = MPI_FILE_NULL;
  const int rc =
      MPI_File_open(c.comm, c.scratch_prefix.c_str(), MPI_MODE_RDWR, user_file_info(), &f);
  checked(rc, "MPI_File_open");
  if (rc != MPI_SUCCESS) [[unlikely]]
    return;
  const std::byte one{1};
  checked(MPI_File_write(f, &one, 1, MPI_BYTE, MPI_STATUS_IGNORE), "MPI_File_write");
  checked(MPI_File_close(&f), "MPI_File_close");
}
void probe_open(PointContext& c) {
  running_benchmark = "Open_Close";
  if (create_file(c, c.comm, c.scratch_prefix)) checked(MPI_File_close(&c.file), "MPI_File_close");
  end_job_if_any_rank_failed(c);
}
void remove_file(PointContext& c) {
  end_job_if_any_rank_failed(c);
  remove_common_file(c.scratch_prefix, c.comm);
}

// Table 1's rows, in its order: each form's Write, then its Read; blocking or non-blocking.
template <Position P, Scope S, bool Overlapped>
void add_form(std::vector<core::Benchmark>& list) {
  list.push_back(define<Action::Write, P, S, Overlapped>());
  list.push_back(define<Action::Read, P, S, Overlapped>());
}
template <bool Overlapped>
void add_flavours(std::vector<core::Benchmark>& list) {
  add_form<Position::Individual, Scope::Single, Overlapped>(list);
  add_form<Position::Explicit, Scope::Single, Overlapped>(list);
  add_form<Position::Individual, Scope::Parallel, Overlapped>(list);
  add_form<Position::Explicit, Scope::Parallel, Overlapped>(list);
  add_form<Position::Shared, Scope::Parallel, Overlapped>(list);
  add_form<Position::Individual, Scope::Private, Overlapped>(list);
  add_form<Position::Individual, Scope::Collective, Overlapped>(list);
  add_form<Position::Explicit, Scope::Collective, Overlapped>(list);
  add_form<Position::Shared, Scope::Collective, Overlapped>(list);
}
}  // namespace

const std::vector<core::Benchmark>& all_benchmarks() {
  static const std::vector<core::Benchmark> list = [] {
    std::vector<core::Benchmark> all;
    core::Benchmark oc;
    oc.name = "Open_Close";
    oc.family = core::Family::Collective;
    oc.sized = false;
    oc.uses_files = true;
    oc.shape = [](std::size_t, int, int) { return core::BufferShape{}; };
    oc.kernel = core::kernel<open_close>();
    oc.setup = probe_open;
    oc.release = remove_file;
    oc.warm_up = false;
    all.push_back(oc);
    add_flavours<false>(all);
    add_flavours<true>(all);
    // The I- flavours point at their blocking twins, which give t_pure. (Moving the vector out
    // keeps its elements where they are.)
    for (auto& b : all) {
      const auto at = b.name.find("_I");
      if (at == std::string::npos) continue;
      const std::string twin = b.name.substr(0, at + 1) + b.name.substr(at + 2);
      for (const auto& t : all)
        if (t.name == twin) b.blocking_twin = &t;
    }
    return all;
  }();
  return list;
}

}  // namespace mpiscope::imb::io
