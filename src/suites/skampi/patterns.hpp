// The four SKaMPI patterns (paper section 3.1). A kernel is one instance of Figure 2 prepared
// for one measurement point (communicator, message length, chunks, datatypes): sample() is one
// timed repetition on the calling process, empty() the pattern's empty measurement that is
// subtracted (4.1), verify() one untimed exchange that checks the bytes the datatypes moved.
// repetition() is what accurate mode (core/accurate.hpp) times instead of sample(): the
// operation alone, on every process of the communicator, without SKaMPI's timing or barriers.
#pragma once
#include <mpi.h>

#include <memory>

#include "cli/method_options.hpp"
#include "suites/skampi/datatypes.hpp"
#include "suites/skampi/instances.hpp"

namespace mpiscope::skampi {

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual double sample() = 0;  // seconds, measured on this process
  virtual double empty() = 0;   // the same timing around nothing (collectives: the barrier)
  // Wrong data bytes seen by the timing process (rank 0 of the communicator); 0 elsewhere.
  virtual long verify() { return 0; }
  // Accurate mode: the operation of one sample once, a complete operation on every process of
  // the communicator (only when accurate_unavailable(instance) is nullptr).
  virtual void repetition();
  // Accurate mode: untimed clean-up after each sample's repetitions and at the point's end
  // (Comm_split's communicators, which would exhaust MPICH's 2,048 over a long point).
  virtual void after_repetitions() {}
};

struct KernelSetup {
  MPI_Comm comm;    // the participating processes; rank 0 times (ping-pong: the pair)
  long length = 0;  // bytes of data per message
  int chunks = 0;   // master-worker: chunks per problem
  const BaseDatatype* base = nullptr;
  int send_datatype = 0, recv_datatype = 0;
  DatatypeParams datatype_params;  // @BLOCKSIZE, @VECTORSTRIDE
};

std::unique_ptr<Kernel> make_kernel(const InstanceInfo& instance, const KernelSetup& setup);

// Why accurate mode cannot time the instance's repetitions (then the suite keeps SKaMPI's
// method), or nullptr when it can: master-worker's workers are released after the master's
// timed region, so one repetition is not a complete operation on every process; a second
// MPI_Buffer_attach needs the detach that SKaMPI leaves out of the timing.
const char* accurate_unavailable(const InstanceInfo& instance);
// Accurate mode applies to a suite when it was asked for and accurate_unavailable allows it;
// otherwise SKaMPI's method measures the suite.
bool measured_accurately(const SuiteSpec& s, const cli::MethodOptions& method);

// MPI_Comm_split (kCommSplitType) in accurate mode keeps every repetition's new communicator until
// the point ends (freeing it is not part of what is timed), and MPI libraries have a limited number
// of communicator contexts: at most this many repetitions per point (a window fall-back may
// double them, plus the pilot's).
constexpr int kMaxCommSplitRepetitions = 500;

// Bytes of message buffer one process needs at a point (checked against @MEMORY).
long buffer_bytes(const InstanceInfo& instance, long span, int nprocs);

}  // namespace mpiscope::skampi
