#include "core/provenance.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include "core/text.hpp"

namespace mpiscope::core {

namespace {

// Whose variables configure MPI (issue 32's list, and MVAPICH's and PSM3's beside PSM2's).
constexpr std::string_view kConfigurationPrefixes[] = {
    "OMPI_", "PMIX_MCA_", "MPICH_", "MPIR_CVAR_", "HYDRA_", "UCX_",
    "FI_",   "PSM2_",     "PSM3_",  "I_MPI_",     "MV2_"};
// Slurm's job geometry: how many tasks, where, on which CPUs; not its ids and names.
constexpr std::string_view kSlurmGeometry[] = {"SLURM_NNODES",
                                               "SLURM_JOB_NUM_NODES",
                                               "SLURM_NTASKS",
                                               "SLURM_NPROCS",
                                               "SLURM_NTASKS_PER_NODE",
                                               "SLURM_TASKS_PER_NODE",
                                               "SLURM_CPUS_PER_TASK",
                                               "SLURM_CPUS_ON_NODE",
                                               "SLURM_JOB_CPUS_PER_NODE",
                                               "SLURM_CPU_BIND",
                                               "SLURM_CPU_BIND_TYPE",
                                               "SLURM_CPU_BIND_LIST",
                                               "SLURM_DISTRIBUTION",
                                               "SLURM_HINT",
                                               "SLURM_OVERCOMMIT",
                                               "SLURM_MPI_TYPE",
                                               "SLURM_JOB_PARTITION"};
// What Open MPI's mpirun and MPICH's Hydra set for each job (seen in a rank's environment on
// Debian 12: Open MPI 4.1.4, MPICH 4.0.2): ranks, sizes, URIs, ports, session directories and
// job ids, different on every launch. mpirun's OMPI_MCA_mpi_oversubscribe and
// OMPI_MCA_rmaps_base_oversubscribe stay: they follow its options and change how ranks wait.
constexpr std::string_view kPerJobNames[] = {"OMPI_APP_CTX_NUM_PROCS",
                                             "OMPI_ARGV",
                                             "OMPI_COMMAND",
                                             "OMPI_FILE_LOCATION",
                                             "OMPI_FIRST_RANKS",
                                             "OMPI_NUM_APP_CTX",
                                             "OMPI_UNIVERSE_SIZE",
                                             "OMPI_MCA_ess",
                                             "OMPI_MCA_initial_wdir",
                                             "OMPI_MCA_pmix",
                                             "OMPI_MCA_shmem_RUNTIME_QUERY_hint",
                                             "MPIR_CVAR_CH3_INTERFACE_HOSTNAME"};
// Open MPI's permission to run as root: it lets a job start and configures nothing.
constexpr std::string_view kPermissionNames[] = {"OMPI_ALLOW_RUN_AS_ROOT",
                                                 "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"};
constexpr std::string_view kPerJobPrefixes[] = {"OMPI_COMM_WORLD_", "OMPI_MCA_ess_base_",
                                                "OMPI_MCA_orte_", "OMPI_MCA_pmix_"};
constexpr std::string_view kSecretWords[] = {"key", "token", "secret", "password"};  // any case

bool starts_with_any(std::string_view name, const auto& prefixes) {
  return std::any_of(std::begin(prefixes), std::end(prefixes),
                     [&](std::string_view p) { return name.starts_with(p); });
}
bool is_one_of(std::string_view name, const auto& names) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

bool configures_mpi(std::string_view name) {
  if (is_one_of(name, kSlurmGeometry)) return true;
  if (!starts_with_any(name, kConfigurationPrefixes)) return false;
  return !is_one_of(name, kPerJobNames) && !is_one_of(name, kPermissionNames) &&
         !starts_with_any(name, kPerJobPrefixes);
}

std::string numa_text(const std::set<int>& nodes) {
  return nodes.empty() ? "" : " (NUMA " + cpu_list_text(nodes) + ")";
}

}  // namespace

bool names_a_secret(std::string_view name) {
  const std::string lower = to_lower(name);
  return std::any_of(std::begin(kSecretWords), std::end(kSecretWords),
                     [&](std::string_view w) { return lower.find(w) != std::string::npos; });
}

std::vector<std::string> environment_with(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> out;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    if (overrides.count(text.substr(0, text.find('='))) == 0) out.push_back(text);
  }
  for (const auto& [name, value] : overrides) out.push_back(name + "=" + value);
  return out;
}

