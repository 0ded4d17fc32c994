// The C library's heap, fixed for the whole run before MPI starts. glibc adapts its mmap and trim
// thresholds as a program frees memory, so whether an MPI library's temporary buffers (MPICH's
// MPI_Reduce at 4 MiB allocates two of 4 MiB on each call) stay in the heap or go back to the
// system and are faulted in again at every call depends on everything the process freed before.
// The same Reduce at 4 MiB then took 930 or 2500 µs depending on the benchmarks run earlier, in
// Intel's IMB as in mpiscope. Fixed thresholds make it the same in every run (bench/README.md).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace mpiscope::core {

constexpr std::size_t kHeapMmapThreshold = std::size_t{32} << 20;  // glibc's largest dynamic one
constexpr std::size_t kHeapTrimThreshold = std::size_t{256} << 20;

enum class HeapPolicyKind {
  Fixed,        // mpiscope set both thresholds
  Environment,  // the user's GLIBC_TUNABLES or MALLOC_*_ variables decide
  System,       // MPISCOPE_HEAP=system: the C library's adaptive defaults
  Unavailable,  // mallopt refused (not glibc, or a sanitizer's allocator)
};

struct HeapPolicy {
  HeapPolicyKind kind = HeapPolicyKind::Unavailable;
  std::string description;  // for the run's settings ("heap") and the IMB header
};

// Decides from the environment (`getenv`, a parameter so that tests can plant one) and, for
// Fixed, calls `set` (mallopt's signature; false when it refuses) for each threshold. MPISCOPE_HEAP
// (system or fixed) chooses; without it, the user's own thresholds are left alone, and otherwise
// the suite's default applies: Fixed, or System for a suite whose originals are compared side by
// side under glibc's defaults (OSU's programs, each one benchmark per process).
HeapPolicy decide_heap_policy(const std::function<const char*(const char*)>& getenv,
                              const std::function<bool(int option, int value)>& set,
                              HeapPolicyKind suite_default = HeapPolicyKind::Fixed);

// Applies the policy to this process (once, before MPI_Init) and remembers it.
const HeapPolicy& fix_heap_for_run(HeapPolicyKind suite_default = HeapPolicyKind::Fixed);
// What fix_heap_for_run() did; Unavailable with an empty description if it was not called.
const HeapPolicy& heap_policy();

}  // namespace mpiscope::core
