// Provenance (core/provenance.hpp): which environment variables count as MPI's configuration and
// which are a launcher's per-job noise, secrets kept out, CPU lists both ways, the per-host binding
// line, and compare naming what differs between two sides.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/control_variables.hpp"
#include "core/provenance.hpp"
#include "report/compare.hpp"

using namespace mpiscope;
using core::configuration_environment;

namespace {

std::map<std::string, std::string> from(const std::vector<const char*>& entries) {
  std::vector<const char*> environment = entries;
  environment.push_back(nullptr);
  return configuration_environment(environment.data());
}

db::StoredRun run_recording(int id, const std::map<std::string, std::string>& variables,
                            const std::string& binding) {
  db::StoredRun r;
  r.id = id;
  r.info.suite = "imb-mpi1";
  r.info.settings[core::kCpuBindingSetting] = binding;
  r.info.settings["oversubscribed"] = "no";
  for (const auto& [name, value] : variables)
    r.info.settings[core::kEnvironmentSettingPrefix + name] = value;
  return r;
}

}  // namespace

TEST(Provenance, ConfigurationVariablesAreKeptAndLaunchersPerJobOnesLeftOut) {
  const auto found = from(
      {"UCX_TLS=tcp", "OMPI_MCA_btl=self,vader", "MPIR_CVAR_ASYNC_PROGRESS=1", "FI_PROVIDER=tcp",
       "I_MPI_PIN=0", "PMIX_MCA_psec=native", "SLURM_NTASKS=4", "SLURM_CPU_BIND=cores",
       "HOME=/root", "PATH=/bin",
       // per job: Open MPI 4.1's mpirun, PMIx, Hydra, Slurm's ids
       "OMPI_COMM_WORLD_RANK=0", "OMPI_MCA_orte_hnp_uri=1.0;tcp://x:1", "OMPI_MCA_ess_base_jobid=7",
       "OMPI_FILE_LOCATION=/tmp/ompi.vm.0/pid.1", "PMIX_SERVER_URI4=1.0;tcp4://127.0.0.1:2",
       "PMIX_RANK=0", "MPIR_CVAR_CH3_INTERFACE_HOSTNAME=vm", "PMI_RANK=0", "SLURM_JOB_ID=12",
       "OMPI_MCA_mpi_oversubscribe=0", "OMPI_ALLOW_RUN_AS_ROOT=1", "no_equals_sign"});
  const std::map<std::string, std::string> expected = {{"UCX_TLS", "tcp"},
                                                       {"OMPI_MCA_btl", "self,vader"},
                                                       {"MPIR_CVAR_ASYNC_PROGRESS", "1"},
                                                       {"FI_PROVIDER", "tcp"},
                                                       {"I_MPI_PIN", "0"},
                                                       {"PMIX_MCA_psec", "native"},
                                                       {"SLURM_NTASKS", "4"},
                                                       {"SLURM_CPU_BIND", "cores"},
                                                       {"OMPI_MCA_mpi_oversubscribe", "0"}};
  EXPECT_EQ(found, expected);
}

TEST(Provenance, SecretsAreRecordedAsSetNeverTheirValue) {
  const auto found = from({"UCX_API_KEY=hunter2", "FI_CXI_TOKEN=abc", "I_MPI_Secret_x=s",
                           "MPICH_PASSWORD_FILE=/p", "UCX_TLS=tcp"});
  EXPECT_EQ(found.at("UCX_API_KEY"), "(set)");
  EXPECT_EQ(found.at("FI_CXI_TOKEN"), "(set)");
  EXPECT_EQ(found.at("I_MPI_Secret_x"), "(set)");
  EXPECT_EQ(found.at("MPICH_PASSWORD_FILE"), "(set)");
  EXPECT_EQ(found.at("UCX_TLS"), "tcp");
}

