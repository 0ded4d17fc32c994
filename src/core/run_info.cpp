#include "core/run_info.hpp"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "core/control_variables.hpp"
#include "core/heap_policy.hpp"
#include "core/mpi.hpp"
#include "core/provenance.hpp"
#include "core/sync.hpp"

#ifndef MPISCOPE_VERSION
#define MPISCOPE_VERSION "0.0.0"
#endif

namespace mpiscope::core {

extern const char* const kGitCommit;  // generated at build time (cmake/commit.cmake)

const char* mpiscope_version() {
  return MPISCOPE_VERSION;
}
const char* mpiscope_commit() {
  return kGitCommit;
}

std::string rank_ranges_by_host(
    const std::vector<std::pair<std::string, std::vector<int>>>& ranks_of_host) {
  std::string text;
  for (const auto& [host, ranks] : ranks_of_host) {
    text += (text.empty() ? "" : "; ") + host + ":";
    for (std::size_t i = 0; i < ranks.size();) {
      std::size_t j = i;
      while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
      text += (i == 0 ? " " : ", ") + std::to_string(ranks[i]);
      if (j > i) text += "-" + std::to_string(ranks[j]);
      i = j + 1;
    }
  }
  return text;
}

namespace {

// Every rank's text, on rank 0 (in world rank order); empty elsewhere. Collective.
std::vector<std::string> gather_text(const std::string& text) {
  const int rank = mpi::world_rank(), size = mpi::world_size();
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(rank == 0 ? static_cast<std::size_t>(size) : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lengths.size());
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::vector<char> all(static_cast<std::size_t>(total));
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, MPI_COMM_WORLD);
  std::vector<std::string> texts;
  for (std::size_t r = 0; r < lengths.size(); ++r)
    texts.emplace_back(all.data() + offsets[r], static_cast<std::size_t>(lengths[r]));
  return texts;
}

struct RunStart {
  double wall_s = std::nan("");
  double cpu_wait_s = std::nan("");
};
RunStart run_start;

double wall_seconds() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// The seconds this process's main thread has spent ready on a run queue without a CPU: the second
// field of /proc/self/schedstat (nanoseconds); NaN where the kernel does not provide it.
double cpu_wait_seconds_so_far() {
  std::FILE* f = std::fopen("/proc/self/schedstat", "r");
  if (f == nullptr) return std::nan("");
  unsigned long long on_cpu_ns = 0, waiting_ns = 0;
  const int read = std::fscanf(f, "%llu %llu", &on_cpu_ns, &waiting_ns);
  std::fclose(f);
  return read == 2 ? 1e-9 * static_cast<double>(waiting_ns) : std::nan("");
}
}  // namespace

double cpu_wait_percent_since_run_start() {
  const double wall = wall_seconds() - run_start.wall_s;
  return wall > 0 ? 100.0 * (cpu_wait_seconds_so_far() - run_start.cpu_wait_s) / wall
                  : std::nan("");
}

void gather_end_of_run_settings(RunInfo& info) {
  const double mine = cpu_wait_percent_since_run_start();
  double most = std::isfinite(mine) ? mine : -1;  // -1: not known on this rank
  MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (most < 0) return;
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", most);
  info.settings[kEndOfRunSettings[0]] = text;
}

