#include "core/heap_policy.hpp"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

namespace mpiscope::core {

namespace {
HeapPolicy& remembered() {
  static HeapPolicy policy;
  return policy;
}

bool user_set_thresholds(const std::function<const char*(const char*)>& getenv) {
  for (const char* var : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"})
    if (getenv(var)) return true;
  const char* tunables = getenv("GLIBC_TUNABLES");
  return tunables && (std::strstr(tunables, "glibc.malloc.mmap_threshold") ||
                      std::strstr(tunables, "glibc.malloc.trim_threshold"));
}
}  // namespace

HeapPolicy decide_heap_policy(const std::function<const char*(const char*)>& getenv,
                              const std::function<bool(int option, int value)>& set) {
  HeapPolicy p;
  const char* choice = getenv("MPISCOPE_HEAP");
  if (choice && std::strcmp(choice, "system") == 0) {
    p.kind = HeapPolicyKind::System;
    p.description =
        "the C library's adaptive thresholds (MPISCOPE_HEAP=system): an MPI library's "
        "temporary buffers may be faulted in again at every call, depending on what ran before";
    return p;
  }
  if (user_set_thresholds(getenv)) {
    p.kind = HeapPolicyKind::Environment;
    p.description = "thresholds as the environment sets them (GLIBC_TUNABLES or MALLOC_*_)";
    return p;
  }
  // The mmap threshold first: setting either one fixes both in glibc (no more adapting).
  if (!set(M_MMAP_THRESHOLD, static_cast<int>(kHeapMmapThreshold)) ||
      !set(M_TRIM_THRESHOLD, static_cast<int>(kHeapTrimThreshold))) {
    p.kind = HeapPolicyKind::Unavailable;
    p.description = "the C library's own (its thresholds cannot be set here)";
    return p;
  }
  p.kind = HeapPolicyKind::Fixed;
  p.description = "fixed for the run (mmap threshold " + std::to_string(kHeapMmapThreshold >> 20) +
                  " MiB, trim threshold " + std::to_string(kHeapTrimThreshold >> 20) +
                  " MiB): an MPI library's temporary buffers stay in the heap between calls, "
                  "whatever ran before";
  return p;
}

const HeapPolicy& fix_heap_for_run() {
  remembered() =
      decide_heap_policy([](const char* name) { return std::getenv(name); },
                         [](int option, int value) { return mallopt(option, value) == 1; });
  return remembered();
}

const HeapPolicy& heap_policy() {
  return remembered();
}

}  // namespace mpiscope::core
