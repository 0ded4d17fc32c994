// When to stop repeating a measurement in accurate mode: as soon as the 95 % confidence interval
// of the median is narrow enough relative to the median, but never before a minimum count and
// never beyond a maximum count or a time budget per point. Quiet points finish after a few dozen
// repetitions; noisy ones get the repetitions they need (Hoefler & Belli's rule 5 made a loop).
#pragma once

#include <string>
#include <vector>

namespace mpiscope::core {

struct StoppingRule {
  double target_relative_half_width = 0.02;  // --target-ci, as a fraction of the median
  double confidence = 0.95;
  int min_repetitions = 20;      // valid ones
  int max_repetitions = 100000;  // attempted ones
  double budget_s = 1.0;         // per point, the timed repetitions' wall time
};

enum class StopReason { Continue, Converged, MaxRepetitions, Budget };
const char* stop_reason_name(StopReason r);

// `valid_sorted`: the valid samples so far, ascending; `attempted` counts invalid ones too.
// `sample_resolution_s`: the smallest step a sample can show (the timer's, per repetition); the
// median is known no better than half of it, however many samples tie (an interval of width 0
// from tied ticks met any target).
StopReason stop_reason(const StoppingRule& rule, const std::vector<double>& valid_sorted,
                       int attempted, double elapsed_s, double sample_resolution_s = 0);

// How many repetitions the next batch should run: enough to reach min_repetitions, then half
// as many again as so far (fewer collective decisions as the point grows), within the maximum
// and what the remaining budget allows at `seconds_per_repetition`.
int next_batch_size(const StoppingRule& rule, int valid, int attempted, double elapsed_s,
                    double seconds_per_repetition);

}  // namespace mpiscope::core
