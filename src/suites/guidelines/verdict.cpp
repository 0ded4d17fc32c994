#include <fmt/format.h>

#include "core/convergence.hpp"
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
  const auto c = core::median_estimate(collective);
  const auto m = core::median_estimate(mock_up);
  if (!c || !m || !(m->median > 0)) {
    v.why =
        "a side has no interval of its median (not measured, too few repetitions, or "
        "not with the accurate meter)";
    return v;
  }
  v.collective_us = c->median;
  v.mock_up_us = m->median;
  v.factor = c->median / m->median;
  const double stretch = 1 + tolerance;
  if (c->low > m->high * stretch) {
    v.verdict = Verdict::kViolated;
  } else if (c->high <= m->low * stretch) {
    v.verdict = Verdict::kHolds;
  } else {
    v.why = fmt::format("the intervals [{:.3g}, {:.3g}] and [{:.3g}, {:.3g}] us overlap at +{:g} %",
                        c->low, c->high, m->low, m->high, 100 * tolerance);
  }
  return v;
}

}  // namespace mpiscope::guidelines
