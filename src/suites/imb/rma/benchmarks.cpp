// IMB-RMA's benchmarks as instances of the passive-target kernels: which call, which origins,
// which peers, which completion, and how the row is read (guide: "IMB-RMA Benchmarks").
#include "suites/imb/rma/benchmarks.hpp"

#include <string>

#include "core/cpu_exploit.hpp"
#include "core/mpi.hpp"
#include "suites/imb/rma/passive_target.hpp"

namespace mpiscope::imb::rma {

bool create_window(core::PointContext& c, bool on_send, Window kind) {
  std::byte* base = on_send ? c.send(0) : c.recv(0);
  const auto size =
      static_cast<MPI_Aint>(on_send ? c.buffers->send_region() : c.buffers->recv_region());
  // A window the library cannot create is a finding (a "not run" row), not a crash.
  MPI_Comm_set_errhandler(c.comm, MPI_ERRORS_RETURN);
  void* allocated = nullptr;
  int rc = MPI_SUCCESS;
  const char* call = "MPI_Win_create";
  if (kind == Window::Allocate) {
    call = "MPI_Win_allocate";
    rc = MPI_Win_allocate(size, 1, user_window_info(), c.comm, &allocated, &c.window);
  } else if (kind == Window::Dynamic) {
    call = "MPI_Win_create_dynamic";
    rc = MPI_Win_create_dynamic(user_window_info(), c.comm, &c.window);
    if (rc == MPI_SUCCESS) {
      MPI_Win_set_errhandler(c.window, MPI_ERRORS_RETURN);
      call = "MPI_Win_attach";
      rc = MPI_Win_attach(c.window, base, size);
      MPI_Win_set_errhandler(c.window, MPI_ERRORS_ARE_FATAL);
      if (rc == MPI_SUCCESS) c.window_attached = base;
      // Every rank must know whether every window exists before anyone uses it.
      int ok = rc == MPI_SUCCESS, all_ok = 0;
      MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c.comm);
      if (all_ok) {
        MPI_Aint address = 0;
        MPI_Get_address(base, &address);
        c.window_bases.assign(static_cast<std::size_t>(c.nprocs), 0);
        MPI_Allgather(&address, 1, MPI_AINT, c.window_bases.data(), 1, MPI_AINT, c.comm);
      } else if (rc == MPI_SUCCESS) {
        rc = MPI_ERR_OTHER;  // another rank's attach failed
      }
    }
  } else {
    rc = MPI_Win_create(base, size, 1, user_window_info(), c.comm, &c.window);
  }
  MPI_Comm_set_errhandler(c.comm, MPI_ERRORS_ARE_FATAL);
  if (rc == MPI_SUCCESS) return true;
  c.setup_error = std::string(call) + " failed: " + mpi::error_string(rc);
  if (c.window != MPI_WIN_NULL) free_window(c);
  c.window = MPI_WIN_NULL;
  return false;
}

void free_window(core::PointContext& c) {
  // Detaching is local: a target must not take its region away while an origin of a passive
  // epoch may still be writing to it. MPI_Win_free, which synchronises, comes after.
  if (c.window_attached != nullptr) {
    MPI_Barrier(c.comm);
    MPI_Win_detach(c.window, c.window_attached);
  }
  c.window_attached = nullptr;
  c.window_bases.clear();
  MPI_Win_free(&c.window);
}

void barrier_before_reading(core::PointContext& c) {
  MPI_Barrier(c.comm);
}

