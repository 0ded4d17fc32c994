#include "core/clock_model.hpp"

#include <algorithm>

namespace mpiscope::core {

void ClockModel::add(Observation o) {
  observations_.push_back(o);
  const double oldest = o.local - history_s_;
  observations_.erase(std::remove_if(observations_.begin(), observations_.end(),
                                     [&](const Observation& x) { return x.local < oldest; }),
                      observations_.end());
  fit();
}

void ClockModel::fit() {
  const auto n = static_cast<double>(observations_.size());
  double mean_t = 0, mean_o = 0;
  for (const auto& o : observations_) {
    mean_t += o.local / n;
    mean_o += o.offset / n;
  }
  double sxx = 0, sxy = 0;
  for (const auto& o : observations_) {
    sxx += (o.local - mean_t) * (o.local - mean_t);
    sxy += (o.local - mean_t) * (o.offset - mean_o);
  }
  // Over a short baseline the slope is jitter, not drift (1 us of jitter over 1 ms reads as a
  // drift of 1e-3, a thousand times a real clock's): model a constant offset until the
  // observations span a second.
  const double span = observations_.back().local - observations_.front().local;
  drift_ = span >= kMinDriftBaseline && sxx > 0 ? sxy / sxx : 0;
  offset_ = mean_o - drift_ * mean_t;
}

}  // namespace mpiscope::core
