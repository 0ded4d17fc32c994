// The MPI library's control variables through the MPI tool information interface (MPI_T_cvar_*),
// recorded with every run (issue 32): every variable's value, and the ones the run's environment
// changed from the library's defaults. The run's rank 0 starts two child processes of this
// executable before MPI_Init (they read while MPI starts): each opens only the tool interface, one
// with the run's environment (the values recorded), one with its configuration variables removed
// (core/provenance.hpp says which: the defaults, which the standard interface does not give).
// Children, not rank 0 itself: Open MPI's MPI_T_init_thread loads every component, and one of
// them (PSM's libinfinipath) sleeps 0.2 s in its constructor. A variable counts as changed when the
// environment names it (Open MPI's OMPI_MCA_<name>, MPICH's MPIR_CVAR_<name>, MPICH_<name>,
// MPIR_PARAM_<name>: mpirun's --mca and -genv travel through these too) and the two readings
// differ. Only named ones: a library may read an unset variable differently in two processes
// (Open MPI 4.1's pml_ucx_multi_send_nb reads true or false at random), and what its own parameter
// files set counts as its default.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mpiscope::core {

// Name -> value as text: numbers in decimal, an enumeration's item by its name, a string as it is,
// several values comma-separated; a name holding KEY, TOKEN, SECRET or PASSWORD reads "(set)".
using ControlVariables = std::map<std::string, std::string>;

// The setting that names the changed variables ("btl_vader_eager_limit=1024 (default 4096)").
inline constexpr const char* kChangedControlVariablesSetting = "mpi_t_changed";
// The hidden argument the children are started with: `mpiscope --mpi-t-control-variables` prints
// read_control_variables() as one JSON object and starts no MPI.
inline constexpr const char* kPrintControlVariablesArgument = "--mpi-t-control-variables";

// Every control variable bound to no MPI object that the library lets this process read, between
// an MPI_T_init_thread and MPI_T_finalize of its own (so before, after or without MPI_Init);
// empty where the tool interface is not usable.
ControlVariables read_control_variables();
int print_control_variables();
// The reading of one child process started now under this process's environment with `overrides`
// set (the library's reading of a value it is given by its environment); nullopt when the child
// failed or took over 20 s.
std::optional<ControlVariables> read_control_variables_under(
    const std::map<std::string, std::string>& overrides);

struct ChangedVariable {
  std::string name, value, library_default;
};
struct Changes {
  std::vector<ChangedVariable> changed;  // by name
  std::vector<std::string> unknown;      // OMPI_MCA_/MPIR_CVAR_ variables naming none (a typo)
};
// The control variables an environment variable sets, by the libraries' conventions (a name the
// library does not have is harmless: it is looked up).
std::vector<std::string> variables_named_by(const std::string& environment_variable);
// The changes `environment` (core::configuration_environment) made: the named variables whose
// value in the run differs from the one without the environment (`clean`).
Changes changed_variables(const std::map<std::string, std::string>& environment,
                          const ControlVariables& clean, const ControlVariables& run);
// "btl_vader_eager_limit=1024 (default 4096), mpi_yield_when_idle=true (default false)" or "none",
// then "; OMPI_MCA_btl_vadr_eager_limit names no control variable of this library" for each.
std::string changed_variables_text(const Changes& changes);

// The children: started before MPI_Init on the process that will be rank 0, and finished by
// finish_control_variable_probe when the run's information is collected. The second is not
// started when the environment names no control variable (nothing can then be changed by it).
void start_control_variable_probe();
struct ControlVariableRecord {
  ControlVariables values;  // empty when not read
  // kChangedControlVariablesSetting's value: the changed variables, "none", or why they are not
  // known (a child failed, or took over 20 s and was ended); "" when no probe was started (a test
  // program that collects a run's information without the front end).
  std::string changed;
};
ControlVariableRecord finish_control_variable_probe();

}  // namespace mpiscope::core
