#include "core/scratch_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <stdexcept>

#include "core/fault_injection.hpp"
#include "core/mpi.hpp"

namespace mpiscope::core::scratch_files {

namespace {
// A fixed table of fixed-size paths: the signal handler and the reaper may only read memory and
// make system calls (no malloc: a fork from a threaded process may have left its lock held).
constexpr int kMaxFiles = 256;
constexpr int kMaxPath = 1024;
char paths[kMaxFiles][kMaxPath];
volatile std::sig_atomic_t in_use[kMaxFiles];
volatile std::sig_atomic_t
    is_directory[kMaxFiles];  // the run's directory, removed with its content
std::mutex table_mutex;
int reaper_socket = -1;  // our end of the line to the reaper, -1 before the first file

// The run's directory as this process created or found it (create_run_directory).
std::string run_directory;
dev_t run_directory_device = 0;
ino_t run_directory_inode = 0;

// A directory and what is in it (the run's files, and those an MPI library adds beside them: a
// shared file pointer's), with system calls only, for the signal handler and the reaper. Nobody
// else can enter the directory, so names read from it are removed relative to it.
void remove_tree(const char* path) {
  for (int pass = 0; pass < 4 && rmdir(path) != 0 && errno == ENOTEMPTY; ++pass) {
    const int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    alignas(dirent64) char entries[4096];
    for (ssize_t got; (got = getdents64(fd, entries, sizeof entries)) > 0;)
      for (ssize_t at = 0; at < got;) {
        const auto* entry = reinterpret_cast<const dirent64*>(entries + at);
        at += entry->d_reclen;
        const char* name = entry->d_name;
        if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
        if (unlinkat(fd, name, 0) != 0) unlinkat(fd, name, AT_REMOVEDIR);
      }
    close(fd);
  }
}

// Files first: the directory goes once they are gone.
void remove_registered() {
  for (int i = 0; i < kMaxFiles; ++i)
    if (in_use[i] && !is_directory[i]) unlink(paths[i]);
  for (int i = 0; i < kMaxFiles; ++i)
    if (in_use[i] && is_directory[i]) remove_tree(paths[i]);
}

// SIGINT/SIGTERM while the reporters take an event (DeferSignals) waits for the last of them:
// ended between the database and the JSON file, a run would keep a row in one and not the other.
// The handler may run on any thread (the MPI library's own, too): it notes the signal before it
// looks at the count, and ~DeferSignals lowers the count before it looks at the signal, so that
// one of the two always sees the other (sequentially consistent atomics, lock-free).
std::atomic<int> deferring{0};
std::atomic<int> pending_signal{0};

void end_by_signal(int sig) {
  remove_registered();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void on_signal(int sig) {
  pending_signal.store(sig);
  if (deferring.load() == 0) end_by_signal(sig);
}

bool registered(const char* path) {
  for (int i = 0; i < kMaxFiles; ++i)
    if (in_use[i] && std::strcmp(paths[i], path) == 0) return true;
  return false;
}

void set_entry(const char* path, bool used, bool directory = false) {
  for (int i = 0; i < kMaxFiles; ++i) {
    if (used && !in_use[i]) {
      const std::size_t length = strnlen(path, kMaxPath - 1);
      std::memcpy(paths[i], path, length);
      paths[i][length] = '\0';
      is_directory[i] = directory ? 1 : 0;
      in_use[i] = 1;
      return;
    }
    if (!used && in_use[i] && std::strcmp(paths[i], path) == 0) in_use[i] = 0;
  }
}

// The reaper: a child that outlives a SIGKILL of its parent. Launchers follow SIGTERM with
// SIGKILL (Open MPI after 1 s), which no handler can catch; the reaper sees its socket close when
// the parent dies, for whatever reason, and removes the files still registered. It starts with
// the parent's table and follows "+path\n" / "-path\n" lines ("/path\n": the run's directory).
[[noreturn]] void reaper_main(int fd) {
  setsid();  // out of the launcher's process group and its signals
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_IGN);
  std::signal(SIGHUP, SIG_IGN);
  // Hold nothing of the launcher's: it waits for its output pipes to close.
  const int null_fd = open("/dev/null", O_RDWR);
  for (int std_fd = 0; std_fd < 3; ++std_fd) dup2(null_fd, std_fd);
  dup2(fd, 3);
  close_range(4, ~0U, 0);
  fd = 3;
  static char line[kMaxPath + 2];
  int length = 0;
  char chunk[4096];
  for (;;) {
    const ssize_t got = read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    for (ssize_t i = 0; i < got; ++i) {
      if (chunk[i] != '\n') {
        if (length < kMaxPath + 1) line[length++] = chunk[i];
        continue;
      }
      line[length] = '\0';
      if (length > 1) set_entry(line + 1, line[0] != '-', line[0] == '/');
      length = 0;
    }
  }
  remove_registered();
  _exit(0);
}

// Called with table_mutex held.
void tell_reaper(char op, const std::string& path) {
  if (reaper_socket < 0) {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return;
    const pid_t pid = fork();
    if (pid == 0) {
      close(ends[0]);
      reaper_main(ends[1]);
    }
    close(ends[1]);
    if (pid < 0) {
      close(ends[0]);
      return;  // no reaper: the signal handler and the normal clean-up still work
    }
    reaper_socket = ends[0];
  }
  const std::string message = op + path + "\n";
  for (std::size_t sent = 0; sent < message.size();) {
    const ssize_t n =
        send(reaper_socket, message.data() + sent, message.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}
}  // namespace

void install_signal_cleanup() {
  static_assert(std::atomic<int>::is_always_lock_free);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

DeferSignals::DeferSignals() {
  deferring.fetch_add(1);
}

DeferSignals::~DeferSignals() {
  if (deferring.fetch_sub(1) == 1)
    if (const int sig = pending_signal.load(); sig != 0) end_by_signal(sig);
}

void add(const std::string& path) {
  std::lock_guard lock(table_mutex);
  tell_reaper('+', path);  // before the file exists, so that no moment is uncovered
  set_entry(path.c_str(), true);
}

void remove(const std::string& path) {
  std::lock_guard lock(table_mutex);
  if (!registered(path.c_str())) return;  // not created by this run (or already removed)
  unlink(path.c_str());
  set_entry(path.c_str(), false);
  tell_reaper('-', path);
}

void forget(const std::string& path) {
  std::lock_guard lock(table_mutex);
  set_entry(path.c_str(), false);
  tell_reaper('-', path);
}

void remove_all() {
  std::lock_guard lock(table_mutex);
  remove_registered();
  for (int i = 0; i < kMaxFiles; ++i)
    if (in_use[i]) {
      in_use[i] = 0;
      tell_reaper('-', paths[i]);
    }
}

std::string random_token() {
  std::random_device source;  // the CPU's or the kernel's random source, never a seed
  char text[17];
  std::snprintf(text, sizeof text, "%08x%08x", source(), source());
  return text;
}

std::string unique_run_tag() {
  const std::string planted = fault::planted_run_tag();
  return planted.empty() ? random_token() : planted;
}

int create_unique(const std::string& prefix, std::string& created) {
  // A collision with a random name is rare; a few attempts bound a directory full of them.
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string path = prefix + random_token();
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      created = path;
      return fd;
    }
    if (errno != EEXIST) return -1;
  }
  return -1;  // errno is EEXIST
}

void check_io_dir(const std::string& dir) {
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw std::runtime_error("--io-dir '" + dir + "' is not a directory");
  // What the run does first: create its own directory there (create_run_directory).
  std::string probe = dir + "/.mpiscope-probe-XXXXXX";
  if (mkdtemp(probe.data()) == nullptr) {
    const int why = errno;
    // /proc answers "No such file or directory" for a directory that exists: say what it means.
    const std::string meaning =
        why == ENOENT ? " (the directory exists: its file system does not let new entries be made "
                        "in it, as /proc's does not)"
                      : "";
    throw std::runtime_error(
        "--io-dir '" + dir +
        "' cannot be used: creating a directory in it failed: " + std::strerror(why) + meaning);
  }
  rmdir(probe.c_str());
}

RunDirectory create_run_directory(const std::string& dir, MPI_Comm comm) {
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nprocs);
  std::string created, why_not;
  if (rank == 0) {
    std::string name = dir + "/mpiscope-XXXXXX";
    std::lock_guard lock(table_mutex);
    if (mkdtemp(name.data()) != nullptr) {
      created = name;
      tell_reaper('/', created);
      set_entry(created.c_str(), true, true);
    } else {
      why_not =
          "cannot create the run's directory in --io-dir '" + dir + "': " + std::strerror(errno);
    }
  }
  RunDirectory result;
  result.path = mpi::broadcast(created, 0, comm);
  if (result.path.empty()) {
    result.problem = mpi::broadcast(why_not, 0, comm);
    return result;
  }
  // Every process must see rank 0's directory itself: not another one of the same name (a
  // node-local /tmp), not a link.
  struct stat st {};
  unsigned long long inode_of_rank0 = 0;
  const bool seen = lstat(result.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  if (rank == 0) inode_of_rank0 = seen ? st.st_ino : 0;
  MPI_Bcast(&inode_of_rank0, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  const bool same = seen && st.st_ino == inode_of_rank0;
  if (same) {
    run_directory = result.path;
    run_directory_device = st.st_dev;
    run_directory_inode = st.st_ino;
  }
  int first_missing = same ? INT_MAX : rank;
  int missing = same ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &first_missing, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &missing, 1, MPI_INT, MPI_SUM, comm);
  if (missing == 0) return result;
  // The hosts of rank 0 and of the first process that missed the directory, for the message.
  char host0[MPI_MAX_PROCESSOR_NAME + 1] = {}, host_missing[MPI_MAX_PROCESSOR_NAME + 1] = {};
  int length = 0;
  MPI_Get_processor_name(host0, &length);
  std::memcpy(host_missing, host0, sizeof host0);
  MPI_Bcast(host0, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm);
  MPI_Bcast(host_missing, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, first_missing, comm);
  result.problem = "--io-dir '" + dir +
                   "' is not one directory shared by every process: the directory rank 0 (on " +
                   host0 + ") created there is not seen by " + std::to_string(missing) +
                   " of the " + std::to_string(nprocs) + " processes, the first rank " +
                   std::to_string(first_missing) + " (on " + host_missing +
                   "). Parallel I/O needs a directory every process sees, on a shared (parallel or "
                   "network) file system";
  return result;
}

std::string run_directory_problem() {
  struct stat st {};
  if (lstat(run_directory.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
      st.st_dev == run_directory_device && st.st_ino == run_directory_inode)
    return "";
  return "the run's directory " + run_directory +
         " is no longer the one it created (its device and inode changed): someone who may "
         "rename entries of --io-dir moved it away; stopping";
}

}  // namespace mpiscope::core::scratch_files
