// --timeout: every rank runs a watchdog thread that ends the process when one measurement point
// (benchmark, length, process count) takes longer than the limit. The thread makes no MPI call;
// the launcher sees the exit and stops the other ranks, so no rank is left hanging.
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

  void arm(const std::string& what);  // starts the clock for a new point
  void disarm();
  bool enabled() const { return seconds_ > 0; }
  static constexpr int kExitCode = 4;  // documented in the README (exit status)

 private:
  void watch();
  double seconds_;
  int rank_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string what_;
  bool armed_ = false, stop_ = false;
  unsigned long generation_ = 0;
  std::thread thread_;
};

}  // namespace mpiscope::core