std::map<std::string, std::string> configuration_environment(const char* const* environment) {
  std::map<std::string, std::string> found;
  for (const char* const* entry = environment; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    const std::string_view name = text.substr(0, equals);
    if (!configures_mpi(name)) continue;
    found[std::string(name)] =
        names_a_secret(name) ? "(set)" : std::string(text.substr(equals + 1));
  }
  return found;
}

std::string environment_line(const std::map<std::string, std::string>& settings) {
  if (settings.count(kCpuBindingSetting) == 0) return "";
  std::string line;
  const std::string prefix = kEnvironmentSettingPrefix;
  for (auto it = settings.lower_bound(prefix);
       it != settings.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
    line += (line.empty() ? "" : " ") + it->first.substr(prefix.size()) + "=" + it->second;
  return line.empty() ? "none" : line;
}

std::string cpu_list_text(const std::set<int>& cpus) {
  std::string text;
  for (auto it = cpus.begin(); it != cpus.end();) {
    const int first = *it;
    int last = first;
    while (++it != cpus.end() && *it == last + 1) ++last;
    text += (text.empty() ? "" : ",") + std::to_string(first);
    if (last != first) text += "-" + std::to_string(last);
  }
  return text;
}

std::set<int> parse_cpu_list(const std::string& text) {
  std::set<int> cpus;
  auto bad = [&] { return std::invalid_argument("not a CPU list: '" + text + "'"); };
  auto number = [&](std::string_view s) {
    int value = -1;
    const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (error != std::errc() || end != s.data() + s.size() || s.empty() || value < 0) throw bad();
    return value;
  };
  std::string_view rest(text);
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == ' ')) rest.remove_suffix(1);
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const auto dash = item.find('-');
    const int first = number(item.substr(0, dash));
    const int last = dash == std::string_view::npos ? first : number(item.substr(dash + 1));
    if (last < first || last - first > (1 << 20)) throw bad();
    for (int c = first; c <= last; ++c) cpus.insert(c);
  }
  return cpus;
}

std::set<int> cpus_of(const cpu_set_t& set) {
  std::set<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.insert(c);
  return cpus;
}

std::string cpu_binding_summary(const std::vector<RankPlacement>& ranks) {
  std::vector<std::string> hosts;  // in the order of their first rank
  for (const auto& r : ranks)
    if (std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
  std::string summary;
  for (const auto& host : hosts) {
    std::string groups;
    for (std::size_t i = 0; i < ranks.size();) {
      if (ranks[i].host != host) {
        ++i;
        continue;
      }
      // Ranks i..last: consecutive, on this host, with the same CPUs and nodes.
      std::size_t last = i;
      while (last + 1 < ranks.size() && ranks[last + 1].host == host &&
             ranks[last + 1].cpus == ranks[i].cpus &&
             ranks[last + 1].numa_nodes == ranks[i].numa_nodes)
        ++last;
      const std::string who = last == i ? "rank " + std::to_string(i)
                                        : "ranks " + std::to_string(i) + "-" + std::to_string(last);
      const auto& cpus = ranks[i].cpus;
      groups += (groups.empty() ? "" : ", ") + who + " on " +
                (cpus.size() == 1 ? "CPU " : "CPUs ") + cpu_list_text(cpus) +
                numa_text(ranks[i].numa_nodes);
      i = last + 1;
    }
    summary += (summary.empty() ? "" : "; ") + host + ": " + groups;
  }
  return summary;
}

RankPlacement this_rank_placement(const std::string& host) {
  RankPlacement p;
  p.host = host;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) p.cpus = cpus_of(allowed);
  // The NUMA nodes holding those CPUs, from the kernel's node directories.
  if (DIR* dir = opendir("/sys/devices/system/node")) {
    while (const dirent* entry = readdir(dir)) {
      const std::string_view name(entry->d_name);
      int node = -1;
      if (!name.starts_with("node") ||
          std::from_chars(name.data() + 4, name.data() + name.size(), node).ec != std::errc())
        continue;
      std::ifstream list("/sys/devices/system/node/" + std::string(name) + "/cpulist");
      std::string text;
      if (!std::getline(list, text)) continue;
      try {
        const auto cpus = parse_cpu_list(text);
        if (std::any_of(cpus.begin(), cpus.end(), [&](int c) { return p.cpus.count(c) > 0; }))
          p.numa_nodes.insert(node);
      } catch (const std::invalid_argument&) {
        // a node directory this kernel writes otherwise: its CPUs are not known
      }
    }
    closedir(dir);
  }
  return p;
}

}  // namespace mpiscope::core
