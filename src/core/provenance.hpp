// What configured the MPI library and where its ranks ran, recorded with every run (issue 32), so
// that two runs that differ can be told apart by their configuration before their machine: the
// environment variables that configure MPI, its launcher and transports, and each rank's CPUs.
#pragma once

#include <sched.h>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpiscope::core {

// Settings names: the environment as one setting per variable ("env:UCX_TLS"), the binding as
// one ("cpu_binding"). A run that records the binding recorded its environment too: a variable
// it does not name was unset (runs recorded before the provenance name neither).
inline constexpr const char* kEnvironmentSettingPrefix = "env:";
inline constexpr const char* kCpuBindingSetting = "cpu_binding";

// The variables of `environment` (NAME=value strings, as `environ`, null-terminated) that configure
// an MPI library, its launcher, its transports or the job's geometry: OMPI_*, PMIX_MCA_*, MPICH_*,
// MPIR_CVAR_*, HYDRA_*, UCX_*, FI_*, PSM2_*, PSM3_*, I_MPI_*, MV2_* and Slurm's job geometry
// (SLURM_NTASKS, SLURM_CPU_BIND, …). Not what a launcher sets afresh for each job (Open MPI's
// OMPI_COMM_WORLD_*, its session directories, URIs and job ids, PMIx's server variables, Hydra's
// host name), which would differ on every launch and say nothing of the configuration, nor Open
// MPI's OMPI_ALLOW_RUN_AS_ROOT and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM (permissions). A value
// whose name holds KEY, TOKEN, SECRET or PASSWORD is recorded as "(set)", never itself.
std::map<std::string, std::string> configuration_environment(const char* const* environment);
// This process's environment as NAME=VALUE entries, with `overrides` set in place of what it has
// by those names: for a child process started with a changed environment.
std::vector<std::string> environment_with(const std::map<std::string, std::string>& overrides);
// Whether a variable's name holds KEY, TOKEN, SECRET or PASSWORD (any case): its value is kept
// out of every record.
bool names_a_secret(std::string_view name);

// A run's recorded variables as one line, "OMPI_MCA_btl=self,vader UCX_TLS=tcp" (by name), from
// its settings; "none" when it recorded none, "" when it recorded no provenance.
std::string environment_line(const std::map<std::string, std::string>& settings);

// "0-3,8": the CPUs of `cpus` as ranges; "" for none.
std::string cpu_list_text(const std::set<int>& cpus);
// The kernel's list format ("0-3,8,10-11", as /sys/devices/system/node/node0/cpulist); throws
// std::invalid_argument on anything else.
std::set<int> parse_cpu_list(const std::string& text);
std::set<int> cpus_of(const cpu_set_t& set);

// One rank's place: its host, the CPUs it may run on and their NUMA nodes.
struct RankPlacement {
  std::string host;
  std::set<int> cpus;
  std::set<int> numa_nodes;  // empty where the kernel does not say
};
// "vm: ranks 0-1 on CPUs 0-1 (NUMA 0); h2: rank 2 on CPU 0, rank 3 on CPU 1": consecutive ranks
// of a host with the same CPUs together, hosts in the order of their first rank.
std::string cpu_binding_summary(const std::vector<RankPlacement>& ranks);

// This process's CPUs (sched_getaffinity) and their NUMA nodes (/sys/devices/system/node).
RankPlacement this_rank_placement(const std::string& host);

}  // namespace mpiscope::core
