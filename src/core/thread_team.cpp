#include "core/thread_team.hpp"

#include <cstdio>
#include <thread>
#include <vector>

#include "core/benchmark.hpp"
#include "core/mpi.hpp"
#include "core/text.hpp"

namespace mpiscope::core {
namespace {
// A thread that failed leaves the others of its team, here and on the other ranks, waiting in a
// meeting or in MPI for it: the run cannot go on, and returning would only hang. As the front end
// does with any failure past the point where the ranks agreed, say why and end the whole job.
[[noreturn]] void fail_the_run(int thread, const char* what) {
  std::fprintf(stderr, "mpiscope: error on rank %d, thread %d: %s\n", mpi::world_rank(), thread,
               printable(what).c_str());
  mpi::abort_job(1);
}
}  // namespace

void ThreadTeam::run(int size, const std::function<void(int thread)>& work) {
  const auto guarded = [&](int t) {
    try {
      work(t);
    } catch (const std::exception& e) {
      fail_the_run(t, e.what());
    } catch (...) {
      fail_the_run(t, "an unknown exception");
    }
  };
  std::vector<std::thread> others;
  others.reserve(static_cast<std::size_t>(size));
  try {
    for (int t = 1; t < size; ++t) others.emplace_back(guarded, t);
  } catch (const std::exception& e) {
    fail_the_run(static_cast<int>(others.size()) + 1,
                 (std::string("could not start the thread: ") + e.what()).c_str());
  }
  guarded(0);
  for (auto& thread : others) thread.join();
}

void team_barrier(const PointContext& ctx) {
  ctx.team->meet();
  if (ctx.thread == 0) ctx.barrier(ctx.comm);
  ctx.team->meet();
}

}  // namespace mpiscope::core
