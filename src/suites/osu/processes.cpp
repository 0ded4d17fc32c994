// osu_latency_mp (OSU 7.4's c/mpi/pt2pt/standard/osu_latency_mp.c): osu_latency's ping-pong, with
// a barrier before every iteration, each iteration timed alone, while the ranks have forked
// children of their own (-t [S:]R: S on rank 0, R on rank 1) that sleep 2 s and leave without
// touching MPI: how the library's latency fares in processes that fork (copy-on-write pages
// under registered buffers, a pinned-memory cache that forgets them).
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>

#include "suites/osu/osu.hpp"

namespace mpiscope::osu {

core::Benchmark forked_ping_pong_latency() {
  core::Benchmark b = ping_pong_latency();
  b.name = "osu_latency_mp";
  // OSU: MPI_Barrier, then the timed send and receive, every iteration (skip ones too).
  b.barrier_between_repetitions = true;
  return b;
}

ForkedChildren::ForkedChildren(int count) {
  for (int k = 0; k < count; ++k) {
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork: " + std::string(std::strerror(errno)));
    if (pid == 0) {
      // The child: OSU's CHILD_SLEEP_SECONDS, then out without exit handlers, stdio flushes or
      // MPI calls, all of which belong to the parent.
      timespec left{.tv_sec = kChildSleepSeconds, .tv_nsec = 0};
      while (nanosleep(&left, &left) != 0 && errno == EINTR) {
      }
      _exit(0);
    }
    children_.push_back(static_cast<int>(pid));
  }
}

ForkedChildren::~ForkedChildren() {
  for (const int pid : children_)
    while (waitpid(static_cast<pid_t>(pid), nullptr, 0) < 0 && errno == EINTR) {
    }
}

}  // namespace mpiscope::osu
