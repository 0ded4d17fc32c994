#include "suites/skampi/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <type_traits>

#include <fmt/format.h>

#include "cli/frontend.hpp"
#include "cli/method_options.hpp"
#include "cli/numbers.hpp"
#include "core/accurate.hpp"
#include "core/convergence.hpp"
#include "core/curve_model.hpp"
#include "core/fault_injection.hpp"
#include "core/mpi.hpp"
#include "core/progress.hpp"
#include "core/run_info.hpp"
#include "core/watchdog.hpp"
#include "output/files.hpp"
#include "output/text_table.hpp"
#include "suites/skampi/datatypes.hpp"
#include "suites/skampi/instances.hpp"
#include "suites/skampi/measure.hpp"
#include "suites/skampi/patterns.hpp"
#include "suites/skampi/restart.hpp"
#include "suites/skampi/text_output.hpp"

namespace mpiscope::skampi {

namespace {

std::string now_text() {
  const std::time_t t = std::time(nullptr);
  char b[64];
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", std::localtime(&t));
  return b;
}

class Log {
 public:
  explicit Log(const std::string& path) : out_(path) {}
  void line(const std::string& s) { out_.write(now_text() + " " + s + "\n"); }

 private:
  output::AppendFile out_;
};

// The pair with the largest ping-pong latency (section 3.1): every pair i < j (for more than
// 16 processes, 0 with every other) exchanges 1-byte messages; the median round trip counts.
std::pair<int, int> slowest_pair() {
  const int world = mpi::world_size(), me = mpi::world_rank();
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < world; ++i)
    for (int j = i + 1; j < world; ++j)
      if (world <= 16 || i == 0) pairs.push_back({i, j});
  std::vector<double> lat(pairs.size(), 0.0), all(pairs.size(), 0.0);
  char byte = 0;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const auto [a, b] = pairs[k];
    MPI_Barrier(MPI_COMM_WORLD);
    if (me != a && me != b) continue;
    const int peer = me == a ? b : a;
    std::vector<double> rt;
    for (int r = 0; r < 30; ++r) {
      const double t0 = MPI_Wtime();
      if (me == a) {
        MPI_Send(&byte, 1, MPI_CHAR, peer, 5, MPI_COMM_WORLD);
        MPI_Recv(&byte, 1, MPI_CHAR, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&byte, 1, MPI_CHAR, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&byte, 1, MPI_CHAR, peer, 5, MPI_COMM_WORLD);
      }
      rt.push_back(MPI_Wtime() - t0);
    }
    if (me == a) lat[k] = median(rt);
  }
  MPI_Allreduce(lat.data(), all.data(), static_cast<int>(lat.size()), MPI_DOUBLE, MPI_MAX,
                MPI_COMM_WORLD);
  const auto best = std::max_element(all.begin(), all.end()) - all.begin();
  return pairs[static_cast<std::size_t>(best)];
}

// Calls `visit` on every number of a measured point that the output file holds, in one order for
// the process that measured it and those that receive it.
template <class Visit>
void for_each_number(PointRow& p, Visit&& visit) {
  visit(p.t_us);
  visit(p.stderr_us);
  visit(p.raw_us);
  visit(p.empty_us);
  visit(p.repetitions);
  visit(p.used);
  visit(p.converged);
  visit(p.defects);
  if (!p.accurate) return;
  auto& a = *p.accurate;
  auto& s = a.summary_us;
  for (double* v : {&s.median_ci.lower, &s.median_ci.upper, &s.median_ci.confidence, &s.min, &s.p05,
                    &s.p25, &s.p75, &s.p95, &s.p99, &s.max, &s.mean, &a.window_us,
                    &a.clock_offset_max_us, &a.clock_drift_max})
    visit(*v);
  visit(s.outliers);
  visit(a.late);
  visit(a.overrun);
  visit(a.fell_back);
}

