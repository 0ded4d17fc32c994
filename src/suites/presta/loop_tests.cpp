// allred and globalop: collective operations inside application-like loops, every rank of
// MPI_COMM_WORLD taking part. In accurate mode a loop is one repetition (measure.hpp).
#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <optional>
#include <tuple>

#include "core/mpi.hpp"
#include "core/stats.hpp"
#include "suites/presta/measure.hpp"
#include "suites/presta/tests.hpp"

namespace mpiscope::presta {

namespace {

// The buffers of the collectives; the compute phase reads the last result, so that operations
// and computation depend on each other as in an application.
struct Buffers {
  double factors[kAllreduceDoubles] = {0.5, 0.5, 0.5, 0.5};
  double send[kAllreduceDoubles] = {1, 1, 1, 1};
  double recv[kAllreduceDoubles] = {0.25, 0.25, 0.25, 0.25};
  ComputePhase compute(int iterations) const { return {iterations, factors, recv}; }
};

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}
// Population standard deviation, as PRESTA's getMeanAndStddev.
double stddev_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double var = 0;
  for (double x : v) var += (x - m) * (x - m);
  return std::sqrt(var / static_cast<double>(v.size()));
}

// One allred loop: -samples samples of -inner iterations; rank 0 returns the samples (longest
// rank each).
std::vector<double> allred_samples(RunContext& c, const char* what, Buffers& buf,
                                   const std::function<void()>& operation) {
  const Options& o = c.options;
  std::vector<double> samples;
  for (int s = 0; s < o.samples; ++s) {
    c.point_started(fmt::format("allred {} sample {}", what, s));
    const LoopSample t = time_loop_sample(MPI_COMM_WORLD, o.inner_iterations,
                                          buf.compute(o.compute_iterations), operation);
    c.point_finished();
    samples.push_back(t.max_s);
  }
  return samples;
}

core::Measurement samples_row(const RunContext& c, const std::vector<double>& samples_s,
                              int repetitions, std::size_t bytes) {
  core::Measurement m;
  m.bytes = bytes;
  m.repetitions = repetitions;
  m.measured = true;
  for (double s : samples_s) m.raw_samples_us.push_back(s * 1e6);
  m.samples_us = core::summarize(m.raw_samples_us);
  m.t_min_us = m.samples_us->min;
  m.t_max_us = m.samples_us->max;
  m.t_avg_us = m.samples_us->mean;
  const double mean = mean_of(samples_s), sd = stddev_of(samples_s);
  m.values = {{"mean_us", mean * 1e6, kMicroseconds},
              {"stddev_us", sd * 1e6, kMicroseconds},
              {"stddev_over_mean", mean > 0 ? sd / mean : 0, "ratio"},
              {"ticks_per_loop", mean / c.wtick_s, kTicks},
              {"samples", static_cast<double>(samples_s.size()), "samples"}};
  return m;
}

// Accurate mode: a row of the loop's repetitions (rank 0). The statistics PRESTA prints (mean,
// standard deviation) are over the valid repetitions; ticks_per_loop is the median's.
core::Measurement accurate_samples_row(const RunContext& c, const core::AccurateResult& r,
                                       std::size_t bytes) {
  core::Measurement m;
  m.bytes = bytes;
  if (!core::fill_accurate_row(r, true, m)) return m;
  const double mean = mean_of(r.samples), sd = stddev_of(r.samples);
  const double median = m.accurate->summary_us.median * 1e-6;
  m.values = {{"mean_us", mean * 1e6, kMicroseconds},
              {"stddev_us", sd * 1e6, kMicroseconds},
              {"stddev_over_mean", mean > 0 ? sd / mean : 0, "ratio"},
              {"ticks_per_loop", median / c.wtick_s, kTicks},
              {"samples", static_cast<double>(r.samples.size()), "samples"}};
  return m;
}

// The time of one compute phase, after one untimed (PRESTA's "Time between Allreduce").
double time_between_operations(const RunContext& c, Buffers& buf) {
  const Options& o = c.options;
  keep(compute_phase(o.compute_iterations, buf.factors, buf.recv));
  const double start = MPI_Wtime();
  keep(compute_phase(o.compute_iterations, buf.factors, buf.recv));
  return MPI_Wtime() - start;
}

core::BenchmarkRun allred_benchmark(const RunContext& c, const char* name, const char* loop) {
  const Options& o = c.options;
  core::BenchmarkRun b;
  b.name = name;
  b.family = "presta_allred";
  b.accurate = c.accurate.has_value();
  b.nprocs = mpi::world_size();
  b.sized = false;
  b.parameters = {{"test", "allred"},
                  {"loop", loop},
                  {"compute_iterations", std::to_string(o.compute_iterations)},
                  {"inner_iterations", std::to_string(o.inner_iterations)},
                  {"allreduce", "4 MPI_DOUBLE, MPI_SUM"}};
  return b;
}

