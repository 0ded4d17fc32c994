// What the bench programs print next to their figures so that a quiet run can be told from a
// disturbed one (the machine's 2 cores are shared), and the order statistics they report.
#pragma once

#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace bench {

// The machine's load average.
inline std::string loadavg() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  if (!(in >> one >> five >> fifteen)) return "unknown";
  return one + " " + five + " " + fifteen;
}

// How often the kernel took the CPU away from this process: other work competing for the cores
// shows up here long before it shows in the load average.
inline long involuntary_switches() {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string key = "nonvoluntary_ctxt_switches:";
  while (std::getline(in, line))
    if (line.compare(0, key.size(), key) == 0)
      return std::strtol(line.c_str() + key.size(), nullptr, 10);
  return -1;
}

// Seconds of CPU this process has had. The ranks busy-poll, so on a quiet machine each has a whole
// core: CPU time ≈ wall time. A smaller share means something else ran on its core.
inline double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto sec = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
  };
  return sec(ru.ru_utime) + sec(ru.ru_stime);
}
constexpr double kQuietCpuShare = 0.95;

inline double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return v[lo] * (1 - frac) + v[hi] * frac;
}

// Share of the wall time each rank had a CPU, and its involuntary switches, since construction.
// report() is collective over MPI_COMM_WORLD (2 ranks); rank 0 prints.
class LoadWatch {
 public:
  LoadWatch() : switches_(involuntary_switches()), cpu_(cpu_seconds()), wall_(MPI_Wtime()) {}
  void report(int rank) const {
    const double share = (cpu_seconds() - cpu_) / (MPI_Wtime() - wall_);
    double shares[2] = {0, 0};
    MPI_Gather(&share, 1, MPI_DOUBLE, shares, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    long preempted[2] = {0, 0};
    const long mine = involuntary_switches() - switches_;
    MPI_Gather(&mine, 1, MPI_LONG, preempted, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank != 0) return;
    std::printf("# load average at end: %s\n", loadavg().c_str());
    std::printf(
        "# rank 0, 1: CPU time / wall time %.3f, %.3f; involuntary context switches %ld, %ld\n",
        shares[0], shares[1], preempted[0], preempted[1]);
    if (std::min(shares[0], shares[1]) < kQuietCpuShare)
      std::printf(
          "# WARNING: a rank had its core for less than %.0f%% of the run: other processes "
          "ran on it; these figures do not measure the harness\n",
          100 * kQuietCpuShare);
  }

 private:
  long switches_;
  double cpu_, wall_;
};

}  // namespace bench
