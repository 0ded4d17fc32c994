// A linear model of one rank's clock against the reference clock (rank 0 of the communicator):
// global = local + offset + drift · local. Fitted by least squares to offset observations taken
// by ping-pong (the one with the smallest round trip of each round), and refitted as new rounds
// arrive, so that drift is estimated over a growing baseline (Hunold & Carpen-Amarie's HCA, and
// SKaMPI before it, in a simple form).
#pragma once

#include <cstddef>
#include <vector>

namespace mpiscope::core {

class ClockModel {
 public:
  struct Observation {
    double local = 0;   // this rank's time at the middle of the exchange
    double offset = 0;  // reference time minus local time at that moment
  };

  // Keeps the observations of the last `history_s` seconds of local time.
  explicit ClockModel(double history_s = 60) : history_s_(history_s) {}
  static constexpr double kMinDriftBaseline = 1.0;  // seconds of observations before a slope

  void add(Observation o);
  void add(double local_send, double reference, double local_receive) {
    add({(local_send + local_receive) / 2, reference - (local_send + local_receive) / 2});
  }
  bool fitted() const { return !observations_.empty(); }
  double offset() const { return offset_; }
  double drift() const { return drift_; }
  double to_global(double local) const { return local + offset_ + drift_ * local; }
  double to_local(double global) const { return (global - offset_) / (1 + drift_); }
  // Local time of the newest observation: the model is stale when it is old.
  double last_observation() const { return observations_.empty() ? 0 : observations_.back().local; }
  std::size_t size() const { return observations_.size(); }

 private:
  void fit();
  double history_s_;
  std::vector<Observation> observations_;
  double offset_ = 0, drift_ = 0;
};

}  // namespace mpiscope::core
