#include "core/install_paths.hpp"

#include <filesystem>
#include <system_error>

namespace mpiscope::core {

std::optional<std::string> data_directory() {
  std::error_code error;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return std::nullopt;
  const auto data = executable.parent_path().parent_path() / "share" / "mpiscope";
  if (!std::filesystem::is_directory(data, error)) return std::nullopt;
  return data.string();
}

std::optional<std::string> skampi_configuration(const std::string& name) {
  std::error_code error;
  if (std::filesystem::exists(name, error)) return name;
  // A path names a file of the user's, never a shipped one.
  if (name.empty() || name.find('/') != std::string::npos) return std::nullopt;
  const auto data = data_directory();
  if (!data) return std::nullopt;
  for (const auto& file : {name, name + ".skampi"}) {
    const auto shipped = std::filesystem::path(*data) / "skampi" / file;
    if (std::filesystem::is_regular_file(shipped, error)) return shipped.string();
  }
  return std::nullopt;
}

}  // namespace mpiscope::core
