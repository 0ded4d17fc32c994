// The library's algorithm control variables (tune.hpp): Open MPI 4.1's coll/tuned gives each as an
// enumeration ("0 ignore, 1 basic_linear, ..."); MPICH 4.0 lists them in the description only, so
// each name found there is given to a child process of mpiscope in its environment
// (MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM=<name>), and the number the library reads for it, if any,
// is the algorithm's.
#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "core/control_variables.hpp"
#include "core/text.hpp"
#include "suites/tune/tune.hpp"

namespace mpiscope::tune {
namespace {

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string open_mpi_variable(const std::string& collective) {
  return "coll_tuned_" + core::to_lower(collective) + "_algorithm";
}
std::string mpich_variable(const std::string& collective) {
  return "MPIR_CVAR_" + upper(collective) + "_INTRA_ALGORITHM";
}

// The tool interface, opened once per process and left open: MPICH 4.0 loses its variables
// (MPI_T_cvar_get_index finds none, MPI_T_cvar_get_num crashes) when it is finalized and opened
// again in one process, as rank 0 would between finding the algorithms and forcing them.
bool tool_interface_open() {
  static const bool open = [] {
    int provided = 0;
    return MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS;
  }();
  return open;
}

// The variable's index, or -1.
int variable_index(const std::string& name) {
  int count = 0;
  if (MPI_T_cvar_get_num(&count) != MPI_SUCCESS) return -1;
  for (int i = 0; i < count; ++i) {
    char got[256];
    int length = sizeof got, verbosity = 0, binding = 0, scope = 0;
    MPI_Datatype type;
    MPI_T_enum enumeration;
    if (MPI_T_cvar_get_info(i, got, &length, &verbosity, &type, &enumeration, nullptr, nullptr,
                            &binding, &scope) == MPI_SUCCESS &&
        name == got)
      return i;
  }
  return -1;
}

struct VariableInfo {
  int index = -1;
  std::string description;
  std::vector<Algorithm> items;  // its enumeration, if it has one
};

std::optional<VariableInfo> variable_info(const std::string& name) {
  const int index = variable_index(name);
  if (index < 0) return std::nullopt;
  char got_name[256], description[8192];
  int name_length = sizeof got_name, description_length = sizeof description, verbosity = 0,
      binding = 0, scope = 0;
  MPI_Datatype type;
  MPI_T_enum enumeration = MPI_T_ENUM_NULL;
  if (MPI_T_cvar_get_info(index, got_name, &name_length, &verbosity, &type, &enumeration,
                          description, &description_length, &binding, &scope) != MPI_SUCCESS ||
      type != MPI_INT)
    return std::nullopt;
  VariableInfo info;
  info.index = index;
  info.description = description;
  if (enumeration != MPI_T_ENUM_NULL) {
    int items = 0;
    char enum_name[256];
    int enum_name_length = sizeof enum_name;
    if (MPI_T_enum_get_info(enumeration, &items, enum_name, &enum_name_length) == MPI_SUCCESS)
      for (int i = 0; i < items; ++i) {
        int value = 0;
        char item[256];
        int item_length = sizeof item;
        if (MPI_T_enum_get_item(enumeration, i, &value, item, &item_length) == MPI_SUCCESS)
          info.items.push_back({value, item});
      }
  }
  return info;
}

core::ControlVariables read_or_fail(const std::map<std::string, std::string>& overrides) {
  auto reading = core::read_control_variables_under(overrides);
  if (!reading)
    throw std::runtime_error(
        "a child process reading MPICH's algorithm variables failed or took over 20 s");
  return std::move(*reading);
}

// MPICH: which of each glued word's candidates the library accepts, and as which number, found
// in rounds of one child each (every variable tries its next candidate in the same child).
void resolve_mpich_names(std::vector<AlgorithmVariable>& variables,
                         const std::vector<std::vector<std::string>>& glued) {
  struct Search {
    std::size_t entry = 1;  // entry 0 is "auto", the library's own choice (value 0)
    std::vector<std::string> candidates;
    std::size_t next = 0;
  };
  std::vector<Search> search(variables.size());
  const auto start_entry = [&](std::size_t v) {
    auto& s = search[v];
    s.candidates =
        s.entry < glued[v].size() ? name_candidates(glued[v][s.entry]) : std::vector<std::string>{};
    s.next = 0;
  };
  for (std::size_t v = 0; v < variables.size(); ++v) start_entry(v);
  for (;;) {
    std::map<std::string, std::string> overrides;
    for (std::size_t v = 0; v < variables.size(); ++v) {
      auto& s = search[v];
      while (s.entry < glued[v].size() && s.next >= s.candidates.size()) {
        ++s.entry;  // no candidate accepted: the entry is left out
        start_entry(v);
      }
      if (s.entry < glued[v].size()) overrides[variables[v].variable] = s.candidates[s.next];
    }
    if (overrides.empty()) return;
    // A name MPICH does not accept fails the child's whole tool interface (it reads nothing):
    // then each variable's candidate is tried in a child of its own.
    const auto reading = read_or_fail(overrides);
    for (std::size_t v = 0; v < variables.size(); ++v) {
      const auto tried = overrides.find(variables[v].variable);
      if (tried == overrides.end()) continue;
      const auto alone = reading.empty() ? read_or_fail({*tried}) : core::ControlVariables{};
      const auto& of = reading.empty() ? alone : reading;
      const auto read = of.find(variables[v].variable);
      const int value = read == of.end() ? 0 : std::atoi(read->second.c_str());
      auto& s = search[v];
      const auto& known = variables[v].algorithms;
      if (value != 0 && std::none_of(known.begin(), known.end(),
                                     [&](const Algorithm& a) { return a.value == value; })) {
        variables[v].algorithms.push_back({value, tried->second});
        ++s.entry;
        start_entry(v);
      } else {
        ++s.next;
      }
    }
  }
}

}  // namespace

const std::vector<std::string>& tunable_collectives() {
  static const std::vector<std::string> list = {"Allreduce", "Bcast",    "Reduce",
                                                "Allgather", "Alltoall", "Barrier",
                                                "Gather",    "Scatter",  "Reduce_scatter"};
  return list;
}

std::vector<std::string> glued_names(const std::string& description) {
  std::vector<std::string> out;
  for (std::size_t at = description.find(" - "); at != std::string::npos;
       at = description.find(" - ", at + 3)) {
    std::size_t end = at;
    while (end > 0 && description[end - 1] == ' ') --end;
    std::size_t begin = end;
    while (begin > 0) {
      const char c = description[begin - 1];
      if (!(std::islower(static_cast<unsigned char>(c)) ||
            std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
        break;
      --begin;
    }
    if (begin < end) out.push_back(description.substr(begin, end - begin));
  }
  return out;
}

std::vector<std::string> name_candidates(const std::string& glued) {
  std::vector<std::string> out;
  // Most descriptions end "... algorithm" before the next name: that split first.
  const auto after = glued.rfind("algorithm");
  if (after != std::string::npos && after + 9 < glued.size())
    out.push_back(glued.substr(after + 9));
  for (std::size_t i = 0; i < glued.size(); ++i)
    if (std::islower(static_cast<unsigned char>(glued[i])) &&
        std::find(out.begin(), out.end(), glued.substr(i)) == out.end())
      out.push_back(glued.substr(i));
  return out;
}

std::vector<AlgorithmVariable> offered_algorithms(const std::vector<std::string>& collectives) {
  if (!tool_interface_open()) return {};
  std::vector<AlgorithmVariable> open_mpi, mpich;
  std::vector<std::vector<std::string>> mpich_glued;
  for (const auto& collective : collectives) {
    if (const auto info = variable_info(open_mpi_variable(collective)); info) {
      AlgorithmVariable v{collective, open_mpi_variable(collective), {}};
      v.algorithms = info->items;  // value 0, "ignore": the library's own decision
      std::sort(v.algorithms.begin(), v.algorithms.end(),
                [](const Algorithm& a, const Algorithm& b) { return a.value < b.value; });
      if (v.algorithms.size() > 1 && v.algorithms.front().value == 0)
        open_mpi.push_back(std::move(v));
    } else if (const auto mpich_info = variable_info(mpich_variable(collective)); mpich_info) {
      auto glued = glued_names(mpich_info->description);
      if (glued.size() < 2 || glued.front().size() < 4 ||
          glued.front().compare(glued.front().size() - 4, 4, "auto") != 0)
        continue;  // not the form this reads: no "auto - ..." first
      mpich.push_back({collective, mpich_variable(collective), {{0, "auto"}}});
      mpich_glued.push_back(std::move(glued));
    }
  }
  if (!mpich.empty()) resolve_mpich_names(mpich, mpich_glued);
  std::vector<AlgorithmVariable> out;
  for (auto* list : {&open_mpi, &mpich})
    for (auto& v : *list)
      if (v.algorithms.size() > 1) out.push_back(std::move(v));
  return out;
}

void set_algorithm(const std::string& variable, int value) {
  const int index = tool_interface_open() ? variable_index(variable) : -1;
  if (index < 0)
    throw std::runtime_error("the MPI library's control variable " + variable +
                             " cannot be found through its tool interface");
  MPI_T_cvar_handle handle;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS)
    throw std::runtime_error("the MPI library gives no handle for " + variable);
  const int rc = MPI_T_cvar_write(handle, &value);
  int read = -1;
  if (rc == MPI_SUCCESS) MPI_T_cvar_read(handle, &read);
  MPI_T_cvar_handle_free(&handle);
  if (rc != MPI_SUCCESS || read != value)
    throw std::runtime_error("the MPI library did not let " + variable + " be set to " +
                             std::to_string(value) + " through its tool interface");
}

}  // namespace mpiscope::tune
