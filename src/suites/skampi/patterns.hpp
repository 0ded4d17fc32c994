// The four SKaMPI patterns (paper section 3.1). A kernel is one instance of Figure 2 prepared
// for one measurement point (communicator, message length, chunks, datatypes): sample() is one
// timed repetition on the calling process, empty() the pattern's empty measurement that is
// subtracted (4.1), verify() one untimed exchange that checks the bytes the datatypes moved.
#pragma once
#include <mpi.h>

#include <memory>

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
};

struct KernelSetup {
  MPI_Comm comm;    // the participating processes; rank 0 times (ping-pong: the pair)
  long length = 0;  // bytes of data per message
  int chunks = 0;   // master-worker: chunks per problem
  const BaseDatatype* base = nullptr;
  int send_datatype = 0, recv_datatype = 0;
};

std::unique_ptr<Kernel> make_kernel(const InstanceInfo& instance, const KernelSetup& setup);

// Bytes of message buffer one process needs at a point (checked against @MEMORY).
long buffer_bytes(const InstanceInfo& instance, long span, int nprocs);

}  // namespace mpiscope::skampi
