// Thin RAII wrappers over the MPI C API. They own handles and turn error codes into exceptions;
// they do not hide which MPI call is made (KaMPIng-style: modern C++ over MPI, not instead of it).
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mpiscope::mpi {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws Error naming the call when an MPI function does not return MPI_SUCCESS.
void check(int rc, const char* call);
// MPI_Error_string of an error code.
std::string error_string(int rc);

// Before MPI_Init the launchers' environment tells which rank this will be (none: not launched,
// a singleton, rank 0).
bool launched_as_rank_zero();

// How long this process's MPI_Init_thread took, in seconds (osu_init); 0 before it ran.
double init_seconds();

// MPI_Init_thread / MPI_Finalize. Finalizes on destruction unless the process is aborting.
class Environment {
 public:
  Environment(int& argc, char**& argv, int required_thread_level);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  int provided_thread_level() const { return provided_; }

 private:
  int provided_ = MPI_THREAD_SINGLE;
};

// An owned communicator (freed on destruction) or a borrowed one (MPI_COMM_WORLD, MPI_COMM_NULL).
class Comm {
 public:
  Comm() = default;
  static Comm borrow(MPI_Comm c) { return Comm(c, false); }
  static Comm own(MPI_Comm c) { return Comm(c, c != MPI_COMM_NULL); }
  ~Comm() { reset(); }
  Comm(Comm&& o) noexcept : comm_(std::exchange(o.comm_, MPI_COMM_NULL)), owned_(o.owned_) {}
  Comm& operator=(Comm&& o) noexcept {
    if (this != &o) {
      reset();
      comm_ = std::exchange(o.comm_, MPI_COMM_NULL);
      owned_ = o.owned_;
    }
    return *this;
  }
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  MPI_Comm get() const { return comm_; }
  bool is_null() const { return comm_ == MPI_COMM_NULL; }
  int rank() const;
  int size() const;

  // MPI_Comm_split; ranks passing MPI_UNDEFINED get a null Comm.
  Comm split(int color, int key) const;

 private:
  Comm(MPI_Comm c, bool owned) : comm_(c), owned_(owned) {}
  void reset();
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool owned_ = false;
};

// MPI-4 sessions (OSU's -I): a session of its own and the communicator made from its group of the
// process set "mpi://WORLD", whose ranks are the world's (checked: an error otherwise); freed
// and finalized on destruction. The world model stays initialized beside it. Only where the
// library implements MPI 4.0 (MPI_VERSION >= 4): elsewhere the constructor throws.
inline constexpr bool kHasSessions = MPI_VERSION >= 4;
class SessionWorld {
 public:
  explicit SessionWorld(const std::string& tag);
  ~SessionWorld();
  SessionWorld(const SessionWorld&) = delete;
  SessionWorld& operator=(const SessionWorld&) = delete;
  MPI_Comm comm() const { return comm_; }

 private:
#if MPI_VERSION >= 4
  MPI_Session session_ = MPI_SESSION_NULL;
#endif
  MPI_Comm comm_ = MPI_COMM_NULL;
};

int world_rank();
// Ends the whole job with MPI_Abort after the caller's error message: flushes stdout and stderr
// and waits 300 ms first, because MPICH's launcher kills every process at MPI_Abort and can drop
// lines still in its forwarding pipe (seen in 3 of 16 runs).
[[noreturn]] void abort_job(int exit_code);
int world_size();

std::string library_version();  // MPI_Get_library_version (callable before MPI_Init)
// The MPI this executable was compiled against, from its mpi.h: "Open MPI 4.1.4 (MPI 3.1)".
std::string built_with();
std::string thread_level_name(int level);

}  // namespace mpiscope::mpi

namespace mpiscope::mpi {
// Rank `root`'s string on every rank of comm.
std::string broadcast(std::string value, int root, MPI_Comm comm);
}  // namespace mpiscope::mpi
