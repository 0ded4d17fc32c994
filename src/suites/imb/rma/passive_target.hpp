// Passive-target one-sided communication (MPI-3 RMA) as engine kernels: a window over a message
// region, a lock epoch opened by the origins when the point is set up and closed when it is
// released (outside every timed loop), and one template per MPI call whose parameters say who
// the origins are, whom they address and how completion is assured. IMB-RMA's benchmarks are
// instances of these templates (benchmarks.cpp).
#pragma once

#include <mpi.h>

#include <cstddef>

#include "core/benchmark.hpp"

namespace mpiscope::imb::rma {

// The one-sided call a kernel makes.
enum class Access { Put, Get, Accumulate, GetAccumulate, FetchAndOp, CompareAndSwap };
// Which ranks issue it: rank 0 alone (to rank 1 or to everyone), or every rank.
enum class Origins { RankZero, Every };
// Whom an origin addresses: its partner in a pair (the other of ranks 0 and 1), every other
// rank (starting after itself, as IMB does to spread the load), or its two neighbours in a ring.
enum class Peers { Partner, AllOthers, Neighbours };
// Where the window's memory comes from: the point's message buffers (MPI_Win_create, IMB's),
// the library (MPI_Win_allocate, OSU's default; -check cannot see into it), or the message
// buffers attached to a dynamic window (MPI_Win_create_dynamic, OSU's -w dynamic), where a
// target is addressed by its region's address.
enum class Window { Create, Allocate, Dynamic };
// The element of the calls: IMB's (MPI_BYTE moves, MPI_FLOAT sums, MPI_INT swaps) or OSU's
// default MPI_CHAR for every call.
enum class Elements { Imb, Char };
// How completion is assured: at the target (MPI_Win_flush*) or at the origin only
// (MPI_Win_flush_local*: the origin's buffer may be reused; the target may not have the data).
enum class Flush { Remote, Local };

template <Origins O>
bool is_origin(const core::PointContext& c) {
  return O == Origins::Every || c.rank == 0;
}
inline int partner(const core::PointContext& c) {
  return 1 - c.rank;
}

// Gets read the target's send region; everything else writes into its receive region.
constexpr bool window_on_send(Access a) {
  return a == Access::Get;
}

// Window displacement of repetition i at `target`: -off_cache rotates through slots of the
// window region; a dynamic window adds the target region's address.
template <Access A>
MPI_Aint displacement(const core::PointContext& c, int i, int target) {
  return c.window_base(target) +
         (window_on_send(A) ? c.send(i) - c.send(0) : c.recv(i) - c.recv(0));
}

template <Access A, Elements E>
MPI_Datatype element_type() {
  if constexpr (E == Elements::Char) return MPI_CHAR;
  if constexpr (A == Access::Put || A == Access::Get) return MPI_BYTE;
  if constexpr (A == Access::CompareAndSwap) return MPI_INT;
  return MPI_FLOAT;
}

// One call of X bytes (X/4 floats for IMB's accumulates; one element for the atomics) to
// `target`, `offset` bytes into both the local buffer and the target's window slot.
template <Access A, Elements E = Elements::Imb>
void access(core::PointContext& c, int i, int target, std::size_t offset) {
  static const std::byte kCompare[sizeof(int)] = {};  // Compare_and_swap: swaps while zero
  const MPI_Aint at = displacement<A>(c, i, target) + static_cast<MPI_Aint>(offset);
  const MPI_Datatype type = element_type<A, E>();
  std::byte* out = c.send(i) + offset;
  std::byte* in = c.recv(i) + offset;
  if constexpr (A == Access::Put)
    MPI_Put(out, c.count, type, target, at, c.count, type, c.window);
  else if constexpr (A == Access::Get)
    MPI_Get(in, c.count, type, target, at, c.count, type, c.window);
  else if constexpr (A == Access::Accumulate)
    MPI_Accumulate(out, c.count, type, target, at, c.count, type, MPI_SUM, c.window);
  else if constexpr (A == Access::GetAccumulate)
    MPI_Get_accumulate(out, c.count, type, in, c.count, type, target, at, c.count, type, MPI_SUM,
                       c.window);
  else if constexpr (A == Access::FetchAndOp)
    MPI_Fetch_and_op(out, in, type, target, at, MPI_SUM, c.window);
  else
    MPI_Compare_and_swap(out, kCompare, in, type, target, at, c.window);
}

// One repetition: every origin addresses each of its peers. Exchange (Neighbours) moves two
// blocks: a put sends its first X bytes to the left and its second to the right neighbour's
// second block; a get reads the right neighbour's first block and the left one's second.
template <Access A, Origins O, Peers P>
void transfer(core::PointContext& c, int i) {
  if (!is_origin<O>(c)) return;
  if constexpr (P == Peers::Partner) {
    access<A>(c, i, partner(c), 0);
  } else if constexpr (P == Peers::AllOthers) {
    for (int k = 1; k < c.nprocs; ++k) access<A>(c, i, (c.rank + k) % c.nprocs, 0);
  } else {
    const bool put = A != Access::Get;
    access<A>(c, i, put ? c.left() : c.right(), 0);
    access<A>(c, i, put ? c.right() : c.left(), c.bytes);
  }
}

// Assures completion of the origin's calls to one target, or to all of them.
template <Flush F>
void flush_one(core::PointContext& c, int target) {
  if constexpr (F == Flush::Remote)
    MPI_Win_flush(target, c.window);
  else
    MPI_Win_flush_local(target, c.window);
}
template <Origins O, Peers P, Flush F>
void flush(core::PointContext& c) {
  if (!is_origin<O>(c)) return;
  if constexpr (P == Peers::Partner) {
    flush_one<F>(c, partner(c));
  } else if constexpr (P == Peers::AllOthers) {
    if constexpr (F == Flush::Remote)
      MPI_Win_flush_all(c.window);
    else
      MPI_Win_flush_local_all(c.window);
  } else {
    flush_one<F>(c, c.left());
    if (c.right() != c.left()) flush_one<F>(c, c.right());
  }
}

// Set-up: MPI_Win_create over the region the access needs (a failure becomes the point's
// set-up error), then the origins open their epoch: MPI_Win_lock(MPI_LOCK_SHARED) on each peer,
// or MPI_Win_lock_all for all of them. Release closes the epoch and frees the window.
bool create_window(core::PointContext& c, bool on_send, Window kind);
template <Access A, Origins O, Peers P, Window W = Window::Create>
void open_window(core::PointContext& c) {
  if (!create_window(c, window_on_send(A), W) || !is_origin<O>(c)) return;
  if constexpr (P == Peers::Partner) {
    MPI_Win_lock(MPI_LOCK_SHARED, partner(c), 0, c.window);
  } else if constexpr (P == Peers::AllOthers) {
    MPI_Win_lock_all(0, c.window);
  } else {
    MPI_Win_lock(MPI_LOCK_SHARED, c.left(), 0, c.window);
    if (c.right() != c.left()) MPI_Win_lock(MPI_LOCK_SHARED, c.right(), 0, c.window);
  }
}
// Frees the window (detaching a dynamic window's region first).
void free_window(core::PointContext& c);
template <Origins O, Peers P>
void close_window(core::PointContext& c) {
  if (c.window == MPI_WIN_NULL) return;
  if (is_origin<O>(c)) {
    if constexpr (P == Peers::Partner) {
      MPI_Win_unlock(partner(c), c.window);
    } else if constexpr (P == Peers::AllOthers) {
      MPI_Win_unlock_all(c.window);
    } else {
      MPI_Win_unlock(c.left(), c.window);
      if (c.right() != c.left()) MPI_Win_unlock(c.right(), c.window);
    }
  }
  free_window(c);
}

// -check: what a passive target holds is complete once its origins have flushed; the barrier
// says so to the target before it reads its window.
void barrier_before_reading(core::PointContext& c);

}  // namespace mpiscope::imb::rma
