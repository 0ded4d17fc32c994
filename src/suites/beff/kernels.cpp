#include "suites/beff/kernels.hpp"

namespace mpiscope::beff {

const char* method_name(Method m) {
  switch (m) {
    case Method::Sendrecv:
      return "MPI_Sendrecv";
    case Method::Alltoallv:
      return "MPI_Alltoallv";
    default:
      return "MPI_Irecv/MPI_Isend/MPI_Waitall";
  }
}

const char* method_label(Method m) {
  switch (m) {
    case Method::Sendrecv:
      return "Sendrecv";
    case Method::Alltoallv:
      return "Alltoallv";
    default:
      return "nonblk";
  }
}

void prepare_transfer(Transfer& t, int world_size) {
  const auto n = static_cast<std::size_t>(world_size);
  t.send_counts.assign(n, 0);
  t.send_displs.assign(n, 0);
  t.recv_counts.assign(n, 0);
  t.recv_displs.assign(n, 0);
  const auto& steps = *t.steps;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const int displacement = static_cast<int>(s * t.slot_stride);
    if (steps[s].dest != Step::kNone) {
      t.send_counts[static_cast<std::size_t>(steps[s].dest)] = t.bytes;
      t.send_displs[static_cast<std::size_t>(steps[s].dest)] = displacement;
    }
    if (steps[s].source != Step::kNone) {
      t.recv_counts[static_cast<std::size_t>(steps[s].source)] = t.bytes;
      t.recv_displs[static_cast<std::size_t>(steps[s].source)] = displacement;
    }
  }
  t.requests.assign(2 * steps.size(), MPI_REQUEST_NULL);
}

double run_loop(Method method, Transfer& t, int looplength, bool warm_up) {
  switch (method) {
    case Method::Sendrecv:
      return timed_loop<sendrecv_iteration>(t, looplength, warm_up);
    case Method::Alltoallv:
      return timed_loop<alltoallv_iteration>(t, looplength, warm_up);
    default:
      return timed_loop<nonblocking_iteration>(t, looplength, warm_up);
  }
}

void run_iteration(Method method, Transfer& t) {
  switch (method) {
    case Method::Sendrecv:
      return sendrecv_iteration(t);
    case Method::Alltoallv:
      return alltoallv_iteration(t);
    default:
      return nonblocking_iteration(t);
  }
}

namespace {
// The repetition is the iteration itself, chosen outside the timed region.
template <void (*Iteration)(Transfer&)>
core::AccurateResult measure_with(core::AccurateMeter& meter, Transfer& t) {
  auto repetition = [&t](int) { Iteration(t); };
  return meter.measure(repetition);
}
}  // namespace

core::AccurateResult measure_iterations(core::AccurateMeter& meter, Method method, Transfer& t) {
  switch (method) {
    case Method::Sendrecv:
      return measure_with<sendrecv_iteration>(meter, t);
    case Method::Alltoallv:
      return measure_with<alltoallv_iteration>(meter, t);
    default:
      return measure_with<nonblocking_iteration>(meter, t);
  }
}

}  // namespace mpiscope::beff
