// SKaMPI's measurement mechanisms (paper section 4) as pure functions over callbacks, so that
// they can be tested on synthetic samples and curves: the standard-error stopping rule with
// Cut_Quantile (4.1) and the adaptive refinement of the length axis (4.2, Figure 3).
// (Kept in the suite for now; the core gets its own stopping rule separately.)
#pragma once
#include <functional>
#include <vector>

namespace mpiscope::skampi {

// The samples without the floor(q*n) fastest and floor(q*n) slowest ones, sorted.
std::vector<double> cut_quantile(std::vector<double> samples, double q);

struct SampleStats {
  int n = 0;                  // samples after the cut
  double mean = 0;            // x̄
  double sigma = 0;           // sqrt(sum (x_i - x̄)^2 / n)
  double standard_error = 0;  // sigma / sqrt(n)
  double min = 0, max = 0;    // of the kept samples
};
SampleStats stats_after_cut(const std::vector<double>& samples, double q);

struct StoppingRule {
  int min_repetition = 8, max_repetition = 32;
  double epsilon = 0.05;  // Standard_error: stop when σ_x̄ / x̄ < ε
  double cut_quantile = 0.1;
  double wtick = 1e-6;    // seconds; all repetitions together last at least wtick / ε
  double time_limit = 0;  // seconds per point (Time_Measurement); 0: none
};

// Whether repetition may stop after `samples` (seconds): at Max_Repetition always; before
// Min_Repetition never; otherwise when the total time reaches wtick/ε and the relative standard
// error of the cut samples is below ε, or when the time limit is spent.
bool may_stop(const std::vector<double>& samples, const StoppingRule& rule);

struct PointMeasurement {
  std::vector<double> samples;  // every repetition, in order (seconds)
  SampleStats stats;            // after the cut
  bool converged = false;       // the relative standard error reached ε
};

// Takes samples until may_stop. `agree` turns the timing process's decision into everyone's
// (a broadcast in the patterns; identity in tests) and is called after every sample.
PointMeasurement measure_point(const std::function<double()>& sample, const StoppingRule& rule,
                               const std::function<bool(bool)>& agree = nullptr);

// ---- Adaptive refinement of the length axis (section 4.2, Figure 3) ----

struct CurvePoint {
  long m;
  double t;
};

// The initial grid: m_min·γ^k for all k with m_min·γ^k < m_max, then m_max; every length
// rounded to a multiple of `multiple` and duplicates dropped. m_min = 0 measures 0 and then
// starts the geometric sequence at `multiple`.
std::vector<long> geometric_grid(long m_min, long m_max, double gamma, long multiple);
// m_min, m_min+step, … < m_max, then m_max (Scale = Fixed_linear).
std::vector<long> linear_grid(long m_min, long m_max, long step, long multiple);

// Max_Steps bounds every suite: a grid of more than max_points points is thinned to max_points
// of them spread evenly over it (by index), the first and the last kept; a smaller grid is
// returned as it is.
std::vector<long> bounded_grid(const std::vector<long>& grid, int max_points);

// The error of not subdividing segment i (points[i], points[i+1]) of a curve sorted by m:
// min(|Δ1|/t_b, |Δ2|/t_c, (m_c − m_b)/m_b), where Δ1 is the error at b of the right
// neighbour segment extrapolated, Δ2 the error at c of the left one; a missing neighbour or
// m_b = 0 leaves its term out. Two points only: (m_c − m_b)/m_b.
double segment_error(const std::vector<CurvePoint>& points, std::size_t i);

// Where a segment is split: sqrt(m_b·m_c) (the midpoint when m_b = 0), rounded to `multiple`;
// 0 when no new multiple lies strictly inside or the segment is narrower than min_distance.
long split_point(long m_b, long m_c, long multiple, long min_distance);

struct RefinementLimits {
  double epsilon = 0.05;
  int max_points = 64;  // Max_Steps: measured points in all (the grid is always measured)
  long multiple = 1;
  long min_distance = 1;  // segments narrower than this are never split
  long max_distance = 0;  // > 0: wider segments are split even below ε (after those above)
  std::function<bool()> out_of_time;  // Time_Suite; may be empty
};

struct RefinementResult {
  std::vector<CurvePoint> points;  // sorted by m
  std::vector<long> order;         // lengths in the order they were measured
  double max_error = 0;            // of the remaining segments when refinement stopped
  bool converged = false;          // max_error < ε
};

// Measures the grid, then repeatedly splits the segment with the largest error at
// split_point until every error is below ε or max_points are measured (the priority queue of
// the paper, recomputed after every point because a new point changes its neighbours' errors).
RefinementResult refine(const std::vector<long>& grid, const std::function<double(long)>& measure,
                        const RefinementLimits& limits);

}  // namespace mpiscope::skampi
