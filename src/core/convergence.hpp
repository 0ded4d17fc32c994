// Whether a row's figure is a converged one. Accurate mode repeats a point until its stopping rule
// is met; a point stopped by its budget or its maximum count with the interval still wider than
// the target, one whose machine changed speed half-way, or one whose median is below zero or
// below what the timer resolves, has a figure all the same, and nothing may pass it off as
// converged. This is the one place that decides; fill_accurate_row() writes the decision into
// the row's note and every output (text, JSON, CSV, database, report) and compare read it here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace mpiscope::core {

// What a note says before the reason: "not converged: <reason>".
inline constexpr std::string_view kNotConvergedPrefix = "not converged: ";

// Why the row's figure is not a converged one, or nullopt when it is (or when there is nothing to
// judge: a row not measured, or a classic row with a positive time). Decided from the accurate
// statistics when the row carries them (a live run, a SKaMPI output file); from the recorded
// value `converged` (0: not; the reason from the note) whenever the row has one, as rows read
// back from the database, imported or kept in a SKaMPI output file do; and a negative time is
// never a converged figure, whatever the method.
std::optional<std::string> not_converged_reason(const Measurement& m);

// A row's median and its 95 % interval (accurate mode): from the accurate statistics of a live
// row, or from the values a row read back from the database or a file carries (`median_us`,
// `ci95_low_us`, `ci95_high_us`); nullopt when it has no interval.
struct MedianEstimate {
  double median = 0, low = 0, high = 0;
};
std::optional<MedianEstimate> median_estimate(const Measurement& m);

// Where the figure of a row that did not converge could lie, from what its run recorded: the 95 %
// interval of its median, widened by a change of speed within the point (the median lies between
// the two halves' medians, which differ by the recorded factor). nullopt when it bounds nothing:
// a median below zero or at the timer's resolution, or no interval recorded. A converged row's
// range is its median's interval too; compare asks only of the rows that did not converge.
std::optional<MedianEstimate> unconverged_range(const Measurement& m);

}  // namespace mpiscope::core