void allreduce(Buffers& buf) {
  MPI_Allreduce(buf.send, buf.recv, kAllreduceDoubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

// allred in accurate mode: the compute-only loop and the compute+MPI_Allreduce loop, each a
// point of repetitions of one loop of -inner iterations; the figures from the medians.
int run_allred_accurately(RunContext& c) {
  const Options& o = c.options;
  Buffers buf;
  core::AccurateMeter meter(MPI_COMM_WORLD, *c.accurate);
  auto measure = [&](const char* what, const std::function<void()>& operation) {
    meter.new_table();
    c.point_started(fmt::format("allred {}", what));
    auto r = measure_loop_accurately(meter, o.inner_iterations, buf.compute(o.compute_iterations),
                                     operation);
    c.point_finished();
    return r;
  };
  const auto compute_only = measure("compute loop", [] {});
  const auto with_allreduce = measure("compute+Allreduce loop", [&] { allreduce(buf); });
  const double between_s = time_between_operations(c, buf);
  if (!c.root) return 0;

  const std::size_t bytes = kAllreduceDoubles * sizeof(double);
  bool all = true;
  for (const auto& [name, loop, r] :
       {std::tuple{"Compute loop", "compute", &compute_only},
        std::tuple{"Compute+Allreduce loop", "compute+MPI_Allreduce", &with_allreduce}}) {
    core::BenchmarkRun b = allred_benchmark(c, name, loop);
    c.out.benchmark_started(b);
    b.rows.push_back(accurate_samples_row(c, *r, bytes));
    all &= b.rows.back().measured;
    c.out.row(b, b.rows.back());
    c.out.benchmark_finished(b);
  }
  c.out.summary({"wtick_us", c.wtick_s * 1e6, kMicroseconds});
  c.out.summary({"time_between_allreduce_us", between_s * 1e6, kMicroseconds});
  if (!all) return 1;
  const double compute_median = compute_only.seconds, op_median = with_allreduce.seconds;
  c.out.summary({"median_compute_loop_us", compute_median * 1e6, kMicroseconds});
  c.out.summary({"ticks_per_compute_loop", compute_median / c.wtick_s, kTicks});
  c.out.summary({"median_op_loop_us", op_median * 1e6, kMicroseconds});
  c.out.summary({"ticks_per_op_loop", op_median / c.wtick_s, kTicks});
  // README's derived figure, from the medians: the compute-only loop subtracted from the
  // compute+Allreduce loop, per iteration.
  c.out.summary(
      {"op_time_us", (op_median - compute_median) / o.inner_iterations * 1e6, kMicroseconds});
  return 0;
}

}  // namespace

int run_allred(RunContext& c) {
  if (c.accurate) return run_allred_accurately(c);
  const Options& o = c.options;
  Buffers buf;
  const auto compute_only = allred_samples(c, "compute loop", buf, [] {});
  const auto with_allreduce =
      allred_samples(c, "compute+Allreduce loop", buf, [&] { allreduce(buf); });
  const double between_s = time_between_operations(c, buf);
  if (!c.root) return 0;

  const std::size_t bytes = kAllreduceDoubles * sizeof(double);
  struct Loop {
    const char* name;
    const char* loop;
    const std::vector<double>& samples;
  };
  for (const Loop& l : {Loop{"Compute loop", "compute", compute_only},
                        Loop{"Compute+Allreduce loop", "compute+MPI_Allreduce", with_allreduce}}) {
    core::BenchmarkRun b = allred_benchmark(c, l.name, l.loop);
    c.out.benchmark_started(b);
    b.rows.push_back(samples_row(c, l.samples, o.inner_iterations, bytes));
    c.out.row(b, b.rows.back());
    c.out.benchmark_finished(b);
  }
  const double total_compute = std::accumulate(compute_only.begin(), compute_only.end(), 0.0);
  const double total_op = std::accumulate(with_allreduce.begin(), with_allreduce.end(), 0.0);
  const double iterations = static_cast<double>(o.samples) * o.inner_iterations;
  c.out.summary({"wtick_us", c.wtick_s * 1e6, kMicroseconds});
  c.out.summary({"time_between_allreduce_us", between_s * 1e6, kMicroseconds});
  c.out.summary({"mean_compute_loop_us", mean_of(compute_only) * 1e6, kMicroseconds});
  c.out.summary({"ticks_per_compute_loop", mean_of(compute_only) / c.wtick_s, kTicks});
  c.out.summary({"mean_op_loop_us", mean_of(with_allreduce) * 1e6, kMicroseconds});
  c.out.summary({"ticks_per_op_loop", mean_of(with_allreduce) / c.wtick_s, kTicks});
  // The README's derived figure: the compute-only time subtracted from the compute+Allreduce time.
  c.out.summary({"op_mean_us", (total_op - total_compute) / iterations * 1e6, kMicroseconds});
  return 0;
}

namespace {

struct GlobalOp {
  const char* name;
  std::size_t bytes;
  std::function<void(Buffers&)> run;
};

std::vector<GlobalOp> global_ops() {
  // One MPI_DOUBLE, MPI_SUM, root 0.
  return {
      {"MPI_Barrier", 0, [](Buffers&) { MPI_Barrier(MPI_COMM_WORLD); }},
      {"MPI_Reduce", sizeof(double),
       [](Buffers& b) { MPI_Reduce(b.send, b.recv, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); }},
      {"MPI_Bcast", sizeof(double),
       [](Buffers& b) { MPI_Bcast(b.recv, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); }},
      {"MPI_Allreduce", sizeof(double),
       [](Buffers& b) { MPI_Allreduce(b.send, b.recv, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); }},
      {"MPI_Reduce+MPI_Bcast", sizeof(double),
       [](Buffers& b) {
         MPI_Reduce(b.send, b.recv, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
         MPI_Bcast(b.recv, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
       }},
  };
}

}  // namespace

std::size_t global_op_count() {
  return global_ops().size();
}

int run_globalop(RunContext& c) {
  const Options& o = c.options;
  const int n = o.loop_iterations;
  Buffers buf;
  std::optional<core::AccurateMeter> meter;
  if (c.accurate) meter.emplace(MPI_COMM_WORLD, *c.accurate);
  double compute_loop_s = 0;  // rank 0: the compute-only loop, for the with-compute rows
  bool all = true;
  // A loop's row: its time is the longest rank's (classic) or the median repetition (accurate).
  struct Loop {
    LoopSample classic;
    std::optional<core::AccurateResult> accurate;
  };
  auto report = [&](const std::string& name, std::size_t bytes, int compute_iterations,
                    const Loop& t) {
    if (!c.root) return 0.0;
    core::BenchmarkRun b;
    b.name = name;
    b.family = "presta_globalop";
    b.accurate = t.accurate.has_value();
    b.nprocs = mpi::world_size();
    b.sized = false;
    b.parameters = {
        {"test", "globalop"},
        {"compute_phase",
         compute_iterations > 0 ? std::to_string(compute_iterations) + " iterations" : "none"}};
    core::Measurement m;
    m.bytes = bytes;
    double loop_s = 0;
    if (t.accurate) {
      if (core::fill_accurate_row(*t.accurate, false, m)) loop_s = t.accurate->seconds;
    } else {
      m.repetitions = n;
      m.t_min_us = t.classic.min_s * 1e6;
      m.t_max_us = t.classic.max_s * 1e6;
      m.t_avg_us = t.classic.avg_s * 1e6;
      loop_s = t.classic.max_s;
    }
    m.measured = loop_s > 0;
    if (m.measured) {
      m.values = {{"loop_time_us", loop_s * 1e6, kMicroseconds},
                  {"time_per_iteration_us", loop_s / n * 1e6, kMicroseconds},
                  {"wtime_ticks", loop_s / c.wtick_s, kTicks}};
      if (compute_iterations > 0 && name != "Compute only")
        m.values.push_back(
            {"op_time_without_compute_us", (loop_s - compute_loop_s) / n * 1e6, kMicroseconds});
    }
    all &= m.measured;
    c.out.benchmark_started(b);
    b.rows.push_back(m);
    c.out.row(b, m);
    c.out.benchmark_finished(b);
    return loop_s;
  };
  auto measure = [&](const char* name, int compute_iterations,
                     const std::function<void(Buffers&)>& op) {
    c.point_started(fmt::format("globalop {} ({} compute iterations)", name, compute_iterations));
    op(buf);  // not timed: the first call sets the collective up
    Loop t;
    auto operation = [&] { op(buf); };
    if (meter) {
      meter->new_table();
      t.accurate = measure_loop_accurately(*meter, n, buf.compute(compute_iterations), operation);
    } else {
      t.classic = time_loop_sample(MPI_COMM_WORLD, n, buf.compute(compute_iterations), operation);
    }
    c.point_finished();
    return t;
  };
  const auto ops = global_ops();
  for (const auto& op : ops) report(op.name, op.bytes, 0, measure(op.name, 0, op.run));
  const int ci = o.loop_compute_iterations;
  if (ci > 0) {
    compute_loop_s = report("Compute only", 0, ci, measure("Compute only", ci, [](Buffers&) {}));
    for (const auto& op : ops) report(op.name, op.bytes, ci, measure(op.name, ci, op.run));
  }
  // Accurate mode: a loop without a valid repetition is a point that could not be measured.
  return meter && !all ? 1 : 0;
}

}  // namespace mpiscope::presta
