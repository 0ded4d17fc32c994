// IMB-EXT (guide 4.2.3): MPI_Put, MPI_Get and MPI_Accumulate into a window opened with a fence;
// completion assured by MPI_Win_fence. Each transfer benchmark runs non-aggregate (a fence after
// every transfer) and aggregate (a fence after the sample's M transfers, which go to disjoint
// parts of the window). Unidir/Bidir are the one-sided PingPong/PingPing.
#include "suites/imb/ext/benchmarks.hpp"

#include "core/mpi.hpp"

namespace mpiscope::imb::ext {
namespace {
using core::ExpectedBlock;
using core::PointContext;
using Blocks = std::vector<ExpectedBlock>;

void fence(PointContext& c) {
  MPI_Win_fence(0, c.window);
}

// MPI_Win_create, reporting failure instead of aborting: some libraries cannot create a window
// in some configurations (Open MPI 4.1 on a single process), and that is a finding, not a crash.
bool create_window(PointContext& c, std::byte* base, std::size_t size, MPI_Win* win) {
  MPI_Comm_set_errhandler(c.comm, MPI_ERRORS_RETURN);
  const int rc =
      MPI_Win_create(base, static_cast<MPI_Aint>(size), 1, user_window_info(), c.comm, win);
  MPI_Comm_set_errhandler(c.comm, MPI_ERRORS_ARE_FATAL);
  if (rc == MPI_SUCCESS) return true;
  c.setup_error = "MPI_Win_create failed: " + mpi::error_string(rc);
  *win = MPI_WIN_NULL;
  return false;
}

// Guide 5.2.3.1: MPI_Win_create over the region, then a fence to open the access epoch.
void open_window(PointContext& c, std::byte* base, std::size_t size) {
  if (create_window(c, base, size, &c.window)) MPI_Win_fence(0, c.window);
}
void window_on_receive_buffer(PointContext& c) {
  open_window(c, c.recv(0), c.buffers->shape().recv);
}
void window_on_send_buffer(PointContext& c) {
  open_window(c, c.send(0), c.buffers->shape().send);
}
void close_window(PointContext& c) {
  if (c.window != MPI_WIN_NULL) MPI_Win_free(&c.window);
}

MPI_Aint displacement(const PointContext& c, int i) {
  return static_cast<MPI_Aint>(c.target_offset(i));
}

// Rank 0 writes into (reads from) rank 1's window; both take part in the fences.
void unidir_put(PointContext& c, int i) {
  if (c.rank == 0)
    MPI_Put(c.send(i) + c.target_offset(i), c.count, MPI_BYTE, 1, displacement(c, i), c.count,
            MPI_BYTE, c.window);
}
void unidir_get(PointContext& c, int i) {
  if (c.rank == 0)
    MPI_Get(c.recv(i) + c.target_offset(i), c.count, MPI_BYTE, 1, displacement(c, i), c.count,
            MPI_BYTE, c.window);
}
// Both ranks at once, each into (from) the other's window.
void bidir_put(PointContext& c, int i) {
  MPI_Put(c.send(i) + c.target_offset(i), c.count, MPI_BYTE, 1 - c.rank, displacement(c, i),
          c.count, MPI_BYTE, c.window);
}
void bidir_get(PointContext& c, int i) {
  MPI_Get(c.recv(i) + c.target_offset(i), c.count, MPI_BYTE, 1 - c.rank, displacement(c, i),
          c.count, MPI_BYTE, c.window);
}
// Every rank adds X/sizeof(float) floats into root 0's window (MPI_SUM).
void accumulate(PointContext& c, int i) {
  MPI_Accumulate(c.send(i) + c.target_offset(i), c.count, MPI_FLOAT, 0, displacement(c, i), c.count,
                 MPI_FLOAT, MPI_SUM, c.window);
}
// Creating, opening and freeing a window, with one byte put into it so that the library cannot
// skip the work for an unused window (guide 4.2.3.6).
void window(PointContext& c, int i) {
  MPI_Win win;
  MPI_Win_create(c.recv(i), static_cast<MPI_Aint>(c.bytes), 1, user_window_info(), c.comm, &win);
  MPI_Win_fence(0, win);
  if (c.bytes > 0) MPI_Put(c.send(i), 1, MPI_BYTE, c.rank, 0, 1, MPI_BYTE, win);
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);
}

// Aggregate mode moves the M = n_sample transfers of a sample to disjoint places, so both sides
// hold M·X bytes: IMB's 2·max(X, OVERALL_VOL) per process (guide 7.1).
core::BufferShape disjoint_targets(std::size_t x, int, int repetitions) {
  return {x * static_cast<std::size_t>(repetitions), x * static_cast<std::size_t>(repetitions)};
}

// Window creates its windows inside the timed loop; find out first whether it can.
void probe_window(PointContext& c) {
  MPI_Win win;
  if (create_window(c, c.recv(0), c.bytes, &win)) MPI_Win_free(&win);
}

core::Benchmark transfer(std::string name, core::Kernel kernel, void (*setup)(PointContext&),
                         Blocks (*expected)(const PointContext&, int)) {
  core::Benchmark b;
  b.name = std::move(name);
  b.family = core::Family::SingleTransfer;
  b.turnover = 1;
  b.fixed_processes = 2;
  b.modes = {core::Aggregation::NonAggregate, core::Aggregation::Aggregate};
  b.shape = disjoint_targets;
  b.kernel = kernel;
  b.setup = setup;
  b.release = close_window;
  b.expected = expected;
  return b;
}

Blocks at_rank_one_from_rank_zero(const PointContext& c, int) {
  return c.rank == 1 ? Blocks{{0, 0, 0, c.bytes}} : Blocks{};
}
Blocks at_rank_zero_from_rank_one(const PointContext& c, int) {
  return c.rank == 0 ? Blocks{{0, 1, 0, c.bytes}} : Blocks{};
}
Blocks from_the_other(const PointContext& c, int) {
  return {{0, 1 - c.rank, 0, c.bytes}};
}
}  // namespace