// Rank `root`'s figures of a point (and, in accurate mode, its statistics and note) on every
// process; `p` has the same shape everywhere (accurate or not). Integers travel as doubles,
// exact below 2^53.
void share_point(PointRow& p, int root) {
  std::vector<double> numbers;
  for_each_number(p, [&](auto& v) { numbers.push_back(static_cast<double>(v)); });
  MPI_Bcast(numbers.data(), static_cast<int>(numbers.size()), MPI_DOUBLE, root, MPI_COMM_WORLD);
  auto next = numbers.begin();
  for_each_number(p,
                  [&](auto& v) { v = static_cast<std::remove_reference_t<decltype(v)>>(*next++); });
  if (!p.accurate) return;
  for (std::string* text :
       {&p.accurate->stop_reason, &p.accurate->sync, &p.accurate->time_definition, &p.note})
    *text = mpi::broadcast(*text, root, MPI_COMM_WORLD);
}

class SuiteRunner {
 public:
  SuiteRunner(const Config& c, const SuiteSpec& s, std::pair<int, int> pair, core::Watchdog& wd,
              const cli::MethodOptions& method)
      : config_(c),
        spec_(s),
        instance_(*find_instance(s.type)),
        pair_(pair),
        watchdog_(wd),
        base_(effective_base(c, s)),
        method_(method),
        accurate_(measured_accurately(s, method)) {
    world_ = mpi::world_size();
    rank_ = mpi::world_rank();
    unit_ = length_unit(s.multiple_of, base_.size());
    if (s.type == kCommSplitType) {  // see kMaxCommSplitRepetitions
      method_.max_repetitions = std::min(method_.max_repetitions, kMaxCommSplitRepetitions);
      method_.min_repetitions = std::min(method_.min_repetitions, method_.max_repetitions);
    }
  }

  SuiteResult run() {
    SuiteResult r;
    r.name = spec_.name;
    r.type = spec_.type;
    r.operation = instance_.operation;
    r.pattern = pattern_name(instance_.pattern);
    r.variation = variation_name(spec_.variation);
    r.argument_unit = spec_.variation == Variation::kLength   ? "bytes"
                      : spec_.variation == Variation::kNodes  ? "processes"
                      : spec_.variation == Variation::kChunks ? "chunks"
                                                              : "-";
    r.params["basetype"] = config_.basetypes.at(spec_.basetype).text();
    r.params["send_datatype"] = std::to_string(spec_.send_datatype);
    r.params["recv_datatype"] = std::to_string(spec_.recv_datatype);
    r.params["scale"] = scale_name(spec_.scale);
    r.params["standard_error"] = output::format_number(spec_.standard_error, 4);
    r.params["method"] = accurate_ ? "accurate" : "classic";
    if (accurate_) {
      // The core's stopping rule replaces Min/Max_Repetition, Cut_Quantile and
      // Time_Measurement; Standard_error remains the refinement's threshold.
      r.params["accurate_settings"] = method_.describe();
    } else {
      r.params["cut_quantile"] = output::format_number(spec_.cut_quantile, 3);
      r.params["repetitions"] =
          std::to_string(spec_.min_repetition) + ".." + std::to_string(spec_.max_repetition);
      if (method_.accurate()) r.params["method_note"] = accurate_unavailable(instance_);
    }
    if (instance_.pattern == Pattern::kPingPong)
      r.params[kPairParam] = std::to_string(pair_.first) + "-" + std::to_string(pair_.second);
    const auto started = std::chrono::steady_clock::now();
    RefinementLimits lim;
    lim.epsilon = spec_.standard_error;
    lim.max_points = spec_.max_steps;
    lim.multiple = spec_.variation == Variation::kLength ? unit_ : 1;
    lim.min_distance =
        spec_.variation == Variation::kLength ? std::max(spec_.min_distance, unit_) : 1;
    lim.max_distance = spec_.max_distance.value_or(0);
    lim.out_of_time = [&] {
      int out = spec_.time_suite_s > 0 &&
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() >
                    spec_.time_suite_s;
      MPI_Bcast(&out, 1, MPI_INT, 0, MPI_COMM_WORLD);  // rank 0's clock decides for everyone
      return out != 0;
    };
    const long lo = spec_.start, hi = *spec_.end;
    Grid full_grid;
    if (spec_.variation == Variation::kNone)
      full_grid = linear_grid(0, 0, 1, 1);
    else if (spec_.scale == Scale::kFixedLinear)
      // Stepwidth is the increment in the argument's own unit (bytes, processes, chunks); each
      // length is then rounded to the suite's multiple.
      full_grid =
          linear_grid(lo, hi, static_cast<long>(std::llround(spec_.stepwidth)), lim.multiple);
    else
      full_grid = geometric_grid(lo, hi, spec_.stepwidth, lim.multiple);
    const Grid grid = bounded_grid(full_grid, spec_.max_steps);
    if (grid.size < full_grid.size)
      r.params["grid_thinned"] = std::to_string(grid.size) + " of " +
                                 std::to_string(full_grid.size) + " points (Max_Steps)";
    // Refinement only along the length axis with Dynamic_log (section 4.2).
    if (!(spec_.scale == Scale::kDynamicLog && spec_.variation == Variation::kLength))
      lim.epsilon = std::numeric_limits<double>::infinity();
    const double resolution_us = MPI_Wtick() * 1e6;
    const auto refined = refine(
        grid,
        [&](long arg) {
          r.rows.push_back(point(arg, resolution_us));
          const PointRow& row = r.rows.back();
          return CurvePoint{.m = arg, .t = row.t_us, .usable = is_a_figure(row, resolution_us)};
        },
        lim);
    r.params["refinement_max_error"] = output::format_number(refined.max_error, 4);
    if (refined.out_of_time)
      r.params[kTimeSuiteParam] = time_suite_text(refined, r.rows.size(), hi, r.argument_unit);
    // Refinement measures points between earlier ones: the rows are listed by argument.
    std::stable_sort(r.rows.begin(), r.rows.end(),
                     [](const PointRow& a, const PointRow& b) { return a.argument < b.argument; });
    return r;
  }

