#include "core/thread_team.hpp"

#include <thread>
#include <vector>

#include "core/benchmark.hpp"

namespace mpiscope::core {

void ThreadTeam::run(int size, const std::function<void(int thread)>& work) {
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(size));
  const auto guarded = [&](int t) {
    try {
      work(t);
    } catch (...) {
      failures[static_cast<std::size_t>(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> others;
  others.reserve(static_cast<std::size_t>(size));
  for (int t = 1; t < size; ++t) others.emplace_back(guarded, t);
  guarded(0);
  for (auto& thread : others) thread.join();
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

void team_barrier(const PointContext& ctx) {
  ctx.team->meet();
  if (ctx.thread == 0) ctx.barrier(ctx.comm);
  ctx.team->meet();
}

}  // namespace mpiscope::core
