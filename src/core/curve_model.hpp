// A model of a point-to-point curve (issue 32 item 2): Hockney's t(X) = alpha + X / beta, fitted
// piecewise, one line per protocol region (eager and rendezvous, the cache and shared-memory
// regimes), the breakpoints found from the data. It answers "what are this machine's latency and
// bandwidth, and where does the library switch protocol", which the tables leave to the reader.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace mpiscope::core {

struct CurvePoint {
  double bytes = 0;
  double time_us = 0;
};

// Least squares on relative errors (every length counts alike, whatever its time), each region
// of at least kMinRegionPoints lengths (a factor of 8 in powers of two), at most max_regions
// regions. The number of regions is the one with the smallest Bayesian information criterion,
// errors below a 5 % noise floor counting as the floor: a region must explain more than a loaded
// machine's noise (5 % noise on one line stays one region). nullopt: fewer than
// 2 * kMinRegionPoints usable points (positive times, distinct lengths).
inline constexpr int kMinRegionPoints = 4;
std::optional<CurveModel> fit_piecewise_hockney(std::vector<CurvePoint> points,
                                                int max_regions = 4);

// The model of a finished table, when it is a point-to-point curve (single or parallel transfer,
// sized, not windowed, not Multi) with enough measured lengths; nullopt otherwise.
std::optional<CurveModel> model_of(const BenchmarkRun& run);

// The line every text output puts before the models it prints.
inline constexpr const char* kModelHeading =
    "Model (mpiscope): t(X) = alpha + X/beta per protocol region, regions found from the data; "
    "beta in MB/s = 10^6 bytes/s";

// "X = 0 … 2048 bytes: alpha 0.45 us, beta 3120 MB/s, error 2.0 %": one line per region, then
// one per switch ("switch between 2048 and 4096 bytes: t 1.45 -> 3.83 us"), for the text outputs.
std::vector<std::string> model_lines(const CurveModel& model, const BenchmarkRun& run);

// The model as the JSON output's "model" object (text), and back (the results database keeps
// the same text); model_from_json throws on text that is not one.
std::string model_to_json(const CurveModel& model);
CurveModel model_from_json(const std::string& text);

}  // namespace mpiscope::core
