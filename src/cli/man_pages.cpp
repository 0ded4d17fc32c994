#include "cli/man_pages.hpp"

#include <sys/wait.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
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

std::size_t indent_of(const std::string& line) {
  const auto first = line.find_first_not_of(' ');
  return first == std::string::npos ? line.size() : first;
}

// A help screen line that names an option or positional: "  -m,--message-size TEXT   text",
// "  -npmin N      text", "  -imb_rules current|3.1" (its text on the lines below, indented
// deeper), or within a CLI11 "Positionals:" list "  config CONFIG   text". The term is what comes
// before the first run of two blanks.
struct Entry {
  std::string term, text;
};
std::optional<Entry> entry_of(const std::string& line, bool in_positionals) {
  const std::size_t indent = indent_of(line);
  if (indent == 0 || indent > 4 || indent == line.size()) return std::nullopt;
  if (line[indent] != '-' && !(in_positionals && indent == 2)) return std::nullopt;
  const auto gap = line.find("  ", indent);
  if (gap == std::string::npos) return Entry{line.substr(indent), ""};
  const auto text = line.find_first_not_of(' ', gap);
  return Entry{line.substr(indent, gap - indent),
               text == std::string::npos ? "" : line.substr(text)};
}

// The help screen as man(7): "Options:" and the like become sections, each option an indented
// paragraph (.TP) with the option in bold and its text filled, other long lines filled paragraphs,
// and everything else (usage synopses, lists, tables) as printed.
std::string help_as_roff(const std::string& help) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < help.size();) {
    const auto end = help.find('\n', at);
    lines.push_back(help.substr(at, end == std::string::npos ? std::string::npos : end - at));
    at = end == std::string::npos ? help.size() : end + 1;
  }
  std::string out;
  bool preformatted = false, in_positionals = false;
  const auto set_preformatted = [&](bool on) {
    if (on != preformatted) out += on ? ".nf\n" : ".fi\n";
    preformatted = on;
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty()) {
      if (preformatted) out += "\n";
      continue;
    }
    const std::size_t indent = indent_of(line);
    if (indent == 0 && line.size() < 40 && line.back() == ':' &&
        line.find(' ') == std::string::npos) {
      set_preformatted(false);
      std::string heading = line.substr(0, line.size() - 1);
      for (char& c : heading) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      out += ".SH " + roff(heading) + "\n";
      in_positionals = heading == "POSITIONALS";
      continue;
    }
    if (const auto entry = entry_of(line, in_positionals)) {
      set_preformatted(false);
      std::string text = entry->text;
      // Its text goes on while the lines are indented deeper than the entry and name no option.
      while (i + 1 < lines.size() && !lines[i + 1].empty() && indent_of(lines[i + 1]) > indent &&
             !entry_of(lines[i + 1], in_positionals)) {
        const auto& next = lines[++i];
        text += (text.empty() ? "" : " ") + next.substr(indent_of(next));
      }
      out += ".TP\n\\fB" + roff(entry->term) + "\\fR\n" + (text.empty() ? "" : roff(text) + "\n");
      continue;
    }
    if (indent == 0 && line.size() > 80) {
      set_preformatted(false);
      out += ".PP\n" + roff(line) + "\n";
      continue;
    }
    if (!preformatted) out += ".PP\n";
    set_preformatted(true);
    out += roff(line) + "\n";
  }
  set_preformatted(false);
  return out;
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
         " \\- " + roff(summary) + "\n.SH DESCRIPTION\n" + help_as_roff(help) +
         ".SH SEE ALSO\nmpiscope(1); the README and docs/ in share/doc/mpiscope.\n";
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
