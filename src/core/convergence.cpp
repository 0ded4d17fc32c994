#include "core/convergence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace mpiscope::core {

namespace {

// The reasons whose figure bounds nothing (unconverged_range), as accurate_reason words them.
constexpr std::string_view kNegativeMedian = "a negative median";
constexpr std::string_view kAtTheTimer = "not above the timer's resolution";

std::string stopped_by(const AccurateStats& a) {
  if (a.stop_reason == "time-budget") return "the time budget (--budget)";
  if (a.stop_reason == "max-repetitions") return "the maximum count (--max-reps)";
  return "'" + a.stop_reason + "'";
}

// The accurate statistics' verdict; every reason, joined (none contains "; ", the separator of
// a row's notes, so that the reason can be read back from a stored note).
std::optional<std::string> accurate_reason(const AccurateStats& a) {
  std::vector<std::string> why;
  const auto& s = a.summary_us;
  if (a.stop_reason != "converged") {
    if (a.min_repetitions > 0 && a.valid < a.min_repetitions)
      why.push_back(fmt::format("stopped by {} after {} valid repetitions of the {} required",
                                stopped_by(a), a.valid, a.min_repetitions));
    else if (!s.median_ci.available)
      why.push_back(fmt::format("stopped by {} with too few valid repetitions ({}) for an interval",
                                stopped_by(a), a.valid));
    else
      why.push_back(
          fmt::format("stopped by {} with the 95% interval of the median at +-{:.3g}%{}",
                      stopped_by(a), 100 * s.median_ci.relative_half_width(s.median),
                      a.target_relative_half_width > 0
                          ? fmt::format(" (target +-{:.3g}%)", 100 * a.target_relative_half_width)
                          : std::string()));
  } else if (a.min_repetitions > 0 && a.valid < a.min_repetitions) {
    why.push_back(
        fmt::format("{} valid repetitions of the {} required", a.valid, a.min_repetitions));
  }
  if (a.level_shift.detected)
    why.push_back(fmt::format(
        "the machine changed speed during the point (median {:.2f} usec over the first half of "
        "the samples, {:.2f} usec over the second)",
        a.level_shift.first_median, a.level_shift.second_median));
  // A time at or below zero is no measurement of an MPI call, which always takes some time; a
  // sample (repetitions_per_sample back to back) shorter than the timer resolves is the timer.
  if (s.median < 0)
    why.push_back(fmt::format("{} ({:.3g} usec)", kNegativeMedian, s.median));
  else if (s.median * a.repetitions_per_sample <= a.timer_floor_us)
    why.push_back(fmt::format("a median sample of {:.3g} usec, {} of {:.3g} usec",
                              s.median * a.repetitions_per_sample, kAtTheTimer, a.timer_floor_us));
  if (why.empty()) return std::nullopt;
  std::string text;
  for (const auto& w : why) text += (text.empty() ? "" : ", and ") + w;
  return text;
}

// The reason a stored note gives after kNotConvergedPrefix, up to the next note.
std::optional<std::string> reason_in_note(const std::string& note) {
  const auto at = note.find(kNotConvergedPrefix);
  if (at == std::string::npos) return std::nullopt;
  const auto from = at + kNotConvergedPrefix.size();
  const auto end = note.find("; ", from);
  return note.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

}  // namespace

std::optional<std::string> not_converged_reason(const Measurement& m) {
  if (!m.measured) return std::nullopt;
  if (m.accurate)
    if (auto r = accurate_reason(*m.accurate)) return r;
  // A verdict recorded with the row stands: statistics kept in a file (SKaMPI's output file)
  // lack some of what decided it, such as a level shift.
  if (const auto* c = m.value("converged"); c && c->value == 0) {
    if (auto r = reason_in_note(m.note)) return r;
    return m.note.empty() ? std::string("recorded as not converged") : m.note;
  }
  if (m.accurate) return std::nullopt;
  if (m.headline_us() < 0) return fmt::format("a negative time ({:.3g} usec)", m.headline_us());
  return std::nullopt;
}

std::optional<MedianEstimate> median_estimate(const Measurement& m) {
  if (!m.measured) return std::nullopt;
  if (m.accurate) {
    const auto& s = m.accurate->summary_us;
    if (!s.median_ci.available) return std::nullopt;
    return MedianEstimate{s.median, s.median_ci.lower, s.median_ci.upper};
  }
  const auto* median = m.value("median_us");
  const auto* low = m.value("ci95_low_us");
  const auto* high = m.value("ci95_high_us");
  if (!median || !low || !high) return std::nullopt;
  return MedianEstimate{median->value, low->value, high->value};
}

std::optional<MedianEstimate> unconverged_range(const Measurement& m) {
  if (const auto why = not_converged_reason(m);
      why && (why->find(kNegativeMedian) != std::string::npos ||
              why->find(kAtTheTimer) != std::string::npos))
    return std::nullopt;
  auto range = median_estimate(m);
  if (!range || !(range->low > 0) || !(range->high >= range->low)) return std::nullopt;
  double shift = 1;  // second half's median over the first's
  if (m.accurate && m.accurate->level_shift.detected && m.accurate->level_shift.first_median > 0)
    shift = m.accurate->level_shift.second_median / m.accurate->level_shift.first_median;
  else if (const auto* recorded = m.value("level_shift_ratio"))
    shift = recorded->value;
  if (!(shift > 0) || !std::isfinite(shift)) return std::nullopt;
  const double factor = std::max(shift, 1 / shift);
  range->low = std::min(range->low, range->median / factor);
  range->high = std::max(range->high, range->median * factor);
  return range;
}

}  // namespace mpiscope::core
