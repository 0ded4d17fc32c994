// --timeout: every rank runs a watchdog thread that ends the process when one measurement point
// (benchmark, length, process count) takes longer than the limit. The thread makes no MPI call;
// the launcher sees the exit and stops the other ranks, so no rank is left hanging.
// From the first arm() to the end, every moment is watched: what comes between two phases
// (collectives, closing and removing files, barriers) has a limit of its own, since a rank
// waiting there for a stopped one would otherwise wait for ever, its watchdog asleep.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace mpiscope::core {

class Watchdog {
 public:
  Watchdog(double seconds, int world_rank);  // seconds <= 0: disabled
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void arm(const std::string& what);  // starts the clock for a new phase
  // The phase is over: the clock starts again, for "the end of <what>", until the next arm().
  void end_phase();
  // This process waits for others that run up to `phases` watched phases (a layout or partition
  // it is not part of): the limit is that many times the timeout.
  void wait_for_others(const std::string& what, long phases);
  // Nothing more to watch: what follows makes no collective call (rank 0 writing the outputs).
  void stop();
  bool enabled() const { return seconds_ > 0; }
  static constexpr int kExitCode = 4;  // documented in the README (exit status)

 private:
  void watch();
  double seconds_;
  int rank_;
  std::mutex mutex_;
  std::condition_variable wake_;
  void start(const std::string& what, double seconds, bool new_phase = true);
  std::string what_, phase_;  // what is watched now; the phase last begun
  double limit_s_ = 0;        // of the phase being watched
  bool armed_ = false, stop_ = false;
  unsigned long generation_ = 0;
  std::thread thread_;
};

}  // namespace mpiscope::core
