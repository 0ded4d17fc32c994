// rma (README): MPI_Put and MPI_Get, unidirectional then bidirectional, over message sizes and
// numbers of pairs. Each pair has a window of its own (created on the pair's two-process
// communicator); a sample (accurate mode: a repetition) is -c fence epochs of -o operations per
// initiating process.
#include <fmt/format.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "core/buffers.hpp"
#include "core/process_sets.hpp"
#include "suites/presta/pair_report.hpp"

namespace mpiscope::presta {

double rma_bytes_per_process(const Options& o) {
  return 2.0 * o.ops * static_cast<double>(o.size_stop);
}

namespace {

// MemAvailable of /proc/meminfo (what can be allocated without swapping), else free memory.
double available_bytes() {
  std::ifstream in("/proc/meminfo");
  for (std::string key; in >> key;) {
    double kib = 0;
    in >> kib;
    if (key == "MemAvailable:") return kib * 1024;
    in.ignore(256, '\n');
  }
  return static_cast<double>(sysconf(_SC_AVPHYS_PAGES)) *
         static_cast<double>(sysconf(_SC_PAGESIZE));
}

}  // namespace

std::string rma_memory_error(const Options& o) {
  // One figure per host: the processes placed there and the memory it has.
  MPI_Comm host_comm = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host_comm);
  const mpi::Comm host = mpi::Comm::own(host_comm);
  const double mine[2] = {static_cast<double>(host.size()), available_bytes()};
  std::vector<double> all(mpi::world_rank() == 0 ? 2 * mpi::world_size() : 0);
  MPI_Gather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  std::string error;
  if (mpi::world_rank() == 0) {
    const double per_process = rma_bytes_per_process(o);
    for (std::size_t r = 0; r < all.size() / 2 && error.empty(); ++r) {
      const double processes = all[2 * r], available = all[2 * r + 1];
      if (per_process * processes > available)
        error = fmt::format(
            "rma would need 2 x {} operations per epoch x {} bytes = {:.0f} MiB per process "
            "(README's memory formula), {:.0f} MiB for the {} processes of rank {}'s host, but "
            "only {:.0f} MiB are available there; lower -o or -e",
            o.ops, o.size_stop, per_process / 1048576, per_process * processes / 1048576,
            static_cast<int>(processes), r, available / 1048576);
    }
  }
  return mpi::broadcast(error, 0, MPI_COMM_WORLD);
}

namespace {

struct Variant {
  const char* name;
  RmaOp op;
  bool bidirectional;
};

// The pair's window over `bytes` at `base`, on a communicator of the pair's own. Open MPI 4.1's
// osc/rdma names its shared memory after the communicator's context id and fails when two
// communicators create windows on one node at the same moment, so the pairs' communicators come
// from core::make_process_set (distinct context ids) and the windows are created and freed one
// pair after another (untimed set-up; see docs/imb-ext.md).
class PairWindow {
 public:
  PairWindow(const PairStep& step, std::byte* base, std::size_t bytes) {
    core::Layout layout;
    layout.active_size = 2;
    layout.multi = step.pairs.size() > 1;
    for (const auto& [a, b] : step.pairs) layout.groups.push_back({a, b});  // a: the initiator
    layout.inactive = mpi::world_size() - step.processes;
    set_ = core::make_process_set(layout);
    one_pair_at_a_time([&] {
      mpi::check(MPI_Win_create(base, static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL,
                                set_.group.get(), &win_),
                 "MPI_Win_create");
    });
  }
  ~PairWindow() {
    one_pair_at_a_time([&] { MPI_Win_free(&win_); });
  }
  PairWindow(const PairWindow&) = delete;
  PairWindow& operator=(const PairWindow&) = delete;
  MPI_Win get() const { return win_; }

 private:
  template <class F>
  void one_pair_at_a_time(F&& f) {
    if (!set_.is_active()) return;
    for (std::size_t g = 0; g < set_.layout.groups.size(); ++g) {
      if (set_.group_index == static_cast<int>(g)) f();
      MPI_Barrier(set_.active.get());
    }
  }
  core::ProcessSet set_;
  MPI_Win win_ = MPI_WIN_NULL;
};

core::AlignedBytes allocate(double bytes, const char* what) {
  auto b = core::AlignedBytes::try_allocate(static_cast<std::size_t>(std::max(bytes, 1.0)));
  if (!b) throw std::runtime_error(fmt::format("cannot allocate {:.0f} bytes for {}", bytes, what));
  return std::move(*b);
}

}  // namespace

int run_rma(RunContext& c) {
  const Options& o = c.options;
  const auto sizes = message_sizes(o.size_start, o.size_stop, o.size_factor);
  const double region = static_cast<double>(o.ops) * static_cast<double>(o.size_stop);
  auto origin = allocate(region, "the rma origin buffer");
  auto target = allocate(region, "the rma window");
  core::fill_pattern(origin.data(), origin.size(), mpi::world_rank());
  std::memset(target.data(), 0, target.size());

  const Variant variants[] = {{"Put Unidirectional", RmaOp::kPut, false},
                              {"Get Unidirectional", RmaOp::kGet, false},
                              {"Put Bidirectional", RmaOp::kPut, true},
                              {"Get Bidirectional", RmaOp::kGet, true}};
  PairSummary summary;
  bool all = true;
  for (const auto& v : variants)
    for (int processes : o.process_counts) {
      const PairStep step = make_step(processes, c.pairing, c.accurate_settings());
      const PairWindow window(step, target.data(), target.size());
      auto b = pair_benchmark(c, v.name, step,
                              {{"test", "rma"},
                               {"operation", v.op == RmaOp::kPut ? "MPI_Put" : "MPI_Get"},
                               {"direction", v.bidirectional ? "bidirectional" : "unidirectional"},
                               {"synchronisation", "MPI_Win_fence"},
                               {"operations_per_epoch", std::to_string(o.ops)},
                               {"epochs_per_sample", std::to_string(o.epochs)}});
      c.out.benchmark_started(b);
      for (long long size : sizes) {
        const RmaSide side{window.get(), step.initiator ? 1 : 0, v.bidirectional || step.initiator,
                           origin.data(), static_cast<int>(size)};
        // Not timed: one epoch to open the window's access paths.
        if (step.active) rma_epochs(side, v.op, 1, 1);
        c.point_started(fmt::format("rma {}, {} processes, {} bytes", v.name, processes, size));
        const PairPoint p = measure_pair_point(step, o.barrier, c.accurate.has_value(),
                                               [&] { rma_epochs(side, v.op, o.ops, o.epochs); });
        c.point_finished();
        if (!c.root) continue;
        const double initiators =
            v.bidirectional ? processes : static_cast<double>(step.pairs.size());
        PairFigures f;
        f.volume_bytes = initiators * o.epochs * o.ops * static_cast<double>(size);
        f.ops_per_rank = static_cast<double>(o.epochs) * o.ops;
        f.epochs = o.epochs;
        const auto bytes = static_cast<std::size_t>(size);
        const core::Measurement m = p.accurate ? accurate_pair_row(c, *p.accurate, bytes, f)
                                               : pair_row(c, p.classic, bytes, o.epochs, f);
        all &= m.measured;
        b.rows.push_back(m);
        c.out.row(b, m);
        summary.add(v.bidirectional ? "Bidirectional" : "Unidirectional", v.name, m);
      }
      c.out.benchmark_finished(b);
    }
  if (c.root) summary.report(c);
  return all ? 0 : 1;
}

}  // namespace mpiscope::presta