namespace {
using core::Aggregation;
using core::ExpectedBlock;
using core::PointContext;
using Blocks = std::vector<ExpectedBlock>;

// What -check expects after one repetition.
Blocks none(const PointContext&, int) {
  return {};
}
Blocks rank_one_has_rank_zeros(const PointContext& c, int) {
  return c.rank == 1 ? Blocks{{0, 0, 0, c.bytes}} : Blocks{};
}
Blocks rank_zero_has_rank_ones(const PointContext& c, int) {
  return c.rank == 0 ? Blocks{{0, 1, 0, c.bytes}} : Blocks{};
}
Blocks each_has_the_others(const PointContext& c, int) {
  return {{0, partner(c), 0, c.bytes}};
}
Blocks others_have_rank_zeros(const PointContext& c, int) {
  return c.rank != 0 ? Blocks{{0, 0, 0, c.bytes}} : Blocks{};
}
Blocks both_neighbours(const PointContext& c, int) {
  return {{0, c.right(), 0, c.bytes}, {c.bytes, c.left(), c.bytes, c.bytes}};
}

core::BufferShape one_block(std::size_t x, int, int) {
  return {x, x};
}
core::BufferShape two_blocks(std::size_t x, int, int) {
  return {2 * x, 2 * x};
}

// A benchmark of call A from origins O to peers P, completed by flushes of kind F.
template <Access A, Origins O, Peers P, Flush F = Flush::Remote>
core::Benchmark rma(std::string name, Blocks (*expected)(const PointContext&, int)) {
  core::Benchmark b;
  b.name = std::move(name);
  b.kernel = core::kernel<transfer<A, O, P>, flush<O, P, F>>();
  b.setup = open_window<A, O, P>;
  b.release = close_window<O, P>;
  b.timed_rank = is_origin<O>;
  b.shape = P == Peers::Neighbours ? two_blocks : one_block;
  b.expected = expected == none ? nullptr : expected;
  b.fetch_for_check = barrier_before_reading;
  if constexpr (A != Access::Put && A != Access::Get) {
    b.datatype = core::Datatype::FloatSum;  // sums start from zeros; lengths in whole elements
    b.unit = sizeof(float);
  }
  if constexpr (P == Peers::Partner) {  // two processes, a table per mode (IMB SingleTransfer)
    b.family = core::Family::SingleTransfer;
    b.fixed_processes = 2;
    b.turnover = 1;
    b.modes = {Aggregation::NonAggregate, Aggregation::Aggregate};
  } else if constexpr (O == Origins::RankZero) {  // one origin, every other rank its target
    b.family = core::Family::SingleTransfer;      // (IMB MultPassiveTransfer: one time)
    b.turnover = 1;
    b.turnover_per_peer = true;
    b.complete_once_per_sample = true;
  } else {  // every rank an origin (IMB Collective: t_min, t_max, t_avg)
    b.family = core::Family::Collective;
    b.complete_once_per_sample = P == Peers::AllOthers;
  }
  return b;
}

// One element (IMB SingleElementTransfer): runs at sizeof(float) only.
core::Benchmark one_element(core::Benchmark b) {
  b.only_length = sizeof(float);
  return b;
}

// Truly_passive_put: the origin puts, flushes and meets the target in a barrier; the target
// waits in the barrier (t_pure) or first computes for its t_pure (t_ovrl). Equal times mean
// the put progressed while the target was busy outside MPI.
template <bool TargetComputes>
void put_then_meet(PointContext& c, int i) {
  if (c.rank == 0) {
    access<Access::Put>(c, i, 1, 0);
    MPI_Win_flush(1, c.window);
  } else if (TargetComputes) {
    core::cpu_exploit::run();
  }
  MPI_Barrier(c.comm);
}

core::Benchmark truly_passive(std::string name, core::Kernel kernel) {
  core::Benchmark b =
      rma<Access::Put, Origins::RankZero, Peers::Partner>(std::move(name), rank_one_has_rank_zeros);
  b.kernel = kernel;
  b.modes = {Aggregation::None};
  b.timed_rank = nullptr;  // both ranks time the same barrier-paced loop
  b.overlap_method = core::OverlapMethod::WorkSizedToPure;
  b.pure_and_ovrl_only = true;
  return b;
}
}  // namespace

const core::Benchmark& truly_passive_put_pure() {
  static const core::Benchmark pure =
      truly_passive("Truly_passive_put_pure", core::kernel<put_then_meet<false>>());
  return pure;
}

std::vector<core::Benchmark> one_sided_benchmarks() {
  using A = Access;
  using O = Origins;
  using P = Peers;
  using F = Flush;
  std::vector<core::Benchmark> list = {
      rma<A::Put, O::RankZero, P::Partner>("Unidir_put", rank_one_has_rank_zeros),
      rma<A::Put, O::Every, P::Partner>("Bidir_put", each_has_the_others),
      rma<A::Get, O::RankZero, P::Partner>("Unidir_get", rank_zero_has_rank_ones),
      rma<A::Get, O::Every, P::Partner>("Bidir_get", each_has_the_others),
      // Local completion says nothing about the target: nothing to check there.
      rma<A::Put, O::RankZero, P::Partner, F::Local>("Put_local", none),
      rma<A::Get, O::RankZero, P::Partner, F::Local>("Get_local", rank_zero_has_rank_ones),
      rma<A::Put, O::RankZero, P::AllOthers, F::Local>("Put_all_local", none),
      rma<A::Get, O::RankZero, P::AllOthers, F::Local>("Get_all_local", none),
      rma<A::Put, O::RankZero, P::AllOthers>("One_put_all", others_have_rank_zeros),
      rma<A::Put, O::Every, P::AllOthers>("All_put_all", none),     // every put, one slot
      rma<A::Get, O::RankZero, P::AllOthers>("One_get_all", none),  // every get, one buffer
      rma<A::Get, O::Every, P::AllOthers>("All_get_all", none),
      rma<A::Put, O::Every, P::Neighbours>("Exchange_put", both_neighbours),
      rma<A::Get, O::Every, P::Neighbours>("Exchange_get", both_neighbours),
      rma<A::Accumulate, O::RankZero, P::Partner>("Accumulate", rank_one_has_rank_zeros),
      rma<A::GetAccumulate, O::RankZero, P::Partner>("Get_accumulate", rank_one_has_rank_zeros),
      one_element(
          rma<A::FetchAndOp, O::RankZero, P::Partner>("Fetch_and_op", rank_one_has_rank_zeros)),
      one_element(rma<A::CompareAndSwap, O::RankZero, P::Partner>("Compare_and_swap",
                                                                  rank_one_has_rank_zeros)),
      truly_passive("Truly_passive_put", core::kernel<put_then_meet<true>>())};
  // Intel's default list leaves these out as near twins of Unidir_get and One_get_all.
  for (auto& b : list)
    if (b.name == "Get_local" || b.name == "Get_all_local") b.in_default_list = false;
  return list;
}

}  // namespace mpiscope::imb::rma
