// The overlap figure of non-blocking benchmarks: 100 · (t_pure + t_CPU − t_ovrl) / base, printed
// clamped to 0–100 % as Intel's IMB does; base is min(t_pure, t_CPU) for IMB-IO (guide 4.2.5.2),
// max(t_pure, t_CPU) for IMB-NBC (current IMB's IMB_output.c) and t_pure for OSU (its
// 100 − 100 · (overall − compute) / pure, osu_util_mpi.c, never above 100 as overall ≥ compute).
// A raw value outside 0–100 by more than the three times' plausible error (timer and load) marks
// the row as doubtful.
#pragma once

namespace mpiscope::core {

enum class OverlapBase { Smaller, Larger, Pure };  // min(t_pure, t_CPU), max(…) or t_pure

struct OverlapFigure {
  double raw_percent = 0;    // the formula's value
  double percent = 0;        // raw_percent clamped to [0, 100]: what the table prints
  double error_percent = 0;  // error_us in percent of the base
  bool doubtful = false;     // raw_percent < -error_percent or > 100 + error_percent
};

// error_us: the plausible error of t_pure + t_CPU − t_ovrl. All zero when the base is ≤ 0.
OverlapFigure overlap_figure(double t_pure_us, double t_cpu_us, double t_ovrl_us, double error_us,
                             OverlapBase base = OverlapBase::Smaller);

// The plausible error of t_pure + t_CPU − t_ovrl: each time may be off by the relative spread of
// the CPU_Exploit calls seen at the point (the load changed the CPU's speed by that much), plus the
// timer's resolution at both ends of each of the three intervals.
double overlap_error_us(double t_pure_us, double t_cpu_us, double t_ovrl_us, double cpu_spread,
                        double timer_resolution_us);

}  // namespace mpiscope::core