 private:
  MPI_Comm comm_for(int p) {
    const int key = instance_.pattern == Pattern::kPingPong ? -1 : p;
    auto it = comms_.find(key);
    if (it != comms_.end()) return it->second.get();
    int color = MPI_UNDEFINED, order = rank_;
    if (instance_.pattern == Pattern::kPingPong) {
      if (rank_ == pair_.first || rank_ == pair_.second) color = 0;
      order = rank_ == pair_.first ? 0 : 1;
    } else if (rank_ < p) {
      color = 0;
    }
    return comms_.emplace(key, mpi::Comm::borrow(MPI_COMM_WORLD).split(color, order))
        .first->second.get();
  }

  // The accurate-mode meter of the point's communicator (collective on first use).
  core::AccurateMeter& meter_for(int p, MPI_Comm comm) {
    const int key = instance_.pattern == Pattern::kPingPong ? -1 : p;
    auto it = meters_.find(key);
    if (it == meters_.end())
      it = meters_.emplace(key, std::make_unique<core::AccurateMeter>(comm, method_.settings()))
               .first;
    return *it->second;
  }

  // Accurate mode on the point's communicator: the operation alone, repeated by the core until
  // the median is known (or a limit); rank 0 of the communicator returns the measured row, the
  // other processes `row` as it was.
  PointRow accurate_point(Kernel& kernel, MPI_Comm comm, const PointRow& row) {
    for (int w = 0; w < config_.cachewarmup; ++w) kernel.repetition();  // @CACHEWARMUP, untimed
    auto repetition = [&](int) { kernel.repetition(); };
    auto release = [&](int) { kernel.after_repetitions(); };
    const core::RepetitionRef after_sample(release);
    // The ping-pong's time is the round trip, as SKaMPI reports it (time factor 1).
    const core::AccurateResult a =
        meter_for(row.nprocs, comm).measure(repetition, 1.0, &after_sample);
    kernel.after_repetitions();
    const long defects = kernel.verify();
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank != 0) return row;
    PointRow p = row;
    core::Measurement m;
    core::fill_accurate_row(a, false, m);
    p.accurate = m.accurate;
    p.t_us = p.raw_us = m.accurate->summary_us.median;
    p.empty_us = 0;
    if (!a.samples.empty()) {  // SKaMPI's sigma/sqrt(n), over the valid repetitions
      const double n = static_cast<double>(a.samples.size()), mean = m.accurate->summary_us.mean;
      double sq = 0;
      for (double x : a.samples) sq += (x * 1e6 - mean) * (x * 1e6 - mean);
      p.stderr_us = std::sqrt(sq / n) / std::sqrt(n);
    }
    p.repetitions = a.attempted;
    p.used = m.accurate->valid;
    p.converged = !core::not_converged_reason(m);  // the stopping rule, a level shift, …
    p.defects = defects;
    p.note = m.note;
    return p;
  }

  KernelSetup kernel_setup(const PointRow& row, MPI_Comm comm) const {
    return {comm,
            row.bytes,
            row.chunks,
            &base_,
            spec_.send_datatype,
            spec_.recv_datatype,
            config_.datatype_params};
  }

  // What the output says when Time_Suite ended the suite: how far the grid got, or that the
  // refinement was cut short.
  std::string time_suite_text(const RefinementResult& refined, std::size_t points, long end,
                              const std::string& unit) const {
    const std::string ended = "Time_Suite (" + cli::number_text(spec_.time_suite_s) +
                              " s) ended the suite after " + std::to_string(points) +
                              (points == 1 ? " point: " : " points: ");
    const long reached = refined.points.empty() ? 0 : refined.points.back().m;
    if (reached < end)
      return ended + "measured up to " + std::to_string(reached) + " of " + std::to_string(end) +
             " " + unit;
    return ended + "the refinement stopped with its largest error " +
           output::format_number(refined.max_error, 4) + " above Standard_error";
  }

  bool is_a_figure(const PointRow& row, double resolution_us) const {
    return time_is_a_figure(row.t_us, resolution_us,
                            waits_for_another_process(instance_, row.nprocs));
  }

  PointRow point(long arg, double resolution_us) {
    PointRow row;
    row.argument = arg;
    row.nprocs = participants(instance_, spec_, arg, world_);
    row.bytes =
        spec_.variation == Variation::kLength ? arg : (instance_.sized ? spec_.default_length : 0);
    row.chunks = instance_.pattern != Pattern::kMasterWorker ? 0
                 : spec_.variation == Variation::kChunks     ? static_cast<int>(arg)
                 : spec_.default_chunks > 0                  ? spec_.default_chunks
                                                             : 2 * (row.nprocs - 1);
    watchdog_.arm(spec_.name + " argument " + std::to_string(arg));
    const MPI_Comm comm = comm_for(row.nprocs);
    const int root = instance_.pattern == Pattern::kPingPong ? pair_.first : 0;
    std::vector<double> node_times(static_cast<std::size_t>(row.nprocs), 0.0);
    if (accurate_) {
      row.accurate.emplace();  // what the root's row sends
      if (comm != MPI_COMM_NULL) {
        core::fault::maybe_hang(spec_.name, static_cast<std::size_t>(row.bytes));  // tests only
        row = accurate_point(*make_kernel(instance_, kernel_setup(row, comm)), comm, row);
      }
    } else if (comm != MPI_COMM_NULL) {
      core::fault::maybe_hang(spec_.name, static_cast<std::size_t>(row.bytes));  // tests only
      auto kernel = make_kernel(instance_, kernel_setup(row, comm));
      StoppingRule rule;
      rule.min_repetition = spec_.min_repetition;
      rule.max_repetition = spec_.max_repetition;
      rule.epsilon = spec_.standard_error;
      rule.cut_quantile = spec_.cut_quantile;
      rule.wtick = MPI_Wtick();
      rule.time_limit = spec_.time_measurement_s;
      auto agree = [comm](bool stop) {
        int s = stop;
        MPI_Bcast(&s, 1, MPI_INT, 0, comm);
        return s != 0;
      };
      for (int w = 0; w < config_.cachewarmup; ++w) kernel->sample();  // @CACHEWARMUP, untimed
      auto& empty = empty_[row.nprocs];
      if (empty.samples.empty())
        empty = measure_point([&] { return kernel->empty(); }, rule, agree);
      const auto op = measure_point([&] { return kernel->sample(); }, rule, agree);
      row.t_us = (op.stats.mean - empty.stats.mean) * 1e6;
      row.stderr_us = op.stats.standard_error * 1e6;
      row.raw_us = op.stats.mean * 1e6;
      row.empty_us = empty.stats.mean * 1e6;
      row.repetitions = static_cast<int>(op.samples.size());
      row.used = static_cast<int>(op.stats.n);
      row.converged = op.converged;
      row.defects = kernel->verify();
      // Node_Times: every participant's own mean minus its own empty time.
      MPI_Gather(&row.t_us, 1, MPI_DOUBLE, node_times.data(), 1, MPI_DOUBLE, 0, comm);
    }
    // Every process takes the refinement's next argument from the root's time.
    share_point(row, root);
    // A time below zero, or below the timer's resolution for an operation that waits for
    // another process, is not a figure however small its standard error.
    if (!accurate_ && !is_a_figure(row, resolution_us)) {
      row.converged = false;
      row.note = row.t_us < 0 ? kBelowZeroNote
                              : "t is below the timer's resolution (" +
                                    output::format_number(resolution_us, 3) +
                                    " us), and the operation waits for another process: not a "
                                    "figure";
    }
    MPI_Bcast(node_times.data(), static_cast<int>(node_times.size()), MPI_DOUBLE, root,
              MPI_COMM_WORLD);
    watchdog_.end_phase();
    if (!accurate_) {
      if (spec_.node_times) row.node_times_us = node_times;
      return row;
    }
    PointRow written = as_written(row);
    written.note = row.note;  // the meter's note, fuller than the file's rebuilt one
    return written;
  }

  const Config& config_;
  const SuiteSpec& spec_;
  const InstanceInfo& instance_;
  std::pair<int, int> pair_;
  core::Watchdog& watchdog_;
  BaseDatatype base_;
  cli::MethodOptions method_;
  bool accurate_;
  int world_ = 1, rank_ = 0;
  long unit_ = 1;
  std::map<int, mpi::Comm> comms_;
  std::map<int, PointMeasurement> empty_;
  std::map<int, std::unique_ptr<core::AccurateMeter>> meters_;  // freed before comms_
};

