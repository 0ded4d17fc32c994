// SKaMPI's measurement mechanisms (paper section 4) as pure functions over callbacks, so that
// they can be tested on synthetic samples and curves: the standard-error stopping rule with
// Cut_Quantile (4.1) and the adaptive refinement of the length axis (4.2, Figure 3).
// (Kept in the suite for now; the core gets its own stopping rule separately.)
#pragma once
#include <cstdint>
#include <functional>
#include <set>
#include <vector>

namespace mpiscope::skampi {

struct SampleStats {
  int n = 0;                  // samples after the cut
  double mean = 0;            // x̄
  double sigma = 0;           // sqrt(sum (x_i - x̄)^2 / n)
  double standard_error = 0;  // sigma / sqrt(n)
  double min = 0, max = 0;    // of the kept samples
};

// The samples of one point as they arrive, with Cut_Quantile's ⌊q·n⌋ fastest and ⌊q·n⌋ slowest
// set apart: adding a sample costs O(log n), so that the stopping rule, asked after every sample,
// does not sort them all again (a point of 40,000 samples took over 100 s that way).
class CutSamples {
 public:
  explicit CutSamples(double cut_quantile) : q_(cut_quantile) {}
  void add(double x);
  int count() const { return n_; }
  double total() const { return total_; }  // of all samples, in the order they came
  SampleStats stats() const;               // of the kept samples

 private:
  void keep(double x, int sign);  // into or out of the kept samples' sums
  void rebalance();
  double q_;
  int n_ = 0;
  double total_ = 0;
  std::multiset<double> fastest_, kept_, slowest_;
  // Sums over kept_ of (x - shift_) and its square: shifted by the first sample, so that the
  // variance of samples far from zero keeps its digits.
  double shift_ = 0, sum_ = 0, sum_sq_ = 0;
};

SampleStats stats_after_cut(const std::vector<double>& samples, double q);

struct StoppingRule {
  int min_repetition = 8, max_repetition = 32;
  double epsilon = 0.05;  // Standard_error: stop when σ_x̄ / x̄ < ε
  double cut_quantile = 0.1;
  double wtick = 1e-6;    // seconds; all repetitions together last at least wtick / ε
  double time_limit = 0;  // seconds of wall time per point (Time_Measurement); 0: none
};

// Section 4.1's criterion: at least Min_Repetition samples adding up to at least wtick/ε, and
// the relative standard error of the cut samples below ε.
bool standard_error_reached(const CutSamples& samples, const StoppingRule& rule);

// Whether repetition may stop: at Max_Repetition or once the point has taken time_limit seconds
// of wall time (its samples, barriers and decisions; before Min_Repetition too), otherwise when
// the standard error is reached.
bool may_stop(const CutSamples& samples, double elapsed_s, const StoppingRule& rule);

struct PointMeasurement {
  std::vector<double> samples;  // every repetition, in order (seconds)
  SampleStats stats;            // after the cut
  bool converged = false;       // standard_error_reached when it stopped
};

// Takes samples until may_stop. `agree` turns the timing process's decision into everyone's
// (a broadcast in the patterns; identity in tests) and is called after every sample.
PointMeasurement measure_point(const std::function<double()>& sample, const StoppingRule& rule,
                               const std::function<bool(bool)>& agree = nullptr);

// Whether a point's time t (in the unit of `resolution`) is a figure at all: never below zero, and
// not below the timer's resolution for an operation that cannot take no time (one that waits for
// another process). A time that is not is never converged, and refinement does not divide by it.
bool time_is_a_figure(double t, double resolution, bool takes_time);

// ---- Adaptive refinement of the length axis (section 4.2, Figure 3) ----

struct CurvePoint {
  long m;
  double t;
  bool usable = true;  // time_is_a_figure: error estimates may use (and divide by) t
};

// The initial grid of a suite: `size` lengths, the k-th at(k), nondecreasing in k. It is computed
// a length at a time, never built whole: a Stepwidth just above 1 makes some 10^11 lengths before
// Max_Steps thins them. Rounding to the multiple can repeat a length; a repeat is measured once.
struct Grid {
  std::uint64_t size = 0;
  std::function<long(std::uint64_t)> at;
  std::vector<long> lengths() const;  // every length once, in order (for grids small enough)
};

// m_min·γ^k for all k with m_min·γ^k < m_max, then m_max; every length rounded to a multiple of
// `multiple`. m_min = 0 measures 0 and then starts the geometric sequence at `multiple`.
Grid geometric_grid(long m_min, long m_max, double gamma, long multiple);
// m_min, m_min+step, … < m_max, then m_max (Scale = Fixed_linear).
Grid linear_grid(long m_min, long m_max, long step, long multiple);

// Max_Steps bounds every suite: a grid of more than max_points lengths is thinned to max_points
// of them spread evenly over it (by index), the first and the last kept; a smaller grid is
// returned as it is. Nothing is built: the thinned grid computes its lengths from the grid's.
Grid bounded_grid(const Grid& grid, int max_points);

// The error of not subdividing segment i (points[i], points[i+1]) of a curve sorted by m:
// min(|Δ1|/t_b, |Δ2|/t_c, (m_c − m_b)/m_b), where Δ1 is the error at b of the right
// neighbour segment extrapolated, Δ2 the error at c of the left one; a missing neighbour or
// m_b = 0 leaves its term out. Two points only: (m_c − m_b)/m_b. A term that needs a point whose
// time is not usable is left out too; when that leaves no term of the times, the error cannot be
// estimated: NaN (the width alone would split every segment near such points).
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
  bool out_of_time = false;        // Time_Suite ended the suite (the grid or the refinement)
};

// Measures the grid, then repeatedly splits the segment with the largest error at
// split_point until every error is below ε or max_points are measured (the priority queue of
// the paper, recomputed after every point because a new point changes its neighbours' errors).
// Segments whose error cannot be estimated are not split. `measure` returns the point (m, t,
// usable) measured at a length.
RefinementResult refine(const Grid& grid, const std::function<CurvePoint(long)>& measure,
                        const RefinementLimits& limits);

}  // namespace mpiscope::skampi
