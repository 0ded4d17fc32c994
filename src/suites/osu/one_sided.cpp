// OSU's one-sided programs (c/mpi/one-sided in OSU 7.4) on IMB-RMA's calls
// (imb/rma/passive_target.hpp), between rank 0 (the origin) and rank 1. One iteration is one of
// OSU's: a burst of calls (one for the latency programs, a window of -W for the bandwidth ones,
// message j at j·X in both buffers) inside the synchronisation -s names:
//
//   flush, flush_local  rank 0 locks rank 1 (shared) when the point is set up; burst, then
//                       MPI_Win_flush (MPI_Win_flush_local) of rank 1
//   lock, lock_all      MPI_Win_lock (shared) / MPI_Win_lock_all, burst, unlock, every iteration
//   fence               latency: fence, rank 0's burst, fence, rank 1's burst back, fence (a
//                       round trip, the latency half of it); bandwidth: fence, burst, fence;
//                       osu_put_bibw: both ranks burst between the two fences
//   pscw                latency: rank 0 start, burst, complete, then post, wait; rank 1 the
//                       mirror (a round trip, halved); bandwidth: rank 0 start, burst, complete,
//                       rank 1 post, wait; osu_put_bibw: both post, start, burst, complete, wait
//
// Each choice is a template instance; one_sided() picks it from the options.
//
// Two programs of a fork of OSU 7.4 (the cMPI project's; no OSU release has them) run every pair
// at once, rank r < P/2 the origin of rank r + P/2, in -s flush only: osu_get_multi_lat is
// osu_get_latency's flush loop on every pair; osu_get_mbw's iteration is a barrier, then on
// every origin MPI_Win_lock (shared), a window of MPI_Get, MPI_Win_flush and MPI_Win_unlock.
#include <mpi.h>

#include <array>
#include <stdexcept>
#include <type_traits>

#include "suites/imb/rma/passive_target.hpp"
#include "suites/osu/osu.hpp"