void report_suite(core::Reporter& rep, const SuiteResult& s, int world) {
  const auto b = benchmark_of(s, world);
  for (const auto& n : suite_notes(s)) rep.note(n);
  rep.benchmark_started(b);
  auto finished = b;  // with its rows, for the curve model of a ping-pong over lengths
  for (const auto& p : s.rows) {
    finished.rows.push_back(measurement_of(p, s.argument_unit));
    rep.row(b, finished.rows.back());
  }
  finished.model = core::model_of(finished);
  rep.benchmark_finished(finished);
}

void append(const std::string& path, const std::string& text) {
  output::AppendFile(path).write(text);
}

}  // namespace

int run_skampi(const RunOptions& o, int thread_level) {
  const Config& c = o.config;
  const int me = mpi::world_rank(), world = mpi::world_size();
  core::RunInfo info = core::collect_run_info("skampi", o.command_line, thread_level);
  info.suite_title = "SKaMPI";
  info.settings["config"] = c.file;
  info.settings["outfile"] = c.outfile;
  info.settings["logfile"] = c.logfile;
  info.settings["memory_kb"] = std::to_string(c.memory_kb);
  info.settings["cachewarmup"] = std::to_string(c.cachewarmup);
  info.settings["postproc"] = c.postproc ? "yes" : "no";
  for (auto& [name, value] : cli::method_settings(
           o.method,
           "classic: SKaMPI's (barrier-synchronised samples, the mean after Cut_Quantile minus "
           "the empty measurement, until its standard error is below Standard_error)",
           "master-worker and MPI_Buffer_attach suites keep SKaMPI's method"))
    info.settings[name] = value;
  for (const auto& [k, v] :
       std::vector<std::pair<std::string, std::string>>{{"machine", c.machine},
                                                        {"node", c.node},
                                                        {"network", c.network},
                                                        {"mpiversion", c.mpiversion},
                                                        {"user", c.user}})
    if (!v.empty()) info.settings[k] = v;
  for (const auto& s : c.suites) info.benchmarks.push_back(s.name);

  std::unique_ptr<Log> log;
  RestartPlan plan;
  std::string plan_json;
  if (me == 0) {
    log = std::make_unique<Log>(c.logfile);
    log->line("RUN " + c.file + " on " + std::to_string(world) + " processes, method " +
              info.settings["method"]);
    const std::vector<std::pair<std::string, std::string>> header = {
        {"MACHINE", c.machine},
        {"NODE", c.node},
        {"NETWORK", c.network},
        {"MPIVERSION", c.mpiversion},
        {"USER", c.user},
        {"MEMORY", std::to_string(c.memory_kb)},
        {"CACHEWARMUP", std::to_string(c.cachewarmup)},
        {"BLOCKSIZE", std::to_string(c.datatype_params.blocksize)},
        {"VECTORSTRIDE", std::to_string(c.datatype_params.vectorstride)},
        {"NPROCS", std::to_string(world)},
        {"MPI_LIBRARY", info.mpi_library.substr(0, info.mpi_library.find('\n'))},
        {"DATE", info.date_iso},
        {"CONFIG", c.file},
        {"MPISCOPE", info.mpiscope_version}};
    plan = plan_restart(c, header, o.method, [&](const std::string& line) { log->line(line); });
    plan_json = nlohmann::json(plan.to_run).dump();
  }
  plan_json = mpi::broadcast(plan_json, 0, MPI_COMM_WORLD);
  const auto to_run = nlohmann::json::parse(plan_json).get<std::vector<int>>();

  std::pair<int, int> pair{0, 1};
  const bool any_pingpong = std::any_of(to_run.begin(), to_run.end(), [&](int i) {
    return find_instance(c.suites[static_cast<std::size_t>(i)].type)->pattern == Pattern::kPingPong;
  });
  if (any_pingpong) pair = slowest_pair();
  info.settings[kPairSetting] = std::to_string(pair.first) + "-" + std::to_string(pair.second);

  cli::RunReporters run_reporters([] { return std::make_unique<TextReporter>(); }, o.output, info);
  core::Reporter& reporters = run_reporters.out();
  if (me == 0) {
    if (any_pingpong)
      log->line("ping-pong pair with the largest latency: " + info.settings[kPairSetting]);
    for (const auto& d : plan.done) {
      reporters.note("suite " + d.name + " taken from the interrupted earlier run in " + c.outfile);
      const auto kept = suite_settings(d);
      if (const auto it = kept.find(kPairSetting);
          it != kept.end() && it->second != info.settings[kPairSetting])
        reporters.note("suite " + d.name + " was measured on the ping-pong pair " + it->second);
      report_suite(reporters, d, world);
    }
  }
  core::Watchdog watchdog(o.output.timeout_s, me);
  long defects = 0;
  const double start = MPI_Wtime();
  long suites_done = 0;
  for (int i : to_run) {
    const auto& spec = c.suites[static_cast<std::size_t>(i)];
    if (me == 0) {
      log->line("START " + spec.name);
      append(c.outfile, "@BEGIN_SUITE " + spec.name + "\n");  // torn if this suite crashes
      core::progress_message(fmt::format("skampi: suite {} ({}/{}), {}", spec.name, suites_done + 1,
                                         to_run.size(),
                                         core::elapsed_and_left(MPI_Wtime() - start, suites_done,
                                                                static_cast<long>(to_run.size()))));
    }
    ++suites_done;
    SuiteRunner runner(c, spec, pair, watchdog, o.method);
    const SuiteResult result = runner.run();
    if (me == 0) {
      // Replace the torn marker by the whole block.
      auto text = read_output(c.outfile);
      text.torn_suite.clear();
      text.suites.push_back(result);
      output::replace_file(c.outfile, format_output(text));
      log->line("END " + spec.name + " (" + std::to_string(result.rows.size()) + " points)");
      report_suite(reporters, result, world);
      for (const auto& r : result.rows) defects += r.defects;
    }
  }
  MPI_Bcast(&defects, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  run_reporters.measured(info);
  watchdog.stop();  // the outputs follow, written by rank 0 alone
  if (me == 0) {
    append(c.outfile, format_end());
    log->line("RUN END");
    if (c.postproc) {
      std::vector<std::string> inputs = {c.outfile};
      for (int n = 1; std::filesystem::exists(c.outfile + "." + std::to_string(n)); ++n)
        inputs.push_back(c.outfile + "." + std::to_string(n));
      run_postproc(c.outfile + ".postproc", inputs);
      reporters.note("@POSTPROC: medians of " + std::to_string(inputs.size()) + " runs in " +
                     c.outfile + ".postproc");
    }
    if (defects)
      reporters.note("datatype check: " + std::to_string(defects) + " wrong bytes received");
  }
  run_reporters.finish(info, defects == 0);
  return defects ? cli::kCheckFailed : cli::kOk;
}

void run_postproc(const std::string& out, const std::vector<std::string>& inputs) {
  std::vector<OutputFile> runs;
  for (const auto& p : inputs) runs.push_back(read_output(p));
  output::replace_file(out, format_output(postprocess(runs)));
}

}  // namespace mpiscope::skampi
