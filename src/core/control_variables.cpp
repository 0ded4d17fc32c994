#include "core/control_variables.hpp"

#include <fcntl.h>
#include <mpi.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>

#include "core/provenance.hpp"

extern char** environ;

namespace mpiscope::core {

namespace {

// An enumeration's item named by its value ("true", "ob1"), or the number where it has none.
std::string enum_item(MPI_T_enum type, long long value) {
  int items = 0;
  char name[256];
  int length = sizeof name;
  if (MPI_T_enum_get_info(type, &items, name, &length) != MPI_SUCCESS) return "";
  for (int i = 0; i < items; ++i) {
    int item = 0;
    length = sizeof name;
    if (MPI_T_enum_get_item(type, i, &item, name, &length) == MPI_SUCCESS && item == value)
      return name;
  }
  return "";
}

// One value of `type` at `data` as text; nullopt for a type the standard does not list for
// control variables.
std::optional<std::string> value_text(MPI_Datatype type, const unsigned char* data,
                                      MPI_T_enum enumeration) {
  long long integer = 0;
  bool is_integer = true;
  if (type == MPI_INT)
    integer = *reinterpret_cast<const int*>(data);
  else if (type == MPI_UNSIGNED)
    integer = *reinterpret_cast<const unsigned*>(data);
  else if (type == MPI_UNSIGNED_LONG)
    integer = static_cast<long long>(*reinterpret_cast<const unsigned long*>(data));
  else if (type == MPI_UNSIGNED_LONG_LONG)
    integer = static_cast<long long>(*reinterpret_cast<const unsigned long long*>(data));
  else if (type == MPI_COUNT)
    integer = static_cast<long long>(*reinterpret_cast<const MPI_Count*>(data));
  else if (type == MPI_C_BOOL)
    integer = *reinterpret_cast<const bool*>(data) ? 1 : 0;
  else
    is_integer = false;
  if (is_integer) {
    if (enumeration != MPI_T_ENUM_NULL)
      if (auto item = enum_item(enumeration, integer); !item.empty()) return item;
    if (type == MPI_C_BOOL) return integer ? "true" : "false";
    return std::to_string(integer);
  }
  if (type == MPI_DOUBLE) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", *reinterpret_cast<const double*>(data));
    return text;
  }
  return std::nullopt;
}

int type_size(MPI_Datatype type) {
  if (type == MPI_C_BOOL) return sizeof(bool);
  if (type == MPI_INT) return sizeof(int);
  if (type == MPI_UNSIGNED) return sizeof(unsigned);
  if (type == MPI_UNSIGNED_LONG) return sizeof(unsigned long);
  if (type == MPI_UNSIGNED_LONG_LONG) return sizeof(unsigned long long);
  if (type == MPI_COUNT) return sizeof(MPI_Count);
  if (type == MPI_DOUBLE) return sizeof(double);
  return 0;
}

// Variable `index`'s value, or nullopt where it is bound to an object or cannot be read.
std::optional<std::pair<std::string, std::string>> read_variable(int index) {
  char name[1024], description[16];
  int name_length = sizeof name, description_length = sizeof description;
  int verbosity = 0, bind = 0, scope = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum enumeration = MPI_T_ENUM_NULL;
  if (MPI_T_cvar_get_info(index, name, &name_length, &verbosity, &type, &enumeration, description,
                          &description_length, &bind, &scope) != MPI_SUCCESS ||
      bind != MPI_T_BIND_NO_OBJECT)
    return std::nullopt;
  MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS) return std::nullopt;
  std::optional<std::string> value;
  const int size = type == MPI_CHAR ? 1 : type_size(type);
  if (size > 0 && count > 0 && count <= 1 << 16) {
    // A string's count includes its terminator; one spare element guards a library that forgets.
    std::vector<unsigned char> data(static_cast<std::size_t>(size) * (count + 1), 0);
    if (MPI_T_cvar_read(handle, data.data()) == MPI_SUCCESS) {
      if (type == MPI_CHAR) {
        value = std::string(reinterpret_cast<const char*>(data.data()));
      } else {
        std::string joined;
        for (int i = 0; i < count; ++i) {
          const auto one =
              value_text(type, data.data() + static_cast<std::size_t>(i) * size, enumeration);
          if (!one) break;
          joined += (i ? "," : "") + *one;
          if (i + 1 == count) value = joined;
        }
      }
    }
  }
  MPI_T_cvar_handle_free(&handle);
  if (!value) return std::nullopt;
  return std::pair{std::string(name), names_a_secret(name) ? "(set)" : *value};
}

