#include <fmt/format.h>

#include "suites/guidelines/guidelines.hpp"

namespace mpiscope::guidelines {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kHolds:
      return "holds";
    case Verdict::kViolated:
      return "VIOLATED";
    default:
      return "cannot tell";
  }
}

PointVerdict verdict(const core::Measurement& collective, const core::Measurement& mock_up,
                     double tolerance) {
  PointVerdict v;
  v.bytes = collective.bytes;
  if (!collective.measured || !mock_up.measured || !collective.accurate || !mock_up.accurate) {
    v.why = "a side was not measured with the accurate meter";
    return v;
  }
  const auto& c = collective.accurate->summary_us;
  const auto& m = mock_up.accurate->summary_us;
  v.collective_us = c.median;
  v.mock_up_us = m.median;
  v.factor = m.median > 0 ? c.median / m.median : 0;
  if (!c.median_ci.available || !m.median_ci.available || !(m.median > 0)) {
    v.why = "too few repetitions for a 95 % interval of a median";
    return v;
  }
  const double stretch = 1 + tolerance;
  if (c.median_ci.lower > m.median_ci.upper * stretch) {
    v.verdict = Verdict::kViolated;
  } else if (c.median_ci.upper <= m.median_ci.lower * stretch) {
    v.verdict = Verdict::kHolds;
  } else {
    v.why = fmt::format("the intervals [{:.3g}, {:.3g}] and [{:.3g}, {:.3g}] us overlap at +{:g} %",
                        c.median_ci.lower, c.median_ci.upper, m.median_ci.lower, m.median_ci.upper,
                        100 * tolerance);
  }
  return v;
}

}  // namespace mpiscope::guidelines
