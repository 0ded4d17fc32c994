// IMB-IO's overlap figure (guide 4.2.5.2): 100 · (t_pure + t_CPU − t_ovrl) / min(t_pure, t_CPU),
// printed clamped to 0–100 % as Intel's IMB does; a raw value outside that range by more than the
// three times' plausible error (timer and load) marks the row as doubtful.
#pragma once

namespace mpiscope::core {

struct OverlapFigure {
  double raw_percent = 0;    // the formula's value
  double percent = 0;        // raw_percent clamped to [0, 100]: what the table prints
  double error_percent = 0;  // error_us in percent of min(t_pure, t_CPU)
  bool doubtful = false;     // raw_percent < -error_percent or > 100 + error_percent
};

// error_us: the plausible error of t_pure + t_CPU − t_ovrl. All zero when min(t_pure, t_CPU) ≤ 0.
OverlapFigure overlap_figure(double t_pure_us, double t_cpu_us, double t_ovrl_us, double error_us);

// The plausible error of t_pure + t_CPU − t_ovrl: each time may be off by the relative spread of
// the CPU_Exploit calls seen at the point (the load changed the CPU's speed by that much), plus the
// timer's resolution at both ends of each of the three intervals.
double overlap_error_us(double t_pure_us, double t_cpu_us, double t_ovrl_us, double cpu_spread,
                        double timer_resolution_us);

}  // namespace mpiscope::core
