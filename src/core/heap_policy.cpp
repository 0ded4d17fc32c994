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
                              const std::function<bool(int option, int value)>& set,
                              HeapPolicyKind suite_default) {
  HeapPolicy p;
  const char* choice = getenv("MPISCOPE_HEAP");
  const bool chose_system = choice && std::strcmp(choice, "system") == 0;
  const bool chose_fixed = choice && std::strcmp(choice, "fixed") == 0;
  // Read before MPI starts, on every rank alike: a value not understood is said in the setting
  // (every output carries it) rather than stopping the run.
  const std::string not_understood =
      choice && !chose_system && !chose_fixed
          ? std::string(" [MPISCOPE_HEAP=") + choice + " not understood: system or fixed]"
          : "";
  // An explicit choice first, then the user's own thresholds, then the suite's default.
  const HeapPolicyKind kind = chose_system                  ? HeapPolicyKind::System
                              : chose_fixed                 ? HeapPolicyKind::Fixed
                              : user_set_thresholds(getenv) ? HeapPolicyKind::Environment
                                                            : suite_default;
  if (kind == HeapPolicyKind::System) {
    p.kind = kind;
    p.description =
        std::string("the C library's adaptive thresholds (") +
        (chose_system ? "MPISCOPE_HEAP=system"
                      : "as this suite's own programs run; MPISCOPE_HEAP=fixed fixes them") +
        "): an MPI library's temporary buffers may be faulted in again at every call, depending "
        "on what ran before" +
        not_understood;
    return p;
  }
  if (kind == HeapPolicyKind::Environment) {
    p.kind = kind;
    p.description =
        "thresholds as the environment sets them (GLIBC_TUNABLES or MALLOC_*_)" + not_understood;
    return p;
  }
  // The mmap threshold first: setting either one fixes both in glibc (no more adapting).
  if (!set(M_MMAP_THRESHOLD, static_cast<int>(kHeapMmapThreshold)) ||
      !set(M_TRIM_THRESHOLD, static_cast<int>(kHeapTrimThreshold))) {
    p.kind = HeapPolicyKind::Unavailable;
    p.description = "the C library's own (its thresholds cannot be set here)" + not_understood;
    return p;
  }
  p.kind = HeapPolicyKind::Fixed;
  p.description = "fixed for the run (mmap threshold " + std::to_string(kHeapMmapThreshold >> 20) +
                  " MiB, trim threshold " + std::to_string(kHeapTrimThreshold >> 20) +
                  " MiB): an MPI library's temporary buffers stay in the heap between calls, "
                  "whatever ran before" +
                  not_understood;
  return p;
}

const HeapPolicy& fix_heap_for_run(HeapPolicyKind suite_default) {
  remembered() = decide_heap_policy(
      [](const char* name) { return std::getenv(name); },
      [](int option, int value) { return mallopt(option, value) == 1; }, suite_default);
  return remembered();
}

const HeapPolicy& heap_policy() {
  return remembered();
}

}  // namespace mpiscope::core