namespace mpiscope::osu {
namespace {
using core::PointContext;
using imb::rma::Access;
using imb::rma::Elements;
using imb::rma::Window;

enum class Pattern { Latency, Bandwidth, BothWays };

// The partner as a group of one, for MPI_Win_start and MPI_Win_post; made when the point is
// set up (a point runs on one pair at a time).
MPI_Group& partner_group() {
  static MPI_Group group = MPI_GROUP_NULL;
  return group;
}

// The partner: rank 1 for rank 0 (the OSU programs' two ranks), rank r ± P/2 in general.
int other(const PointContext& c) {
  const int half = c.nprocs / 2;
  return c.rank < half ? c.rank + half : c.rank - half;
}
bool is_origin(const PointContext& c) {
  return c.rank < c.nprocs / 2;
}

template <Access A, Pattern P>
void burst(PointContext& c, int i) {
  const int messages = P == Pattern::Latency ? 1 : c.in_flight;
  for (int j = 0; j < messages; ++j)
    imb::rma::access<A, Elements::Char>(c, i, other(c), static_cast<std::size_t>(j) * c.bytes);
}

template <Access A, Pattern P, Sync S>
void iteration(PointContext& c, int i) {
  const bool origin = is_origin(c);
  const int peer = other(c);
  if constexpr (S == Sync::Flush || S == Sync::FlushLocal) {
    if (!origin) return;
    burst<A, P>(c, i);
    if constexpr (S == Sync::Flush)
      MPI_Win_flush(peer, c.window);
    else
      MPI_Win_flush_local(peer, c.window);
  } else if constexpr (S == Sync::Lock) {
    if (!origin) return;
    MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, c.window);
    burst<A, P>(c, i);
    MPI_Win_unlock(peer, c.window);
  } else if constexpr (S == Sync::LockAll) {
    if (!origin) return;
    MPI_Win_lock_all(0, c.window);
    burst<A, P>(c, i);
    MPI_Win_unlock_all(c.window);
  } else if constexpr (S == Sync::Fence) {
    MPI_Win_fence(0, c.window);
    if (origin || P == Pattern::BothWays) burst<A, P>(c, i);
    MPI_Win_fence(0, c.window);
    if constexpr (P == Pattern::Latency) {
      if (!origin) burst<A, P>(c, i);
      MPI_Win_fence(0, c.window);
    }
  } else {  // post/start/complete/wait
    MPI_Group group = partner_group();
    if constexpr (P == Pattern::BothWays) {
      MPI_Win_post(group, 0, c.window);
      MPI_Win_start(group, 0, c.window);
      burst<A, P>(c, i);
      MPI_Win_complete(c.window);
      MPI_Win_wait(c.window);
    } else {
      auto access_epoch = [&] {
        MPI_Win_start(group, 0, c.window);
        burst<A, P>(c, i);
        MPI_Win_complete(c.window);
      };
      auto exposure_epoch = [&] {
        MPI_Win_post(group, 0, c.window);
        MPI_Win_wait(c.window);
      };
      if (origin) {
        access_epoch();
        if constexpr (P == Pattern::Latency) exposure_epoch();
      } else {
        exposure_epoch();
        if constexpr (P == Pattern::Latency) access_epoch();
      }
    }
  }
}

template <Access A, Window W, Sync S>
void open(PointContext& c) {
  if (!imb::rma::create_window(c, imb::rma::window_on_send(A), W)) return;
  if constexpr (S == Sync::Flush || S == Sync::FlushLocal) {
    if (is_origin(c)) MPI_Win_lock(MPI_LOCK_SHARED, other(c), 0, c.window);
  } else if constexpr (S == Sync::Pscw) {
    MPI_Group world = MPI_GROUP_NULL;
    MPI_Comm_group(c.comm, &world);
    const int peer = other(c);
    MPI_Group_incl(world, 1, &peer, &partner_group());
    MPI_Group_free(&world);
  }
}

template <Sync S>
void close(PointContext& c) {
  if (S == Sync::Pscw && partner_group() != MPI_GROUP_NULL) MPI_Group_free(&partner_group());
  if (c.window == MPI_WIN_NULL) return;
  if ((S == Sync::Flush || S == Sync::FlushLocal) && is_origin(c))
    MPI_Win_unlock(other(c), c.window);
  imb::rma::free_window(c);
}

// osu_get_mbw's iteration (the fork's run_get_with_flush): each origin locks its target, gets a
// window, flushes and unlocks; the barrier before it is the engine's (barrier_between_repetitions).
void locked_window_of_gets(PointContext& c, int i) {
  if (!is_origin(c)) return;
  const int peer = other(c);
  MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, c.window);
  burst<Access::Get, Pattern::Bandwidth>(c, i);
  MPI_Win_flush(peer, c.window);
  MPI_Win_unlock(peer, c.window);
}
template <Window W>
void instantiate_get_mbw(core::Benchmark& b) {
  b.kernel = core::kernel<locked_window_of_gets>();
  b.setup = open<Access::Get, W, Sync::Lock>;
  b.release = close<Sync::Lock>;
}

template <Access A, Pattern P, Window W, Sync S>
void instantiate(core::Benchmark& b) {
  b.kernel = core::kernel<iteration<A, P, S>>();
  b.setup = open<A, W, S>;
  b.release = close<S>;
}

