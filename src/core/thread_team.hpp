// IMB-MT's threads (EngineSettings::threads): each of a process's threads runs the whole point on
// a communicator and buffers of its own, all at once. The team is what they share: the meeting
// point of current IMB's "omp-aware" barrier (the threads meet, thread 0 synchronises the
// processes, the threads meet again) and of BarrierMT's kernel.
#pragma once

#include <barrier>
#include <functional>

namespace mpiscope::core {

struct PointContext;

class ThreadTeam {
 public:
  explicit ThreadTeam(int size) : size_(size), meeting_(size) {}
  int size() const { return size_; }
  // Every thread of the team waits here until all have come.
  void meet() { meeting_.arrive_and_wait(); }

  // Runs work(t) on `size` threads at once, t = 0 on the calling thread (the one that called
  // MPI_Init_thread, as OpenMP's master), and returns when all have. An exception on any thread,
  // or a thread that cannot be started, ends the whole job with one error (the others would wait
  // for it forever).
  static void run(int size, const std::function<void(int thread)>& work);

 private:
  int size_;
  std::barrier<> meeting_;
};

// The barrier of a context whose point runs on a team: meet, thread 0's ctx.barrier on its own
// communicator (one per thread, each spanning every process), meet again.
void team_barrier(const PointContext& ctx);

}  // namespace mpiscope::core
