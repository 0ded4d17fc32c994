#include "core/watchdog.hpp"

#include "core/scratch_files.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace mpiscope::core {

Watchdog::Watchdog(double seconds, int world_rank) : seconds_(seconds), rank_(world_rank) {
  if (enabled()) thread_ = std::thread([this] { watch(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::arm(const std::string& what) {
  start(what, seconds_);
}

void Watchdog::end_phase() {
  if (!enabled()) return;
  std::string ended;
  {
    std::lock_guard lock(mutex_);
    if (phase_.empty()) return;  // nothing began yet
    ended = phase_;
  }
  start("the end of " + ended, seconds_, false);
}

void Watchdog::wait_for_others(const std::string& what, long phases) {
  start(what, seconds_ * static_cast<double>(std::max(1L, phases)));
}

void Watchdog::stop() {
  if (!enabled()) return;
  {
    std::lock_guard lock(mutex_);
    armed_ = false;
    ++generation_;
  }
  wake_.notify_all();
}

void Watchdog::start(const std::string& what, double seconds, bool new_phase) {
  if (!enabled()) return;
  {
    std::lock_guard lock(mutex_);
    what_ = what;
    if (new_phase) phase_ = what;
    limit_s_ = seconds;
    armed_ = true;
    ++generation_;
  }
  wake_.notify_all();
}

void Watchdog::watch() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    if (!armed_) {
      wake_.wait(lock, [&] { return stop_ || armed_; });
      continue;
    }
    const auto gen = generation_;
    // Capped at ten years: a larger --timeout would overflow the clock's representation.
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(std::min(limit_s_, 3.2e8)));
    if (wake_.wait_until(lock, deadline, [&] { return stop_ || generation_ != gen; })) continue;
    // Rank 0 speaks for the run; the others leave a moment later without a word.
    if (rank_ == 0) {
      std::fprintf(stderr,
                   "mpiscope: error: timeout: %s did not finish within %g s (--timeout); "
                   "aborting the run\n",
                   what_.c_str(), limit_s_);
      std::fflush(stderr);
      std::fflush(stdout);
    } else {
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::seconds(2));
    }
    scratch_files::remove_all();  // _exit skips every other clean-up
    _exit(kExitCode);
  }
}

}  // namespace mpiscope::core
