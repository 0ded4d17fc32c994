// Options declared once as data (IOR's option tables): each entry's name, value, help text and
// setter drive the CLI11 front ends, IMB's own single-dash parser and the hand-written help
// screens alike, so that a shared option cannot be spelt, checked or described differently by
// two suites.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mpiscope::cli {

template <class Options>
struct OptionSpec {
  std::string name;        // "--json"
  std::string value_name;  // "FILE"; empty: a flag without a value
  std::string help;
  // Parses and stores the value ("" for a flag); throws std::invalid_argument naming the option.
  std::function<void(Options&, const std::string&)> set;
  // The value as the help shows it (empty: no default shown).
  std::function<std::string(const Options&)> shown_default = nullptr;
};

// Registers every entry on a CLI11 app; the setter's message is the error as it is.
template <class Options>
void add_option_table(CLI::App& app, Options& o, const std::vector<OptionSpec<Options>>& table) {
  for (const auto& spec : table) {
    if (spec.value_name.empty()) {
      app.add_flag_callback(
          spec.name, [&o, set = spec.set] { set(o, ""); }, spec.help);
      continue;
    }
    auto* option = app.add_option_function<std::string>(
        spec.name,
        [&o, set = spec.set](const std::string& value) {
          try {
            set(o, value);
          } catch (const std::invalid_argument& e) {
            throw CLI::ValidationError(e.what());
          }
        },
        spec.help);
    option->type_name(spec.value_name);
    if (spec.shown_default) option->default_str(spec.shown_default(o));
  }
}

// For hand-written parsers: when args[i] names an entry, stores it (taking the value at i + 1,
// advancing i) and returns true. Throws std::invalid_argument for a missing or bad value.
template <class Options>
bool take_option(const std::vector<OptionSpec<Options>>& table,
                 const std::vector<std::string>& args, std::size_t& i, Options& o) {
  for (const auto& spec : table) {
    if (args[i] != spec.name) continue;
    if (spec.value_name.empty()) {
      spec.set(o, "");
    } else {
      if (i + 1 >= args.size()) throw std::invalid_argument("option " + args[i] + " needs a value");
      spec.set(o, args[++i]);
    }
    return true;
  }
  return false;
}

// "  --name VALUE  help (default D)", the help wrapped at 92 columns under column 16.
template <class Options>
std::string option_table_help(const std::vector<OptionSpec<Options>>& table,
                              const Options& defaults) {
  constexpr std::size_t kIndent = 16, kWidth = 92;
  std::string out;
  for (const auto& spec : table) {
    std::string head = "  " + spec.name + (spec.value_name.empty() ? "" : " " + spec.value_name);
    std::string text = spec.help;
    if (spec.shown_default) text += " (default " + spec.shown_default(defaults) + ")";
    std::string line = head;
    if (head.size() + 2 > kIndent) {
      out += head + "\n";
      line.clear();
    }
    line.resize(kIndent, ' ');
    std::size_t used = kIndent;
    std::size_t at = 0;
    bool first_word = true;
    while (at < text.size()) {
      const auto end = text.find(' ', at);
      const std::string word = text.substr(at, end == std::string::npos ? end : end - at);
      at = end == std::string::npos ? text.size() : end + 1;
      if (!first_word && used + 1 + word.size() > kWidth) {
        out += line + "\n";
        line.assign(kIndent, ' ');
        used = kIndent;
        first_word = true;
      }
      line += (first_word ? "" : " ") + word;
      used += (first_word ? 0 : 1) + word.size();
      first_word = false;
    }
    out += line + "\n";
  }
  return out;
}

// "[--json FILE]  [--csv FILE]  …" lines for a synopsis, each starting with `indent`.
template <class Options>
std::string option_table_synopsis(const std::vector<OptionSpec<Options>>& table,
                                  const std::string& indent) {
  constexpr std::size_t kWidth = 92;
  std::string out, line = indent;
  for (const auto& spec : table) {
    const std::string item =
        "[" + spec.name + (spec.value_name.empty() ? "" : " " + spec.value_name) + "]";
    if (line.size() > indent.size() && line.size() + 2 + item.size() > kWidth) {
      out += line + "\n";
      line = indent;
    }
    line += (line.size() > indent.size() ? "  " : "") + item;
  }
  return out + line + "\n";
}

}  // namespace mpiscope::cli
