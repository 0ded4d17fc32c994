#include "core/overlap.hpp"

#include <algorithm>

namespace mpiscope::core {

OverlapFigure overlap_figure(double t_pure_us, double t_cpu_us, double t_ovrl_us, double error_us,
                             OverlapBase base) {
  OverlapFigure f;
  const double divisor = base == OverlapBase::Smaller  ? std::min(t_pure_us, t_cpu_us)
                         : base == OverlapBase::Larger ? std::max(t_pure_us, t_cpu_us)
                                                       : t_pure_us;
  if (!(divisor > 0)) return f;
  f.raw_percent = 100.0 * (t_pure_us + t_cpu_us - t_ovrl_us) / divisor;
  f.percent = std::clamp(f.raw_percent, 0.0, 100.0);
  f.error_percent = 100.0 * std::max(error_us, 0.0) / divisor;
  f.doubtful = f.raw_percent < -f.error_percent || f.raw_percent > 100.0 + f.error_percent;
  return f;
}

double overlap_error_us(double t_pure_us, double t_cpu_us, double t_ovrl_us, double cpu_spread,
                        double timer_resolution_us) {
  return std::max(cpu_spread, 0.0) * (t_pure_us + t_cpu_us + t_ovrl_us) +
         3 * 2 * timer_resolution_us;
}

}  // namespace mpiscope::core
