// IMB-IO kernels. One template covers every flavour of Table 1: the action (read or write),
// how the file position is given (individual pointer, explicit offset, shared pointer), and who
// takes part (S_: one process; P_: all, independently, on a common file or, _priv, each on its
// own; C_: all, collectively). Writes assure completion with MPI_File_sync / MPI_Barrier /
// MPI_File_sync (guide 4.2.2.2.1). The I- flavours start the transfer, run CPU_Exploit, then
// wait for it.
#include "suites/imb/io/benchmarks.hpp"

#include <algorithm>
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
MPI_Offset physical_offset(Scope s, const PointContext& c, int i) {
  const auto x = static_cast<MPI_Offset>(c.bytes);
  const MPI_Offset step = i;
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
  MPI_File_set_view(c.file, 0, MPI_BYTE, filetype, "native", user_file_info());
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
      MPI_File_write_at(c.file, at, chunk.data(), static_cast<int>(n), MPI_BYTE, MPI_STATUS_IGNORE);
    }
  }
  MPI_File_sync(c.file);
  MPI_Barrier(file_comm(s, c));
  MPI_File_sync(c.file);
}

// Guide 5.2.3.2: the file per group (and per process for _priv), amode CREATE | RDWR.
template <Action A, Position P, Scope S>
void open_file(PointContext& c) {
  const std::string path = file_path(S, c);
  core::scratch_files::add(path);
  const int rc = MPI_File_open(file_comm(S, c), path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR,
                               user_file_info(), &c.file);
  if (rc != MPI_SUCCESS) {
    c.setup_error = "cannot open " + path + ": " + mpi::error_string(rc);
    c.file = MPI_FILE_NULL;
    return;
  }
  MPI_File_set_errhandler(c.file, MPI_ERRORS_ARE_FATAL);
  if (A == Action::Read) fill_for_reading(S, c);
  set_view(S, P, c);
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
  if (c.file != MPI_FILE_NULL) MPI_File_close(&c.file);
  if (own_file(S))
    core::scratch_files::remove(file_path(S, c));
  else
    remove_common_file(file_path(S, c), c.comm);
}

template <Scope S>
void sync_triplet(PointContext& c) {
  MPI_File_sync(c.file);
  MPI_Barrier(file_comm(S, c));
  MPI_File_sync(c.file);
}

template <Action A>
void* data(PointContext& c) {
  return A == Action::Write ? static_cast<void*>(c.send(0)) : static_cast<void*>(c.recv(0));
}

// The elementary, blocking transfer.
template <Action A, Position P, Scope S>
void transfer(PointContext& c, int i) {
  constexpr bool w = A == Action::Write, coll = S == Scope::Collective;
  void* buf = data<A>(c);
  const int n = c.count;
  MPI_Status* st = MPI_STATUS_IGNORE;
  if constexpr (P == Position::Individual) {
    if constexpr (coll)
      w ? MPI_File_write_all(c.file, buf, n, MPI_BYTE, st)
        : MPI_File_read_all(c.file, buf, n, MPI_BYTE, st);
    else
      w ? MPI_File_write(c.file, buf, n, MPI_BYTE, st)
        : MPI_File_read(c.file, buf, n, MPI_BYTE, st);
  } else if constexpr (P == Position::Explicit) {
    const MPI_Offset at = explicit_offset(S, c, i);
    if constexpr (coll)
      w ? MPI_File_write_at_all(c.file, at, buf, n, MPI_BYTE, st)
        : MPI_File_read_at_all(c.file, at, buf, n, MPI_BYTE, st);
    else
      w ? MPI_File_write_at(c.file, at, buf, n, MPI_BYTE, st)
        : MPI_File_read_at(c.file, at, buf, n, MPI_BYTE, st);
  } else {
    if constexpr (coll)
      w ? MPI_File_write_ordered(c.file, buf, n, MPI_BYTE, st)
        : MPI_File_read_ordered(c.file, buf, n, MPI_BYTE, st);
    else
      w ? MPI_File_write_shared(c.file, buf, n, MPI_BYTE, st)
        : MPI_File_read_shared(c.file, buf, n, MPI_BYTE, st);
  }
}

