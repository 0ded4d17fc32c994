// The pattern instances of Figure 2: which pattern times a `Type`, what it calls, and what it
// may vary. Pure data, so that the configuration parser can check a suite before anything runs;
// the kernels themselves are in patterns.cpp.
#pragma once
#include <string>
#include <vector>

#include "suites/skampi/config.hpp"

namespace mpiscope::skampi {

enum class Pattern { kPingPong, kCollective, kMasterWorker, kSimple };
const char* pattern_name(Pattern p);

struct InstanceInfo {
  int type;
  Pattern pattern;
  const char* operation;   // as in Figure 2
  bool reduction = false;  // needs a built-in base type (a predefined reduction operation)
  bool sized = true;       // false: the message length plays no role (Barrier, Comm_split, simple)
};

const std::vector<InstanceInfo>& all_instances();
// nullptr when the type does not exist.
const InstanceInfo* find_instance(int type);

// Whether a pattern can vary along `v` (section 3.1).
bool variation_allowed(Pattern p, Variation v);

// Figure 2's types that a run treats apart from the others.
constexpr int kCommSplitType = 22;     // MPI_Comm_split: see kMaxCommSplitRepetitions
constexpr int kBufferAttachType = 28;  // MPI_Buffer_attach: see accurate_unavailable
constexpr int kMemcpyType = 23;        // memcpy: a collective instance without communication

// Whether the instance's time on `nprocs` processes includes a message from another process, so
// that it cannot take no time (time_is_a_figure): ping-pong and master-worker, and collectives
// of two processes or more except memcpy; not the simple pattern's local calls.
bool waits_for_another_process(const InstanceInfo& instance, int nprocs);

// The base type of a suite's messages. Reductions need a type a predefined operation accepts:
// MPI_CHAR is not one, so they reduce MPI_SIGNED_CHAR (the same size) instead.
BaseType effective_base(const Config& c, const SuiteSpec& s);
// Message lengths are whole multiples of this: Multiple_of and the base type's size.
long length_unit(long multiple_of, long base_size);
// The processes that take part at argument `argument` of suite `s` in a job of `world`.
int participants(const InstanceInfo& instance, const SuiteSpec& s, long argument, int world);

}  // namespace mpiscope::skampi