std::vector<core::Benchmark> one_sided_benchmarks() {
  core::Benchmark win;
  win.name = "Window";
  win.family = core::Family::Collective;
  win.unit = sizeof(float);
  win.nonaggregate_repetitions = true;
  win.shape = [](std::size_t x, int, int) { return core::BufferShape{x, x}; };
  win.kernel = core::kernel<window>();
  win.setup = probe_window;
  win.expected = [](const PointContext& c, int) {
    return c.bytes > 0 ? Blocks{{0, c.rank, 0, 1}} : Blocks{};
  };

  core::Benchmark acc;
  acc.name = "Accumulate";
  acc.family = core::Family::Collective;
  acc.datatype = core::Datatype::FloatSum;
  acc.unit = sizeof(float);
  acc.modes = {core::Aggregation::NonAggregate, core::Aggregation::Aggregate};
  acc.shape = disjoint_targets;
  acc.kernel = core::kernel<accumulate, fence>();
  acc.setup = window_on_receive_buffer;
  acc.release = close_window;
  acc.expected = [](const PointContext& c, int) {
    return c.rank == 0 ? Blocks{{0, ExpectedBlock::kAllRanks, 0, c.count * sizeof(float)}}
                       : Blocks{};
  };

  // In the order IMB runs them (3.1's sample output and Intel's 2021.11): Get before Put.
  return {win,
          transfer("Unidir_Get", core::kernel<unidir_get, fence>(), window_on_send_buffer,
                   at_rank_zero_from_rank_one),
          transfer("Unidir_Put", core::kernel<unidir_put, fence>(), window_on_receive_buffer,
                   at_rank_one_from_rank_zero),
          transfer("Bidir_Get", core::kernel<bidir_get, fence>(), window_on_send_buffer,
                   from_the_other),
          transfer("Bidir_Put", core::kernel<bidir_put, fence>(), window_on_receive_buffer,
                   from_the_other),
          acc};
}

}  // namespace mpiscope::imb::ext