// The same transfer started, overlapped with CPU_Exploit, then finished.
template <Action A, Position P, Scope S>
void overlapped_transfer(PointContext& c, int i) {
  constexpr bool w = A == Action::Write;
  void* buf = data<A>(c);
  const int n = c.count;
  if constexpr (S == Scope::Collective) {  // split collectives: _begin ... _end
    if constexpr (P == Position::Individual) {
      w ? MPI_File_write_all_begin(c.file, buf, n, MPI_BYTE)
        : MPI_File_read_all_begin(c.file, buf, n, MPI_BYTE);
      core::cpu_exploit::run();
      w ? MPI_File_write_all_end(c.file, buf, MPI_STATUS_IGNORE)
        : MPI_File_read_all_end(c.file, buf, MPI_STATUS_IGNORE);
    } else if constexpr (P == Position::Explicit) {
      const MPI_Offset at = explicit_offset(S, c, i);
      w ? MPI_File_write_at_all_begin(c.file, at, buf, n, MPI_BYTE)
        : MPI_File_read_at_all_begin(c.file, at, buf, n, MPI_BYTE);
      core::cpu_exploit::run();
      w ? MPI_File_write_at_all_end(c.file, buf, MPI_STATUS_IGNORE)
        : MPI_File_read_at_all_end(c.file, buf, MPI_STATUS_IGNORE);
    } else {
      w ? MPI_File_write_ordered_begin(c.file, buf, n, MPI_BYTE)
        : MPI_File_read_ordered_begin(c.file, buf, n, MPI_BYTE);
      core::cpu_exploit::run();
      w ? MPI_File_write_ordered_end(c.file, buf, MPI_STATUS_IGNORE)
        : MPI_File_read_ordered_end(c.file, buf, MPI_STATUS_IGNORE);
    }
  } else {
    MPI_Request r;
    if constexpr (P == Position::Individual)
      w ? MPI_File_iwrite(c.file, buf, n, MPI_BYTE, &r)
        : MPI_File_iread(c.file, buf, n, MPI_BYTE, &r);
    else if constexpr (P == Position::Explicit) {
      const MPI_Offset at = explicit_offset(S, c, i);
      w ? MPI_File_iwrite_at(c.file, at, buf, n, MPI_BYTE, &r)
        : MPI_File_iread_at(c.file, at, buf, n, MPI_BYTE, &r);
    } else
      w ? MPI_File_iwrite_shared(c.file, buf, n, MPI_BYTE, &r)
        : MPI_File_iread_shared(c.file, buf, n, MPI_BYTE, &r);
    core::cpu_exploit::run();
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
}

// -check: reads return rank 0's pattern at the offset they read; writes are read back from the
// place they were written. Transfers through the shared pointer land where the race puts them,
// so only C_ (ordered) is checked among them.
template <Position P, Scope S>
constexpr bool position_known() {
  return P != Position::Shared || S == Scope::Collective;
}

template <Action A, Position P, Scope S>
Blocks expected(const PointContext& c, int i) {
  if (!position_known<P, S>() || c.bytes == 0) return {};
  if (A == Action::Read)
    return {{0, 0, static_cast<std::size_t>(physical_offset(S, c, i)), c.bytes}};
  return {{0, c.rank, 0, c.bytes}};
}

template <Position P, Scope S>
void read_back_written(PointContext& c) {
  if (!position_known<P, S>()) return;
  MPI_File_set_view(c.file, 0, MPI_BYTE, MPI_BYTE, "native", user_file_info());
  MPI_File_read_at(c.file, physical_offset(S, c, 0), c.recv(0), c.count, MPI_BYTE,
                   MPI_STATUS_IGNORE);
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
core::Benchmark define() {
  constexpr bool w = A == Action::Write;
  core::Benchmark b;
  b.name = std::string(scope_prefix(S)) + (Overlapped ? "I" : "") + (w ? "Write" : "Read") +
           position_suffix(P, S);
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
  b.setup = open_file<A, P, S>;
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
  }
  b.expected = expected<A, P, S>;
  return b;
}

// Open_Close (guide 4.2.4.10): all processes open the same file, do a negligible non-trivial
// thing with it (set the view), and close it.
void open_close(PointContext& c, int) {
  MPI_File f;
  MPI_File_open(c.comm, c.scratch_prefix.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, user_file_info(),
                &f);
  MPI_File_set_view(f, 0, MPI_BYTE, MPI_BYTE, "native", user_file_info());
  MPI_File_close(&f);
}
void probe_open(PointContext& c) {
  core::scratch_files::add(c.scratch_prefix);
  MPI_File f;
  const int rc = MPI_File_open(c.comm, c.scratch_prefix.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR,
                               user_file_info(), &f);
  if (rc != MPI_SUCCESS)
    c.setup_error = "cannot open " + c.scratch_prefix + ": " + mpi::error_string(rc);
  else
    MPI_File_close(&f);
}
void remove_file(PointContext& c) {
  core::scratch_files::remove(c.scratch_prefix);
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
