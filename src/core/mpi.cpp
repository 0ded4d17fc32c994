#include "core/mpi.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

namespace mpiscope::mpi {

std::string error_string(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return std::string(text, static_cast<std::size_t>(len));
}

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  throw Error(std::string(call) + " failed: " + error_string(rc));
}

bool launched_as_rank_zero() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* value = std::getenv(var)) return std::string(value) == "0";
  return true;
}

namespace {
double init_duration_s = 0;
}

SessionWorld::SessionWorld(const std::string& tag) {
#if MPI_VERSION >= 4
  check(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session_), "MPI_Session_init");
  MPI_Group group = MPI_GROUP_NULL;
  check(MPI_Group_from_session_pset(session_, "mpi://WORLD", &group),
        "MPI_Group_from_session_pset");
  const int rc =
      MPI_Comm_create_from_group(group, tag.c_str(), MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm_);
  MPI_Group_free(&group);
  check(rc, "MPI_Comm_create_from_group");
  // As MPI_COMM_WORLD's: a failed call in a benchmark ends the job rather than being timed.
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_ARE_FATAL);
  int rank = -1, world = -1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  if (rank != world)
    throw std::runtime_error("the session's mpi://WORLD numbers this process " +
                             std::to_string(rank) + ", MPI_COMM_WORLD " + std::to_string(world));
#else
  throw std::runtime_error("this MPI library implements MPI " + std::to_string(MPI_VERSION) + "." +
                           std::to_string(MPI_SUBVERSION) +
                           ", which has no sessions (MPI 4.0): " + tag + " cannot start one");
#endif
}

SessionWorld::~SessionWorld() {
#if MPI_VERSION >= 4
  // Unwinding towards the front end's MPI_Abort: the other ranks may be inside a collective, and
  // MPI_Session_finalize may wait for them.
  if (std::uncaught_exceptions() > 0) return;
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  if (session_ != MPI_SESSION_NULL) MPI_Session_finalize(&session_);
#endif
}

double init_seconds() {
  return init_duration_s;
}

Environment::Environment(int& argc, char**& argv, int required_thread_level) {
  // MPI errors stay fatal (the default): a failing call inside a timed kernel ends the job with
  // the library's own message instead of producing numbers for a broken transfer.
  const auto start = std::chrono::steady_clock::now();
  check(MPI_Init_thread(&argc, &argv, required_thread_level, &provided_), "MPI_Init_thread");
  init_duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Environment::~Environment() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void abort_job(int exit_code) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // MPI_Abort does not return; if it did, this process still ends
}

int Comm::rank() const {
  int r = -1;
  check(MPI_Comm_rank(comm_, &r), "MPI_Comm_rank");
  return r;
}

int Comm::size() const {
  int s = 0;
  check(MPI_Comm_size(comm_, &s), "MPI_Comm_size");
  return s;
}

Comm Comm::split(int color, int key) const {
  MPI_Comm out = MPI_COMM_NULL;
  check(MPI_Comm_split(comm_, color, key, &out), "MPI_Comm_split");
  return own(out);
}

void Comm::reset() {
  if (owned_ && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  comm_ = MPI_COMM_NULL;
  owned_ = false;
}

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

std::string built_with() {
  std::string library = "an MPI library";
#if defined(OMPI_MAJOR_VERSION)
  library = "Open MPI " + std::to_string(OMPI_MAJOR_VERSION) + "." +
            std::to_string(OMPI_MINOR_VERSION) + "." + std::to_string(OMPI_RELEASE_VERSION);
#elif defined(I_MPI_VERSION)
  library = std::string("Intel MPI ") + I_MPI_VERSION;
#elif defined(MVAPICH2_VERSION)
  library = std::string("MVAPICH2 ") + MVAPICH2_VERSION;
#elif defined(MPICH_VERSION)
  library = std::string("MPICH ") + MPICH_VERSION;
#endif
  return library + " (MPI " + std::to_string(MPI_VERSION) + "." + std::to_string(MPI_SUBVERSION) +
         ")";
}

std::string library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<std::size_t>(len));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

std::string thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    default:
      return "MPI_THREAD_MULTIPLE";
  }
}

}  // namespace mpiscope::mpi

namespace mpiscope::mpi {
std::string broadcast(std::string value, int root, MPI_Comm comm) {
  unsigned long long size = value.size();
  check(MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, root, comm), "MPI_Bcast");
  value.resize(size);
  if (size > 0)
    check(MPI_Bcast(value.data(), static_cast<int>(size), MPI_CHAR, root, comm), "MPI_Bcast");
  return value;
}
}  // namespace mpiscope::mpi
