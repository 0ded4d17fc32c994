#include "cli/man_pages.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "cli/registry.hpp"
#include "core/run_info.hpp"

namespace mpiscope::cli {
namespace {

// Text for roff: backslashes and hyphens escaped (a hyphen stays an ASCII minus, so that
// options can be searched and copied), a line starting with a control character guarded.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The help screen of `args` run by this executable (`self`), or "" when it failed.
std::string help_of(const std::string& self, const std::vector<std::string>& args) {
  for (const char* flag : {"--help", "-help"}) {
    std::string command = quoted(self);
    for (const auto& a : args) command += " " + quoted(a);
    command += std::string(" ") + flag + " 2>/dev/null";
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return "";
    std::string text;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
      text.append(buffer, n);
    const int status = pclose(pipe);
    if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && !text.empty()) return text;
  }
  return "";
}

bool write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

}  // namespace

std::string man_page(const std::string& name, const std::string& summary, const std::string& help) {
  return ".TH \"" + roff(name) + "\" \"1\" \"\" \"mpiscope " +
         std::string(core::mpiscope_version()) + "\" \"mpiscope\"\n.SH NAME\n" + roff(name) +
         " \\- " + roff(summary) + "\n.SH DESCRIPTION\n.nf\n" + roff(help) +
         (help.empty() || help.back() == '\n' ? "" : "\n") +
         ".fi\n.SH SEE ALSO\nmpiscope(1); the README and docs/ in share/doc/mpiscope.\n";
}

int write_man_pages(const std::string& directory, const std::string& overview) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error).string();
  if (error) {
    std::fprintf(stderr, "mpiscope: error: cannot find this executable\n");
    return 1;
  }
  const std::filesystem::path dir(directory);
  bool ok = write(dir / "mpiscope.1", man_page("mpiscope",
                                               "measure how well an MPI library and its machine "
                                               "communicate and do parallel I/O",
                                               overview));
  for (const auto& s : registered_suites()) {
    const auto help = help_of(self, {s.name});
    if (help.empty()) {
      std::fprintf(stderr, "mpiscope: error: no help screen from 'mpiscope %s --help'\n",
                   s.name.c_str());
      return 1;
    }
    ok &=
        write(dir / ("mpiscope-" + s.name + ".1"), man_page("mpiscope-" + s.name, s.summary, help));
    for (const auto& alias : s.aliases) {
      std::vector<std::string> args = {s.name};
      args.insert(args.end(), alias.leading_args.begin(), alias.leading_args.end());
      const auto alias_help = help_of(self, args);
      if (alias_help.empty()) {
        std::fprintf(stderr, "mpiscope: error: no help screen for %s\n", alias.program.c_str());
        return 1;
      }
      ok &= write(dir / (alias.program + ".1"),
                  man_page(alias.program, s.summary + " (mpiscope " + s.name + ")", alias_help));
    }
  }
  if (!ok) {
    std::fprintf(stderr, "mpiscope: error: cannot write the man pages in %s\n", directory.c_str());
    return 1;
  }
  return 0;
}

}  // namespace mpiscope::cli
