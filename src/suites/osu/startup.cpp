// OSU 7.4's start-up programs (c/mpi/startup): osu_hello says how many processes the job has;
// osu_init how long each process's MPI_Init took. mpiscope's processes start MPI once, in the
// front end, and time that MPI_Init_thread as OSU times its omb_mpi_init (mpi::init_seconds());
// osu_init prints the least, the most and the mean over the ranks in whole milliseconds, as OSU
// does (each rank's time truncated, the mean of those truncated by integer division), and keeps
// the exact times in the result model.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <numeric>

#include "cli/suite_cli.hpp"
#include "core/mpi.hpp"
#include "core/run_info.hpp"
#include "suites/osu/options.hpp"
#include "suites/osu/text_output.hpp"

namespace mpiscope::osu {

int run_startup(const Program& p, const Options& o, int thread_level,
                const std::vector<std::string>& command_line) {
  const int size = mpi::world_size();
  const bool root = mpi::world_rank() == 0;
  if (p.name == "osu_hello") {
    if (root) std::printf("# %s v7.4\nThis is a test with %d processes\n", p.title.c_str(), size);
    std::fflush(stdout);
    return 0;
  }
  const double mine = mpi::init_seconds();
  std::vector<double> seconds(root ? static_cast<std::size_t>(size) : 0);
  MPI_Gather(&mine, 1, MPI_DOUBLE, seconds.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

  core::RunInfo info = core::collect_run_info("osu", command_line, thread_level);
  info.suite_title = "OSU Micro-Benchmarks 7.4 (mpiscope)";
  info.settings["osu_program"] = p.name;
  info.settings["timer"] = "std::chrono::steady_clock around MPI_Init_thread, on every rank";
  info.benchmarks = {p.name};
  cli::RunReporters reporters([&] { return std::make_unique<TextReporter>(stdout, p, o, 0); },
                              o.output, info);
  if (root) {
    core::BenchmarkRun b;
    b.name = p.name;
    b.family = "startup";
    b.sized = false;
    b.nprocs = size;
    core::Measurement m;
    m.measured = true;
    m.repetitions = 1;
    m.t_min_us = 1e6 * *std::min_element(seconds.begin(), seconds.end());
    m.t_max_us = 1e6 * *std::max_element(seconds.begin(), seconds.end());
    m.t_avg_us = 1e6 * std::accumulate(seconds.begin(), seconds.end(), 0.0) / size;
    // OSU's figures: each rank's whole milliseconds, their least, most and integer mean.
    std::vector<long> ms;
    for (double s : seconds) ms.push_back(static_cast<long>(s * 1e3));
    const long integer_mean = std::accumulate(ms.begin(), ms.end(), 0L) / size;  // as OSU's
    const char* printed = "ms (each rank's whole milliseconds, as OSU prints them)";
    m.values = {
        {"nprocs", static_cast<double>(size), "processes"},
        {"osu_min_ms", static_cast<double>(*std::min_element(ms.begin(), ms.end())), printed},
        {"osu_max_ms", static_cast<double>(*std::max_element(ms.begin(), ms.end())), printed},
        {"osu_avg_ms", static_cast<double>(integer_mean), printed}};
    reporters.out().benchmark_started(b);
    b.rows.push_back(m);
    reporters.out().row(b, b.rows.back());
    reporters.out().benchmark_finished(b);
  }
  reporters.measured(info);
  reporters.finish(info, true);
  return 0;
}

}  // namespace mpiscope::osu