// A child of this executable printing its reading, its standard output read through a pipe.
struct Child {
  pid_t pid = -1;
  int out = -1;
  std::string text;
};

std::optional<Child> spawn_reader(const std::vector<std::string>& environment) {
  char executable[4096];
  const ssize_t length = readlink("/proc/self/exe", executable, sizeof executable - 1);
  if (length <= 0) return std::nullopt;
  executable[length] = '\0';
  int pipe_ends[2];
  if (pipe2(pipe_ends, O_CLOEXEC) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::string program = "mpiscope", argument = kPrintControlVariablesArgument;
  std::array<char*, 3> argv = {program.data(), argument.data(), nullptr};
  std::vector<std::string> owned = environment;
  std::vector<char*> envp;
  for (auto& entry : owned) envp.push_back(entry.data());
  envp.push_back(nullptr);
  Child child;
  const int rc = posix_spawn(&child.pid, executable, &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_ends[1]);
  if (rc != 0) {
    close(pipe_ends[0]);
    return std::nullopt;
  }
  child.out = pipe_ends[0];
  return child;
}

// The probe's children: [0] under the run's environment, [1] (when the environment names a
// control variable) without its configuration variables.
class Probe {
 public:
  void start() {
    const auto configuration = configuration_environment(environ);
    std::vector<std::string> full, clean;
    for (char** entry = environ; *entry != nullptr; ++entry) {
      const std::string text(*entry);
      full.push_back(text);
      if (configuration.count(text.substr(0, text.find('='))) == 0) clean.push_back(text);
    }
    const bool names_one =
        std::any_of(configuration.begin(), configuration.end(),
                    [](const auto& v) { return !variables_named_by(v.first).empty(); });
    if (names_one)
      start_each({full, clean});
    else
      start_each({full});
  }
  // One child under each environment.
  void start_each(const std::vector<std::vector<std::string>>& environments) {
    started_ = true;
    for (const auto& environment : environments) {
      auto child = spawn_reader(environment);
      if (!child) {
        failure_ = "a child process could not be started";
        end();
        return;
      }
      children_.push_back(std::move(*child));
    }
  }
  bool started() const { return started_; }
  // The children's readings (one or two), or nullopt with failure_ saying why.
  std::optional<std::vector<ControlVariables>> finish() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (;;) {
      std::vector<pollfd> open;
      std::vector<Child*> of;
      for (auto& c : children_)
        if (c.out >= 0) {
          open.push_back({c.out, POLLIN, 0});
          of.push_back(&c);
        }
      if (open.empty()) break;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        failure_ = "the library's tool interface took over 20 s in a child process";
        break;
      }
      if (poll(open.data(), open.size(), static_cast<int>(left.count())) < 0 && errno != EINTR)
        break;
      for (std::size_t i = 0; i < open.size(); ++i) {
        if (open[i].revents == 0) continue;
        Child& c = *of[i];
        char buffer[65536];
        const ssize_t got = read(c.out, buffer, sizeof buffer);
        if (got > 0) {
          c.text.append(buffer, static_cast<std::size_t>(got));
        } else if (got == 0 || errno != EINTR) {
          close(c.out);
          c.out = -1;
        }
      }
    }
    end();
    if (!failure_.empty()) return std::nullopt;
    try {
      std::vector<ControlVariables> readings;
      for (const auto& c : children_)
        readings.push_back(nlohmann::json::parse(c.text).get<ControlVariables>());
      return readings;
    } catch (const std::exception&) {
      failure_ = "a child process did not print the library's variables";
      return std::nullopt;
    }
  }
  const std::string& failure() const { return failure_; }
  ~Probe() { end(); }

 private:
  // Ends the children still running (by their PIDs) and reaps all.
  void end() {
    for (auto& c : children_) {
      if (c.out >= 0) {
        close(c.out);
        c.out = -1;
      }
      if (c.pid > 0) {
        if (waitpid(c.pid, nullptr, WNOHANG) == 0) {
          kill(c.pid, SIGKILL);
          waitpid(c.pid, nullptr, 0);
        }
        c.pid = -1;
      }
    }
  }
  bool started_ = false;
  std::vector<Child> children_;
  std::string failure_;
};

