// `mpiscope guidelines`: self-consistent performance guidelines (Träff, Gropp and Thakur; Hunold's
// PGMPI and ReproMPI): an MPI collective should not be slower than the same operation built from
// other MPI calls on the same communicator, its mock-up. Each guideline is a pair of engine
// benchmarks, both timed with the accurate meter at the same lengths; verdict() rules on a pair of
// rows from their medians' 95 % intervals.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/benchmark.hpp"
#include "core/result.hpp"

namespace mpiscope::guidelines {

struct Guideline {
  std::string collective;  // the benchmark named so in benchmarks()
  std::string mock_up;     // likewise
  std::string name() const { return collective + " <= " + mock_up; }
};

// Every benchmark a guideline names, once (Allreduce is one guideline's collective and another's
// mock-up), and the guidelines in the order they are printed.
const std::vector<core::Benchmark>& benchmarks();
const std::vector<Guideline>& all_guidelines();

enum class Verdict { kHolds, kViolated, kCannotTell };
const char* verdict_name(Verdict v);

struct PointVerdict {
  std::size_t bytes = 0;
  double collective_us = 0, mock_up_us = 0;  // the medians
  double factor = 0;                         // collective / mock-up
  Verdict verdict = Verdict::kCannotTell;
  std::string why;  // for kCannotTell
};

// Violated: the collective's 95 % interval of the median lies above the mock-up's stretched by
// the tolerance (its lower bound > the mock-up's upper bound x (1 + tolerance)), so that the
// collective is slower than its mock-up by more than the tolerance at that confidence. Holds: its
// upper bound is at most the mock-up's lower bound x (1 + tolerance). Else, or without both
// intervals, cannot tell. Live rows and rows read back from the database alike
// (core::median_estimate).
PointVerdict verdict(const core::Measurement& collective, const core::Measurement& mock_up,
                     double tolerance);

}  // namespace mpiscope::guidelines