// The run-time choices as template arguments, one level at a time.
template <Access A, Pattern P, Window W>
void with_sync(core::Benchmark& b, Sync s) {
  switch (s) {
    case Sync::Flush:
      return instantiate<A, P, W, Sync::Flush>(b);
    case Sync::FlushLocal:
      return instantiate<A, P, W, Sync::FlushLocal>(b);
    case Sync::Lock:
      return instantiate<A, P, W, Sync::Lock>(b);
    case Sync::LockAll:
      return instantiate<A, P, W, Sync::LockAll>(b);
    case Sync::Fence:
      return instantiate<A, P, W, Sync::Fence>(b);
    case Sync::Pscw:
      return instantiate<A, P, W, Sync::Pscw>(b);
  }
}
// The window's creation from run time to a template argument: `then` gets it as a
// std::integral_constant.
template <typename Then>
void with_window(WindowCreation w, Then then) {
  switch (w) {
    case WindowCreation::Create:
      return then(std::integral_constant<Window, Window::Create>{});
    case WindowCreation::Allocate:
      return then(std::integral_constant<Window, Window::Allocate>{});
    case WindowCreation::Dynamic:
      return then(std::integral_constant<Window, Window::Dynamic>{});
  }
}
template <Access A, Pattern P>
void with_window(core::Benchmark& b, WindowCreation w, Sync s) {
  with_window(w, [&](auto window) { with_sync<A, P, decltype(window)::value>(b, s); });
}

core::BufferShape one_region(std::size_t x, int, int) {
  return {x, x};
}
}  // namespace

core::Benchmark one_sided(const Program& p, WindowCreation w, Sync s) {
  core::Benchmark b;
  b.name = p.name;
  b.family = core::Family::SingleTransfer;
  b.fixed_processes = 2;
  b.shape = one_region;
  b.timed_rank = [](const PointContext& c) { return c.rank == 0; };  // OSU times rank 0 alone
  // OSU's loop reads MPI_Wtime around each iteration as well as around the loop, on rank 0.
  b.timer_reads = core::TimerReads::AroundLoopAndEachRepetition;
  const bool round_trip = p.figure == Figure::kOneSided && (s == Sync::Fence || s == Sync::Pscw);
  if (round_trip) b.time_factor = 0.5;  // OSU halves the round trip of the active-target latency
  if (p.figure == Figure::kOneSidedBandwidth) {
    b.window_slots = true;
    b.windowed = true;
    b.turnover = 1;  // engine's time per message: the iteration over the messages it moves
  }
  if (p.name == "osu_fop_latency" || p.name == "osu_cas_latency") b.only_length = 1;  // one char
  if (p.multi_pair_one_sided) {  // every pair; the figure is the origins' mean
    b.family = core::Family::ParallelTransfer;
    b.fixed_processes = 0;
    b.timed_rank = [](const PointContext& c) { return is_origin(c); };
    b.throughput_from_mean = true;
  }
  if (p.name == "osu_get_multi_lat") with_window<Access::Get, Pattern::Latency>(b, w, s);
  if (p.name == "osu_get_mbw") {
    b.barrier_between_repetitions = true;
    with_window(w, [&](auto window) { instantiate_get_mbw<decltype(window)::value>(b); });
  }
  const bool both_ways = p.name == "osu_put_bibw";
  if (p.name == "osu_put_latency") with_window<Access::Put, Pattern::Latency>(b, w, s);
  if (p.name == "osu_get_latency") with_window<Access::Get, Pattern::Latency>(b, w, s);
  if (p.name == "osu_acc_latency") with_window<Access::Accumulate, Pattern::Latency>(b, w, s);
  if (p.name == "osu_fop_latency") with_window<Access::FetchAndOp, Pattern::Latency>(b, w, s);
  if (p.name == "osu_cas_latency") with_window<Access::CompareAndSwap, Pattern::Latency>(b, w, s);
  if (p.name == "osu_get_acc_latency")
    with_window<Access::GetAccumulate, Pattern::Latency>(b, w, s);
  if (p.name == "osu_put_bw") with_window<Access::Put, Pattern::Bandwidth>(b, w, s);
  if (p.name == "osu_get_bw") with_window<Access::Get, Pattern::Bandwidth>(b, w, s);
  if (both_ways) with_window<Access::Put, Pattern::BothWays>(b, w, s);
  if (!b.kernel.iterate) throw std::logic_error("no one-sided kernel for " + p.name);
  return b;
}

}  // namespace mpiscope::osu
