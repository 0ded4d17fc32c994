#include "output/files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace mpiscope::output {

void ensure_writable(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw OutputError("cannot write '" + path + "': " + std::strerror(errno));
  std::fclose(f);
}

void replace_file(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) throw OutputError("cannot write '" + tmp + "': " + std::strerror(errno));
  const bool written = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  if (std::fclose(f) != 0 || !written || std::rename(tmp.c_str(), path.c_str()) != 0)
    throw OutputError("cannot write '" + path + "': " + std::strerror(errno));
}

}  // namespace mpiscope::output
