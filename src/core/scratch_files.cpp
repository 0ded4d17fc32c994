#include "core/scratch_files.hpp"

#include <unistd.h>

#include <csignal>
#include <cstring>
#include <ctime>
#include <mutex>

namespace mpiscope::core::scratch_files {

namespace {
// A fixed table of fixed-size paths: the signal handler may only read memory and call unlink.
constexpr int kMaxFiles = 256;
constexpr int kMaxPath = 1024;
char paths[kMaxFiles][kMaxPath];
volatile std::sig_atomic_t in_use[kMaxFiles];
std::mutex table_mutex;

void on_signal(int sig) {
  for (int i = 0; i < kMaxFiles; ++i)
    if (in_use[i]) unlink(paths[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}
}  // namespace

void install_signal_cleanup() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

void add(const std::string& path) {
  std::lock_guard lock(table_mutex);
  for (int i = 0; i < kMaxFiles; ++i)
    if (!in_use[i]) {
      std::strncpy(paths[i], path.c_str(), kMaxPath - 1);
      paths[i][kMaxPath - 1] = '\0';
      in_use[i] = 1;
      return;
    }
}

void remove(const std::string& path) {
  std::lock_guard lock(table_mutex);
  unlink(path.c_str());
  for (int i = 0; i < kMaxFiles; ++i)
    if (in_use[i] && path == paths[i]) in_use[i] = 0;
}

void forget(const std::string& path) {
  std::lock_guard lock(table_mutex);
  for (int i = 0; i < kMaxFiles; ++i)
    if (in_use[i] && path == paths[i]) in_use[i] = 0;
}

void remove_all() {
  std::lock_guard lock(table_mutex);
  for (int i = 0; i < kMaxFiles; ++i)
    if (in_use[i]) {
      unlink(paths[i]);
      in_use[i] = 0;
    }
}

std::string unique_run_tag() {
  char host[64] = {};
  gethostname(host, sizeof host - 1);
  return std::string(host) + "-" + std::to_string(getpid()) + "-" +
         std::to_string(static_cast<long long>(std::time(nullptr)));
}

}  // namespace mpiscope::core::scratch_files