TEST(Provenance, CpuListsBothWays) {
  EXPECT_EQ(core::cpu_list_text({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(core::cpu_list_text({}), "");
  EXPECT_EQ(core::cpu_list_text({5}), "5");
  EXPECT_EQ(core::parse_cpu_list("0-3,8,10-11\n"), (std::set<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(core::parse_cpu_list(""), std::set<int>{});
  for (const char* bad : {"a", "3-1", "1,,2", "-1", "1-", "0-99999999"})
    EXPECT_THROW(core::parse_cpu_list(bad), std::invalid_argument) << bad;
}

TEST(Provenance, BindingLineGroupsConsecutiveRanksOfAHost) {
  EXPECT_EQ(core::cpu_binding_summary({{"vm", {0, 1}, {0}}, {"vm", {0, 1}, {0}}}),
            "vm: ranks 0-1 on CPUs 0-1 (NUMA 0)");
  EXPECT_EQ(core::cpu_binding_summary(
                {{"h1", {0}, {}}, {"h1", {1}, {}}, {"h2", {0}, {0}}, {"h2", {0}, {0}}}),
            "h1: rank 0 on CPU 0, rank 1 on CPU 1; h2: ranks 2-3 on CPU 0 (NUMA 0)");
  // Dealt round robin: a host's ranks are not consecutive, so each is named.
  EXPECT_EQ(core::cpu_binding_summary(
                {{"h1", {0}, {}}, {"h2", {0}, {}}, {"h1", {0}, {}}, {"h2", {0}, {}}}),
            "h1: rank 0 on CPU 0, rank 2 on CPU 0; h2: rank 1 on CPU 0, rank 3 on CPU 0");
}

TEST(Provenance, EnvironmentLineOnlyForRunsThatRecordedIt) {
  EXPECT_EQ(core::environment_line({}), "");  // recorded before the provenance
  const auto none = run_recording(1, {}, "vm: rank 0 on CPU 0").info.settings;
  EXPECT_EQ(core::environment_line(none), "none");
  const auto some =
      run_recording(1, {{"UCX_TLS", "tcp"}, {"FI_PROVIDER", "tcp"}}, "vm").info.settings;
  EXPECT_EQ(core::environment_line(some), "FI_PROVIDER=tcp UCX_TLS=tcp");
}

// compare names a variable set on one side only, a changed binding, and nothing for runs that
// recorded no provenance.
TEST(Provenance, CompareNamesWhatDiffers) {
  const std::vector<db::StoredRun> a = {run_recording(1, {}, "vm: ranks 0-1 on CPUs 0-1"),
                                        run_recording(2, {}, "vm: ranks 0-1 on CPUs 0-1")};
  const std::vector<db::StoredRun> b = {
      run_recording(3, {{"UCX_TLS", "tcp"}}, "vm: rank 0 on CPU 0, rank 1 on CPU 1")};
  const auto c = report::compare_runs(a, b, report::CompareSettings{});
  EXPECT_EQ(c.provenance_differences,
            (std::vector<std::string>{
                "CPU binding: A vm: ranks 0-1 on CPUs 0-1; B vm: rank 0 on CPU 0, rank 1 on CPU 1",
                "UCX_TLS: A unset; B tcp"}));
  EXPECT_TRUE(report::compare_runs(a, a, report::CompareSettings{}).provenance_differences.empty());
  db::StoredRun old = run_recording(4, {}, "x");
  old.info.settings.clear();  // recorded before the provenance: nothing to compare with
  EXPECT_TRUE(
      report::compare_runs({old}, b, report::CompareSettings{}).provenance_differences.empty());
}

// The control variables an environment variable names, by each library's convention.
TEST(ControlVariables, EachLibrarysConventionNamesItsVariables) {
  EXPECT_EQ(core::variables_named_by("OMPI_MCA_btl_vader_eager_limit"),
            std::vector<std::string>{"btl_vader_eager_limit"});
  EXPECT_EQ(core::variables_named_by("MPIR_CVAR_ASYNC_PROGRESS"),
            std::vector<std::string>{"MPIR_CVAR_ASYNC_PROGRESS"});
  EXPECT_EQ(core::variables_named_by("MPICH_ASYNC_PROGRESS"),
            std::vector<std::string>{"MPIR_CVAR_ASYNC_PROGRESS"});
  EXPECT_EQ(core::variables_named_by("MPIR_PARAM_ASYNC_PROGRESS"),
            std::vector<std::string>{"MPIR_CVAR_ASYNC_PROGRESS"});
  EXPECT_TRUE(core::variables_named_by("UCX_TLS").empty());
  EXPECT_TRUE(core::variables_named_by("PMIX_MCA_psec").empty());
}

// Changed: named by the environment and read otherwise than by default. Not changed: set to the
// default, or differing without being named (a library's unstable reading, a launcher's value).
// A library variable naming none is said (a typo); MPICH_ alone is not (vendor settings use it).
TEST(ControlVariables, OnlyNamedVariablesReadOtherwiseThanByDefaultAreChanged) {
  const core::ControlVariables clean = {{"btl_vader_eager_limit", "4096"},
                                        {"mpi_oversubscribe", "false"},
                                        {"pml_ucx_multi_send_nb", "true"},
                                        {"orte_hnp_uri", ""}};
  const core::ControlVariables run = {{"btl_vader_eager_limit", "1024"},
                                      {"mpi_oversubscribe", "false"},
                                      {"pml_ucx_multi_send_nb", "false"},
                                      {"orte_hnp_uri", "1795751936.0;tcp://192.0.2.2:50909"}};
  const std::map<std::string, std::string> environment = {
      {"OMPI_MCA_btl_vader_eager_limit", "1024"},
      {"OMPI_MCA_mpi_oversubscribe", "0"},
      {"OMPI_MCA_btl_vadr_eager_limit", "8"},
      {"MPICH_INTERFACE_HOSTNAME", "h1"},
      {"UCX_TLS", "tcp"}};
  const auto changes = core::changed_variables(environment, clean, run);
  ASSERT_EQ(changes.changed.size(), 1u);
  EXPECT_EQ(changes.changed[0].name, "btl_vader_eager_limit");
  EXPECT_EQ(changes.changed[0].value, "1024");
  EXPECT_EQ(changes.changed[0].library_default, "4096");
  EXPECT_EQ(changes.unknown, std::vector<std::string>{"OMPI_MCA_btl_vadr_eager_limit"});
  EXPECT_EQ(core::changed_variables_text(changes),
            "btl_vader_eager_limit=1024 (default 4096); OMPI_MCA_btl_vadr_eager_limit names no "
            "control variable of this library");
  EXPECT_EQ(core::changed_variables_text(core::changed_variables({}, clean, run)), "none");
  EXPECT_EQ(core::changed_variables_text(core::changed_variables(
                {{"MPIR_CVAR_X", "a"}}, {{"MPIR_CVAR_X", ""}}, {{"MPIR_CVAR_X", "a"}})),
            "MPIR_CVAR_X=a (default empty)");
}

// compare reads a variable's control variable on both sides: where one side did not set it, its
// recorded default shows.
TEST(ControlVariables, CompareNamesAChangedControlVariableWithItsDefault) {
  auto a = run_recording(1, {}, "vm: ranks 0-1 on CPUs 0-1");
  a.info.control_variables = {{"btl_vader_eager_limit", "4096"}, {"orte_hnp_uri", "1"}};
  auto b =
      run_recording(2, {{"OMPI_MCA_btl_vader_eager_limit", "1024"}}, "vm: ranks 0-1 on CPUs 0-1");
  b.info.control_variables = {{"btl_vader_eager_limit", "1024"}, {"orte_hnp_uri", "2"}};
  const auto c = report::compare_runs({a}, {b}, report::CompareSettings{});
  EXPECT_EQ(c.provenance_differences,
            (std::vector<std::string>{"OMPI_MCA_btl_vader_eager_limit: A unset; B 1024",
                                      "control variable btl_vader_eager_limit: A 4096; B 1024"}));
}
