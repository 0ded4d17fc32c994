// The IMB-NBC benchmark definitions (current Intel IMB): the non-blocking collectives, each
// measured with CPU work overlapped (Ibcast …) and without (Ibcast_pure …).
#pragma once

#include <mpi.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/benchmark.hpp"
#include "core/cpu_exploit.hpp"

namespace mpiscope::imb::nbc {

// Starts the non-blocking collective of repetition i into *request.
using StartFn = void (*)(core::PointContext&, int, MPI_Request*);

// Start, then wait: the _pure variants, and t_pure of the overlapped ones.
template <StartFn Start>
void started_then_waited(core::PointContext& c, int i) {
  MPI_Request request = MPI_REQUEST_NULL;
  Start(c, i, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
}

// Start, CPU work (timed inside cpu_exploit::run(): t_CPU; OSU's MPI_Test calls on the request
// inside it), then wait. For OSU's columns (cpu_exploit::times_phases()) the start and the wait
// are timed as well; IMB-NBC reads no timer there.
template <StartFn Start>
void overlapped_with_cpu(core::PointContext& c, int i) {
  MPI_Request request = MPI_REQUEST_NULL;
  const bool phases = core::cpu_exploit::times_phases();
  const double start = phases ? MPI_Wtime() : 0;
  Start(c, i, &request);
  const double started = phases ? MPI_Wtime() : 0;
  core::cpu_exploit::run(&request);
  const double wait = phases ? MPI_Wtime() : 0;
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  if (phases) core::cpu_exploit::add_phase_times(started - start, MPI_Wtime() - wait);
}

// An operation's overlapped benchmark and its _pure variant on `definition` (shape, counts, roots,
// expected data), running the two kernels; the _pure one is named `name` + "_pure".
std::pair<core::Benchmark, core::Benchmark> pair_on(const core::Benchmark& definition,
                                                    std::string name,
                                                    core::Kernel overlapped_kernel,
                                                    core::Kernel pure_kernel);
template <StartFn Start>
std::pair<core::Benchmark, core::Benchmark> overlapped_pair_on(const core::Benchmark& definition,
                                                               std::string name) {
  return pair_on(definition, std::move(name), core::kernel<overlapped_with_cpu<Start>>(),
                 core::kernel<started_then_waited<Start>>());
}

// Pairs in IMB's order: each overlapped benchmark followed by its _pure variant (collectives.cpp).
std::vector<core::Benchmark> collective_benchmarks();

// All of them in that order, each overlapped one's blocking_twin set to its _pure variant; the
// overlapped ones form the default list (registry.cpp).
const std::vector<core::Benchmark>& all_benchmarks();

// Copies of the overlapped benchmark `name` (e.g. "Iallreduce") and of its _pure variant, with no
// blocking_twin set (the caller stores them and points one at the other). With `definition`
// (an IMB-MPI1 benchmark), the two kernels run on its buffers, counts, roots and -check blocks
// instead: OSU's osu_ireduce_scatter splits X over the ranks as IMB 3.1's "Reduce_scatter".
std::pair<core::Benchmark, core::Benchmark> overlapped_pair(std::string_view name,
                                                            std::string_view definition = {});

}  // namespace mpiscope::imb::nbc