Probe& the_probe() {
  static Probe probe;
  return probe;
}

}  // namespace

ControlVariables read_control_variables() {
  ControlVariables variables;
  int provided = 0, count = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return variables;
  if (MPI_T_cvar_get_num(&count) == MPI_SUCCESS)
    for (int i = 0; i < count; ++i)
      if (auto variable = read_variable(i)) variables.insert(std::move(*variable));
  MPI_T_finalize();
  return variables;
}

std::optional<ControlVariables> read_control_variables_under(
    const std::map<std::string, std::string>& overrides) {
  Probe child;
  child.start_each({environment_with(overrides)});
  auto readings = child.finish();
  if (!readings || readings->empty()) return std::nullopt;
  return std::move(readings->front());
}

int print_control_variables() {
  const std::string text = nlohmann::json(read_control_variables()).dump();
  return std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0
             ? 0
             : 1;
}

std::vector<std::string> variables_named_by(const std::string& environment_variable) {
  const std::string_view name = environment_variable;
  if (name.starts_with("OMPI_MCA_")) return {std::string(name.substr(9))};
  if (name.starts_with("MPIR_CVAR_")) return {std::string(name)};
  for (const std::string_view prefix : {"MPICH_", "MPIR_PARAM_"})
    if (name.starts_with(prefix)) return {"MPIR_CVAR_" + std::string(name.substr(prefix.size()))};
  return {};
}

Changes changed_variables(const std::map<std::string, std::string>& environment,
                          const ControlVariables& clean, const ControlVariables& run) {
  Changes changes;
  std::set<std::string> seen;
  for (const auto& [variable, value] : environment) {
    bool names_one = false;
    for (const auto& name : variables_named_by(variable)) {
      const auto in_run = run.find(name), by_default = clean.find(name);
      if (in_run == run.end() && by_default == clean.end()) continue;
      names_one = true;
      if (in_run == run.end() || by_default == clean.end() ||
          in_run->second == by_default->second || !seen.insert(name).second)
        continue;
      changes.changed.push_back({name, in_run->second, by_default->second});
    }
    // Only the prefixes that belong to the libraries' variables alone (MPICH_ also names
    // launcher and vendor settings that are no control variable).
    const std::string_view name = variable;
    if (!names_one && (name.starts_with("OMPI_MCA_") || name.starts_with("MPIR_CVAR_")))
      changes.unknown.push_back(variable);
  }
  return changes;
}

std::string changed_variables_text(const Changes& changes) {
  std::string text;
  for (const auto& c : changes.changed)
    text += (text.empty() ? "" : ", ") + c.name + "=" + c.value + " (default " +
            (c.library_default.empty() ? "empty" : c.library_default) + ")";
  if (text.empty()) text = "none";
  for (const auto& variable : changes.unknown)
    text += "; " + variable + " names no control variable of this library";
  return text;
}

void start_control_variable_probe() {
  the_probe().start();
}

ControlVariableRecord finish_control_variable_probe() {
  Probe& probe = the_probe();
  if (!probe.started()) return {};
  const auto readings = probe.finish();
  if (!readings || readings->empty()) return {{}, "unknown: " + probe.failure()};
  if (readings->size() == 1) return {readings->front(), "none"};
  return {readings->at(0),
          changed_variables_text(changed_variables(configuration_environment(environ),
                                                   readings->at(1), readings->at(0)))};
}

}  // namespace mpiscope::core