RunInfo collect_run_info(const std::string& suite, const std::vector<std::string>& command_line,
                         int thread_level) {
  run_start = {wall_seconds(), cpu_wait_seconds_so_far()};
  RunInfo info;
  info.suite = suite;
  info.command_line = command_line;
  info.world_size = mpi::world_size();
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &local);  // asctime's layout, as IMB
  info.date = buf;
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", &local);
  info.date_iso = buf;
  utsname u{};
  if (uname(&u) == 0) {
    info.machine = u.machine;
    info.system = u.sysname;
    info.release = u.release;
    info.version = u.version;
  }
  int version = 0, subversion = 0;
  MPI_Get_version(&version, &subversion);
  info.mpi_version = std::to_string(version) + "." + std::to_string(subversion);
  info.mpi_library = mpi::library_version();
  info.thread_level = mpi::thread_level_name(thread_level);
  info.mpiscope_version = mpiscope_version();
  info.mpiscope_commit = mpiscope_commit();
  if (!heap_policy().description.empty()) info.settings["heap"] = heap_policy().description;

  // Hosts and ranks per host: every rank's processor name, gathered on rank 0.
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  const int rank = mpi::world_rank();
  std::vector<char> all(
      rank == 0 ? static_cast<std::size_t>(info.world_size) * MPI_MAX_PROCESSOR_NAME : 0);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
             0, MPI_COMM_WORLD);
  // Which ranks ran where, as rank ranges per host ("h1: 0-1; h2: 2-3"): on a cluster a figure
  // between two ranks means nothing without knowing whether they shared a host.
  std::vector<std::pair<std::string, std::vector<int>>> ranks_of_host;  // in order of first rank
  for (int r = 0; rank == 0 && r < info.world_size; ++r) {
    const std::string host(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
    ++info.ranks_per_host[host];
    auto it = std::find_if(ranks_of_host.begin(), ranks_of_host.end(),
                           [&](const auto& entry) { return entry.first == host; });
    if (it == ranks_of_host.end()) it = ranks_of_host.insert(ranks_of_host.end(), {host, {}});
    it->second.push_back(r);
  }
  if (rank == 0) info.settings["hosts_of_ranks"] = rank_ranges_by_host(ranks_of_host);

  // Provenance (core/provenance.hpp): the variables that configure MPI, as rank 0 has them, and
  // the CPUs and NUMA nodes of every rank, summarised per host.
  if (rank == 0) {
    for (const auto& [variable, value] : configuration_environment(environ))
      info.settings[kEnvironmentSettingPrefix + variable] = value;
    // The library's control variables, and those the environment changed from its defaults.
    auto variables = finish_control_variable_probe();
    info.control_variables = std::move(variables.values);
    if (!variables.changed.empty())
      info.settings[kChangedControlVariablesSetting] = std::move(variables.changed);
  }
  const RankPlacement mine = this_rank_placement(name);
  const std::string placed = cpu_list_text(mine.cpus) + "|" + cpu_list_text(mine.numa_nodes);
  const auto placements = gather_text(placed);
  if (rank == 0) {
    std::vector<RankPlacement> ranks;
    for (int r = 0; r < info.world_size; ++r) {
      const std::string& text = placements[static_cast<std::size_t>(r)];
      const auto bar = text.find('|');
      ranks.push_back(
          {std::string(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME),
           parse_cpu_list(text.substr(0, bar)), parse_cpu_list(text.substr(bar + 1))});
    }
    info.settings[kCpuBindingSetting] = cpu_binding_summary(ranks);
  }

  // Oversubscription: more ranks on a node than the CPUs they may run on together (the union of
  // their affinity masks: a rank bound to one core is not a node with one core). Timings then
  // include time-slicing; the settings say so, whatever method measures.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int ranks_here = 1;
  MPI_Comm_size(node, &ranks_here);
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
    for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN) && c < CPU_SETSIZE; ++c)
      CPU_SET(static_cast<int>(c), &allowed);
  MPI_Allreduce(MPI_IN_PLACE, &allowed, static_cast<int>(sizeof allowed), MPI_BYTE, MPI_BOR, node);
  MPI_Comm_free(&node);
  int excess = ranks_here - CPU_COUNT(&allowed);
  MPI_Allreduce(MPI_IN_PLACE, &excess, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  info.settings["oversubscribed"] =
      excess > 0 ? "yes: a node runs " + std::to_string(excess) +
                       " more ranks than it has CPUs; times include time-slicing"
                 : "no";

  // The timer every figure rests on, measured on each rank; the coarsest and slowest are kept.
  const TimerProperties timer = measure_timer();
  double worst[3] = {timer.wtick_s, timer.resolution_s, timer.cost_s};
  MPI_Allreduce(MPI_IN_PLACE, worst, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  char text[32];
  const char* names[3] = {"timer_wtick_s", "timer_resolution_s", "timer_cost_s"};
  for (int i = 0; i < 3; ++i) {
    std::snprintf(text, sizeof text, "%.3g", worst[i]);
    info.settings[names[i]] = text;
  }
  return info;
}

std::vector<std::string> host_of_each_rank() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  const int ranks = mpi::world_size();
  std::vector<char> all(static_cast<std::size_t>(ranks) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> hosts;
  for (int r = 0; r < ranks; ++r)
    hosts.emplace_back(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
  return hosts;
}

UniformLayout uniform_layout() {
  const std::vector<std::string> host_names = host_of_each_rank();
  const int ranks = static_cast<int>(host_names.size());
  std::vector<std::string> hosts;  // in order of first rank
  std::vector<int> host_of_rank, count;
  for (int r = 0; r < ranks; ++r) {
    const std::string& host = host_names[static_cast<std::size_t>(r)];
    const auto it = std::find(hosts.begin(), hosts.end(), host);
    host_of_rank.push_back(static_cast<int>(it - hosts.begin()));
    if (it == hosts.end()) {
      hosts.push_back(host);
      count.push_back(0);
    }
    ++count[static_cast<std::size_t>(host_of_rank.back())];
  }
  UniformLayout layout;
  layout.hosts = static_cast<int>(hosts.size());
  if (std::adjacent_find(count.begin(), count.end(), std::not_equal_to<>()) != count.end())
    return layout;
  layout.ranks_per_host = count.front();
  layout.block = layout.cyclic = true;
  for (int r = 0; r < ranks; ++r) {
    layout.block =
        layout.block && host_of_rank[static_cast<std::size_t>(r)] == r / layout.ranks_per_host;
    layout.cyclic = layout.cyclic && host_of_rank[static_cast<std::size_t>(r)] == r % layout.hosts;
  }
  return layout;
}

}  // namespace mpiscope::core
