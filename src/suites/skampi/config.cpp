#include "suites/skampi/config.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "cli/numbers.hpp"
#include "core/input_file.hpp"
#include "core/text.hpp"
#include "suites/skampi/datatypes.hpp"
#include "suites/skampi/instances.hpp"
#include "suites/skampi/patterns.hpp"

namespace mpiscope::skampi {

ConfigError::ConfigError(const std::string& file, int l, int c, const std::string& what)
    : std::runtime_error(file + ":" + std::to_string(l) + ":" + std::to_string(c) + ": " + what),
      line(l),
      column(c) {}

std::string BaseType::text() const {
  if (is_builtin()) return items[0].type;
  std::string s;
  for (const auto& i : items) {
    if (!s.empty()) s += ' ';
    s += "(" + std::to_string(i.count) + "," + std::to_string(i.offset) + "," + i.type + ")";
  }
  return s;
}

const char* variation_name(Variation v) {
  switch (v) {
    case Variation::kLength:
      return "Length";
    case Variation::kNodes:
      return "Nodes";
    case Variation::kChunks:
      return "Chunks";
    case Variation::kNone:
      return "None";
  }
  return "?";
}

const char* scale_name(Scale s) {
  switch (s) {
    case Scale::kFixedLinear:
      return "Fixed_linear";
    case Scale::kFixedLog:
      return "Fixed_log";
    case Scale::kDynamicLog:
      return "Dynamic_log";
  }
  return "?";
}

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

struct Token {
  std::string text;
  int line, column;
};

class Parser {
 public:
  Parser(const std::string& text, std::string file) : text_(text), file_(std::move(file)) {}

  Config parse() {
    Config c;
    c.file = file_;
    c.basetypes[1] = BaseType{{{1, 0, "MPI_CHAR"}}};
    bool in_measurements = false;
    std::istringstream in(text_);
    std::string line;
    int line_no = 0;
    std::size_t offset_of_rest = 0;
    std::size_t offset = 0;
    while (!in_measurements && std::getline(in, line)) {
      ++line_no;
      const std::size_t line_start = offset;
      offset += line.size() + 1;
      const auto first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos || line[first] == '#') continue;
      const int col = static_cast<int>(first) + 1;
      if (line[first] != '@')
        throw ConfigError(file_, line_no, col,
                          "expected a preamble line '@KEY value' or @MEASUREMENTS");
      auto key_end = line.find_first_of(" \t\r", first);
      if (key_end == std::string::npos) key_end = line.size();
      const std::string key = lower(line.substr(first + 1, key_end - first - 1));
      auto vfirst = line.find_first_not_of(" \t\r", key_end);
      std::string value;
      int vcol = static_cast<int>(key_end) + 1;
      if (vfirst != std::string::npos) {
        auto vlast = line.find_last_not_of(" \t\r");
        value = line.substr(vfirst, vlast - vfirst + 1);
        vcol = static_cast<int>(vfirst) + 1;
      }
      auto need_value = [&] {
        if (value.empty()) throw ConfigError(file_, line_no, vcol, "@" + key + " needs a value");
      };
      if (key == "measurements" || key == "measurement") {
        in_measurements = true;
        offset_of_rest = line_start + line.size() + 1;
        rest_line_ = line_no + 1;
        if (!value.empty())
          throw ConfigError(file_, line_no, vcol, "unexpected text after @MEASUREMENTS");
      } else if (key == "machine") {
        c.machine = value;
      } else if (key == "node") {
        c.node = value;
      } else if (key == "network") {
        c.network = value;
      } else if (key == "mpiversion") {
        c.mpiversion = value;
      } else if (key == "user") {
        c.user = value;
      } else if (key == "memory") {
        need_value();
        c.memory_kb = parse_int(value, line_no, vcol, "@MEMORY (KBytes)", 1, kMaxMemoryKb);
      } else if (key == "outfile") {
        need_value();
        c.outfile = value;
      } else if (key == "logfile") {
        need_value();
        c.logfile = value;
      } else if (key == "postproc") {
        need_value();
        c.postproc = parse_yes_no(value, line_no, vcol, "@POSTPROC");
      } else if (key == "cachewarmup") {
        need_value();
        c.cachewarmup =
            static_cast<int>(parse_int(value, line_no, vcol, "@CACHEWARMUP", 0, kMaxCacheWarmup));
      } else if (key == "method") {
        need_value();
        c.method = lower(value);
        if (c.method == "imb") c.method = "classic";
        if (c.method != "classic" && c.method != "accurate")
          throw ConfigError(file_, line_no, vcol, "@METHOD must be classic or accurate");
      } else if (key == "blocksize") {
        need_value();
        c.datatype_params.blocksize =
            static_cast<int>(parse_int(value, line_no, vcol, "@BLOCKSIZE", 1, kMaxBlocksize));
        blocksize_at_ = {line_no, vcol};
      } else if (key == "vectorstride") {
        need_value();
        c.datatype_params.vectorstride =
            static_cast<int>(parse_int(value, line_no, vcol, "@VECTORSTRIDE", 1, kMaxVectorstride));
        vectorstride_at_ = {line_no, vcol};
      } else if (key.rfind("basetype", 0) == 0 && key.size() > 8) {
        const int n = static_cast<int>(
            parse_int(key.substr(8), line_no, col + 9, "the number of a @BASETYPEn", 1, INT_MAX));
        need_value();
        c.basetypes[n] = parse_basetype(value, line_no, vcol);
      } else {
        throw ConfigError(file_, line_no, col,
                          "unknown preamble key @" + line.substr(first + 1, key_end - first - 1));
      }
    }
    if (!in_measurements)
      throw ConfigError(file_, line_no + 1, 1, "missing @MEASUREMENTS (no suite to run)");
    if (c.datatype_params.vectorstride < c.datatype_params.blocksize) {
      // Reported where the later of the two keys stands (a default stands nowhere).
      const auto at = std::max(blocksize_at_, vectorstride_at_);
      throw ConfigError(file_, at.first, at.second,
                        "@VECTORSTRIDE (" + std::to_string(c.datatype_params.vectorstride) +
                            ") is below @BLOCKSIZE (" +
                            std::to_string(c.datatype_params.blocksize) +
                            "): the blocks of the vector patterns would overlap");
    }
    tokenize(offset_of_rest < text_.size() ? text_.substr(offset_of_rest) : std::string());
    parse_suites(c);
    return c;
  }

 private:
  // An integer in [lo, hi]; one that does not fit is out of range, never wrapped.
  long parse_int(const std::string& s, int line, int col, const std::string& what, long lo,
                 long hi) {
    long v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range) ||
        r.ptr != s.data() + s.size())
      throw ConfigError(file_, line, col, what + ": '" + s + "' is not an integer");
    try {
      return cli::parse_integer<long>(s, what, lo, hi);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(file_, line, col, e.what());
    }
  }
  double parse_double(const std::string& s, int line, int col, const std::string& what,
                      const cli::NumberRange& range) {
    double v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
    if (s.empty() || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range) ||
        r.ptr != s.data() + s.size() || std::isnan(v))
      throw ConfigError(file_, line, col, what + ": '" + s + "' is not a number");
    try {
      return cli::parse_number(s, what, range);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(file_, line, col, e.what());
    }
  }
  bool parse_yes_no(const std::string& s, int line, int col, const std::string& what) {
    const auto l = lower(s);
    if (l == "yes" || l == "true" || l == "1") return true;
    if (l == "no" || l == "false" || l == "0") return false;
    throw ConfigError(file_, line, col, what + ": '" + s + "' is neither yes nor no");
  }

  // "MPI_INT" or a list of triples "(2,0,MPI_INT) (1,8,MPI_DOUBLE)".
  BaseType parse_basetype(const std::string& v, int line, int col) {
    BaseType b;
    if (v[0] != '(') {
      if (!is_builtin_type_name(v))
        throw ConfigError(file_, line, col, "unknown MPI type '" + v + "'");
      b.items.push_back({1, 0, v});
      return b;
    }
    std::size_t i = 0;
    std::vector<std::pair<long, long>> occupied;  // [first, last] data byte of each item so far
    while (i < v.size()) {
      if (std::isspace(static_cast<unsigned char>(v[i]))) {
        ++i;
        continue;
      }
      const int icol = col + static_cast<int>(i);
      if (v[i] != '(')
        throw ConfigError(file_, line, icol,
                          "expected '(' starting a (count, offset, type) triple");
      const auto close = v.find(')', i);
      if (close == std::string::npos) throw ConfigError(file_, line, icol, "missing ')'");
      std::vector<std::string> parts;
      std::string part;
      for (std::size_t k = i + 1; k < close; ++k) {
        if (v[k] == ',') {
          parts.push_back(part);
          part.clear();
        } else if (!std::isspace(static_cast<unsigned char>(v[k]))) {
          part += v[k];
        }
      }
      parts.push_back(part);
      if (parts.size() != 3)
        throw ConfigError(file_, line, icol, "a base type triple is (count, offset, type)");
      BaseTypeItem item;
      item.count = static_cast<int>(parse_int(parts[0], line, icol + 1, "count", 1, INT_MAX));
      item.offset = parse_int(parts[1], line, icol + 1, "offset", 0, INT_MAX);
      item.type = parts[2];
      if (item.count < 1 || item.offset < 0)
        throw ConfigError(file_, line, icol, "count must be >= 1 and offset >= 0");
      if (!is_builtin_type_name(item.type))
        throw ConfigError(file_, line, icol, "unknown MPI type '" + item.type + "'");
      // Overlapping items would describe some bytes twice: MPI cannot receive into such a type,
      // so the file is refused here rather than the run aborted later.
      const long first = item.offset,
                 last = item.offset + item.count * builtin_type_size(item.type) - 1;
      for (const auto& [f, l] : occupied)
        if (first <= l && f <= last)
          throw ConfigError(file_, line, icol,
                            "the base type's items overlap: bytes " + std::to_string(first) + ".." +
                                std::to_string(last) + " of this item and bytes " +
                                std::to_string(f) + ".." + std::to_string(l) +
                                " of an earlier one");
      occupied.emplace_back(first, last);
      b.items.push_back(item);
      i = close + 1;
    }
    if (b.items.empty()) throw ConfigError(file_, line, col, "empty base type");
    return b;
  }

  void tokenize(const std::string& s) {
    int line = rest_line_, col = 1;
    std::size_t i = 0;
    while (i < s.size()) {
      const char ch = s[i];
      if (ch == '\n') {
        ++line;
        col = 1;
        ++i;
        continue;
      }
      if (ch == '#') {
        while (i < s.size() && s[i] != '\n') ++i;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(ch))) {
        ++i;
        ++col;
        continue;
      }
      if (ch == '{' || ch == '}' || ch == '=' || ch == ';') {
        tokens_.push_back({std::string(1, ch), line, col});
        ++i;
        ++col;
        continue;
      }
      Token t{"", line, col};
      while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])) &&
             std::string("{}=;#").find(s[i]) == std::string::npos) {
        t.text += s[i++];
        ++col;
      }
      tokens_.push_back(t);
    }
    end_line_ = line;
    end_col_ = col;
  }

  const Token& next(const std::string& expected) {
    if (pos_ >= tokens_.size())
      throw ConfigError(file_, end_line_, end_col_, "unexpected end of file, expected " + expected);
    return tokens_[pos_++];
  }
  static bool is_punct(const Token& t) {
    return t.text.size() == 1 && std::string("{}=;").find(t.text[0]) != std::string::npos;
  }

  void parse_suites(Config& c) {
    std::set<std::string> names;
    while (pos_ < tokens_.size()) {
      const Token name = next("a suite name");
      if (is_punct(name))
        throw ConfigError(file_, name.line, name.column,
                          "expected a suite name, found '" + name.text + "'");
      if (!names.insert(name.text).second)
        throw ConfigError(file_, name.line, name.column,
                          "suite '" + name.text + "' is defined twice");
      const Token open = next("'{'");
      if (open.text != "{")
        throw ConfigError(file_, open.line, open.column,
                          "expected '{' after suite name '" + name.text + "'");
      std::map<std::string, std::pair<Token, Token>> fields;  // lower-case name -> (name, value)
      while (true) {
        const Token key = next("a field or '}'");
        if (key.text == "}") break;
        if (is_punct(key))
          throw ConfigError(file_, key.line, key.column,
                            "expected a field name, found '" + key.text + "'");
        const Token eq = next("'='");
        if (eq.text != "=")
          throw ConfigError(file_, eq.line, eq.column, "expected '=' after " + key.text);
        const Token value = next("a value");
        if (is_punct(value))
          throw ConfigError(file_, value.line, value.column, "expected a value for " + key.text);
        const Token semi = next("';'");
        if (semi.text != ";")
          throw ConfigError(file_, semi.line, semi.column,
                            "expected ';' after the value of " + key.text);
        std::string k = lower(key.text);
        if (k == "recv_datatype_number") k = "receive_datatype_number";
        if (!fields.emplace(k, std::make_pair(key, value)).second)
          throw ConfigError(file_, key.line, key.column, "field " + key.text + " is given twice");
      }
      c.suites.push_back(resolve(c, name, fields));
    }
    if (c.suites.empty())
      throw ConfigError(file_, end_line_, end_col_, "no suite after @MEASUREMENTS");
  }

  enum class Special { kNone, kDefault, kInvalid, kMax };
  static Special special_of(const std::string& v) {
    const auto l = lower(v);
    if (l == "default_value") return Special::kDefault;
    if (l == "invalid_value") return Special::kInvalid;
    if (l == "max_value") return Special::kMax;
    return Special::kNone;
  }

  SuiteSpec resolve(const Config& c, const Token& name,
                    std::map<std::string, std::pair<Token, Token>>& fields) {
    SuiteSpec s;
    s.name = name.text;
    s.line = name.line;
    auto err = [&](const Token& t, const std::string& m) {
      return ConfigError(file_, t.line, t.column, m);
    };
    // Calls `set` with the value unless the field is absent or Default_Value; Invalid_Value
    // goes to `on_invalid` (an error unless the field allows it), Max_Value to `on_max`.
    auto field = [&](const char* key, const std::function<void(const Token&)>& set,
                     const std::function<void()>& on_invalid = nullptr,
                     const std::function<void()>& on_max = nullptr) {
      auto it = fields.find(key);
      if (it == fields.end()) return;
      const Token k = it->second.first, v = it->second.second;
      fields.erase(it);
      switch (special_of(v.text)) {
        case Special::kDefault:
          return;
        case Special::kInvalid:
          if (!on_invalid) throw err(v, k.text + " cannot be Invalid_Value");
          on_invalid();
          return;
        case Special::kMax:
          if (!on_max) throw err(v, k.text + " cannot be Max_Value");
          on_max();
          return;
        case Special::kNone:
          set(v);
          return;
      }
    };
    // Every integer field is at most INT_MAX: counts, lengths and ranks of MPI calls.
    auto integer = [&](const char* what, long lo) {
      return [this, what, lo](const Token& v) {
        return parse_int(v.text, v.line, v.column, what, lo, INT_MAX);
      };
    };
    auto real = [&](const char* what, double lo, double hi) {
      return [this, what, lo, hi](const Token& v) {
        return parse_double(v.text, v.line, v.column, what, {lo, hi});
      };
    };

    auto type_it = fields.find("type");
    if (type_it == fields.end()) throw err(name, "suite '" + s.name + "' has no Type");
    const Token type_tok = type_it->second.second;
    s.type = static_cast<int>(integer("Type", 1)(type_tok));
    fields.erase(type_it);
    const InstanceInfo* inst = find_instance(s.type);
    if (!inst)
      throw err(type_tok, "unknown Type " + type_tok.text + " (see Figure 2 / docs/skampi.md)");
    s.variation = inst->pattern == Pattern::kSimple ? Variation::kNone : Variation::kLength;
    if (!inst->sized)
      s.variation = inst->pattern == Pattern::kSimple ? Variation::kNone : Variation::kNodes;

    Token basetype_tok = name, send_tok = name, variation_tok = name;
    if (auto it = fields.find("basetype_number"); it != fields.end())
      basetype_tok = it->second.second;
    if (auto it = fields.find("send_datatype_number"); it != fields.end())
      send_tok = it->second.second;
    if (auto it = fields.find("variation"); it != fields.end()) variation_tok = it->second.second;

    field("basetype_number",
          [&](const Token& v) { s.basetype = static_cast<int>(integer("Basetype_Number", 1)(v)); });
    field("send_datatype_number", [&](const Token& v) {
      s.send_datatype = static_cast<int>(integer("Send_Datatype_Number", 0)(v));
    });
    field("receive_datatype_number", [&](const Token& v) {
      s.recv_datatype = static_cast<int>(integer("Receive_Datatype_Number", 0)(v));
    });
    field(
        "variation",
        [&](const Token& v) {
          const auto l = lower(v.text);
          if (l == "length")
            s.variation = Variation::kLength;
          else if (l == "nodes")
            s.variation = Variation::kNodes;
          else if (l == "chunks")
            s.variation = Variation::kChunks;
          else if (l == "none")
            s.variation = Variation::kNone;
          else
            throw err(v, "Variation must be Length, Nodes or Chunks, not '" + v.text + "'");
        },
        [&] { s.variation = Variation::kNone; });
    field(
        "scale",
        [&](const Token& v) {
          const auto l = lower(v.text);
          if (l == "dynamic_log")
            s.scale = Scale::kDynamicLog;
          else if (l == "fixed_log")
            s.scale = Scale::kFixedLog;
          else if (l == "fixed_linear")
            s.scale = Scale::kFixedLinear;
          else
            throw err(v,
                      "Scale must be Dynamic_log, Fixed_log or Fixed_linear, not '" + v.text + "'");
        },
        [] {});
    Token maxrep_tok = name;
    if (auto it = fields.find("max_repetition"); it != fields.end()) maxrep_tok = it->second.second;
    field("max_repetition", [&](const Token& v) {
      s.max_repetition = static_cast<int>(integer("Max_Repetition", 1)(v));
    });
    field("min_repetition", [&](const Token& v) {
      s.min_repetition = static_cast<int>(integer("Min_Repetition", 1)(v));
    });
    field(
        "multiple_of", [&](const Token& v) { s.multiple_of = integer("Multiple_of", 1)(v); },
        [] {});
    field(
        "time_measurement",
        [&](const Token& v) {
          s.time_measurement_s = real("Time_Measurement (seconds)", 0, 1e9)(v);
        },
        [] {});
    field(
        "time_suite",
        [&](const Token& v) { s.time_suite_s = real("Time_Suite (seconds)", 0, 1e9)(v); }, [] {});
    field(
        "node_times",
        [&](const Token& v) {
          s.node_times = parse_yes_no(v.text, v.line, v.column, "Node_Times");
        },
        [] {});
    field(
        "cut_quantile", [&](const Token& v) { s.cut_quantile = real("Cut_Quantile", 0, 0.49)(v); },
        [&] { s.cut_quantile = 0; });
    field(
        "default_chunks",
        [&](const Token& v) {
          s.default_chunks = static_cast<int>(integer("Default_Chunks", 0)(v));
        },
        [] {});
    field(
        "default_message_length",
        [&](const Token& v) { s.default_length = integer("Default_Message_length", 0)(v); }, [] {});
    field(
        "start_argument", [&](const Token& v) { s.start = integer("Start_Argument", 0)(v); },
        [] {});
    Token end_tok = name;
    if (auto it = fields.find("end_argument"); it != fields.end()) end_tok = it->second.second;
    field(
        "end_argument", [&](const Token& v) { s.end = integer("End_Argument", 0)(v); }, [] {},
        [&] { s.end.reset(); });
    Token step_tok = name;
    if (auto it = fields.find("stepwidth"); it != fields.end()) step_tok = it->second.second;
    field(
        "stepwidth", [&](const Token& v) { s.stepwidth = real("Stepwidth", 1e-9, 1e9)(v); }, [] {});
    field(
        "max_steps",
        [&](const Token& v) { s.max_steps = static_cast<int>(integer("Max_Steps", 1)(v)); }, [] {});
    Token max_distance_tok = name;
    if (auto it = fields.find("max_distance"); it != fields.end())
      max_distance_tok = it->second.second;
    field(
        "min_distance", [&](const Token& v) { s.min_distance = integer("Min_Distance", 1)(v); },
        [] {});
    field(
        "max_distance", [&](const Token& v) { s.max_distance = integer("Max_Distance", 1)(v); },
        [] {}, [&] { s.max_distance.reset(); });
    field(
        "standard_error",
        [&](const Token& v) { s.standard_error = real("Standard_error", 1e-6, 1)(v); }, [] {});
    if (!fields.empty()) {
      const Token k = fields.begin()->second.first;
      throw err(k, "unknown field '" + k.text + "'");
    }

    // Consistency, reported where the offending value stands.
    if (s.min_repetition > s.max_repetition)
      throw err(maxrep_tok, "Max_Repetition (" + std::to_string(s.max_repetition) +
                                ") is below Min_Repetition (" + std::to_string(s.min_repetition) +
                                ")");
    if (!variation_allowed(inst->pattern, s.variation))
      throw err(variation_tok, std::string("the ") + pattern_name(inst->pattern) +
                                   " pattern (Type " + std::to_string(s.type) +
                                   ") cannot vary along " + variation_name(s.variation));
    if (!inst->sized && s.variation == Variation::kLength)
      throw err(variation_tok, std::string(inst->operation) +
                                   " does not depend on the message length; use Variation = Nodes");
    if (s.end && *s.end < s.start) throw err(end_tok, "End_Argument is below Start_Argument");
    if (s.scale != Scale::kFixedLinear && s.variation != Variation::kNone && s.stepwidth <= 1)
      throw err(step_tok, "a logarithmic Scale needs Stepwidth > 1");
    if (s.scale == Scale::kFixedLinear && s.stepwidth < 1)
      throw err(step_tok, "a linear Scale needs Stepwidth >= 1 (an increment)");
    if (s.variation == Variation::kNodes && s.start == 0)
      s.start = inst->pattern == Pattern::kMasterWorker ? 2 : 1;
    if (s.variation == Variation::kChunks && s.start == 0) s.start = 1;
    if (!c.basetypes.count(s.basetype))
      throw err(basetype_tok,
                "@BASETYPE" + std::to_string(s.basetype) + " is not defined in the preamble");
    for (int dt : {s.send_datatype, s.recv_datatype})
      if (!is_datatype_pattern(dt))
        throw err(send_tok, "unknown datatype pattern " + std::to_string(dt));
    if (s.max_distance && s.min_distance > *s.max_distance)
      throw err(max_distance_tok, "Max_Distance (" + std::to_string(*s.max_distance) +
                                      ") is below Min_Distance (" + std::to_string(s.min_distance) +
                                      ")");
    if (inst->reduction) {
      if (!c.basetypes.at(s.basetype).is_builtin())
        throw err(basetype_tok, std::string(inst->operation) +
                                    " needs a built-in base type (a predefined reduction)");
      // A predefined operation on a derived datatype is an MPI error: Open MPI's MPI_Reduce
      // aborted the run on every datatype pattern, contiguous (1) included.
      if (s.send_datatype != 0 || s.recv_datatype != 0)
        throw err(send_tok, std::string(inst->operation) +
                                " reduces the base type itself: Send_ and "
                                "Receive_Datatype_Number must be 0 (no datatype pattern)");
    }
    return s;
  }

  const std::string& text_;
  std::string file_;
  std::pair<int, int> blocksize_at_{0, 0}, vectorstride_at_{0, 0};  // line, column
  int rest_line_ = 1, end_line_ = 1, end_col_ = 1;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
};

}  // namespace

Config parse_config(const std::string& text, const std::string& file) {
  return Parser(text, file).parse();
}

Config read_config(const std::string& path) {
  return parse_config(core::read_text_file(path, "a SKaMPI configuration file"), path);
}

namespace {

// Size and extent of a base type without MPI (for limits on rank 0 before MPI types exist).
std::pair<long, long> base_size_extent(const BaseType& b) {
  long size = 0, end = 0;
  for (const auto& i : b.items) {
    size += i.count * builtin_type_size(i.type);
    end = std::max(end, i.offset + i.count * builtin_type_size(i.type));
  }
  return {size, end};
}

}  // namespace

void resolve_limits(Config& c, int world) {
  for (auto& s : c.suites) {
    const InstanceInfo& inst = *find_instance(s.type);
    auto fail = [&](const std::string& m) {
      return ConfigError(c.file, s.line, 1, "suite '" + s.name + "': " + m);
    };
    if (inst.pattern == Pattern::kPingPong && world < 2)
      throw fail("the ping-pong pattern needs at least 2 processes");
    if (inst.pattern == Pattern::kMasterWorker && world < 2)
      throw fail("the master-worker pattern needs at least 2 processes");
    // Not a structured binding: the lambdas below capture both (clang 14 cannot).
    const auto size_extent = base_size_extent(effective_base(c, s));
    const auto size = size_extent.first, extent = size_extent.second;
    const long unit = length_unit(s.multiple_of, size);
    // Bytes of buffer per message byte: the widest pattern of the suite over its base type.
    auto ratio = [&] {
      double r = 1;
      // Enough elements that the customised vector patterns' blocks repeat.
      const long n = 1000 + 2L * c.datatype_params.blocksize;
      for (int dt : {s.send_datatype, s.recv_datatype}) {
        const auto lay = pattern_layout(dt, n, extent, c.datatype_params);
        r = std::max(r, static_cast<double>(*std::max_element(lay.begin(), lay.end()) + extent) /
                            (static_cast<double>(n) * static_cast<double>(size)));
      }
      return r;
    }();
    const long memory = c.memory_kb * 1024;
    auto need = [&](long len, int p) {
      return buffer_bytes(inst, static_cast<long>(std::ceil(static_cast<double>(len) * ratio)), p);
    };
    switch (s.variation) {
      case Variation::kLength: {
        const int p = participants(inst, s, 0, world);
        const long per_byte = std::max(1L, need(1000000, p) / 1000000 + 1);
        const long max_len = (memory / per_byte) / unit * unit;
        if (!s.end) s.end = max_len;
        if (need(*s.end, p) > memory)
          throw fail("End_Argument " + std::to_string(*s.end) + " needs " +
                     std::to_string(need(*s.end, p) / 1024) +
                     " KBytes of buffers per process, more than @MEMORY " +
                     std::to_string(c.memory_kb));
        // Lengths are whole multiples of Multiple_of × the base type's size: Start_Argument rounds
        // up and End_Argument down to one, so that no length outside the range is measured.
        s.start = (s.start + unit - 1) / unit * unit;
        s.end = *s.end / unit * unit;
        if (*s.end < s.start)
          throw fail("no message length between Start_Argument and End_Argument");
        break;
      }
      case Variation::kNodes:
        if (!s.end) s.end = world;
        if (*s.end > world)
          throw fail("End_Argument " + std::to_string(*s.end) + " exceeds the " +
                     std::to_string(world) + " processes of the job");
        if (s.start < 1 || (inst.pattern == Pattern::kMasterWorker && s.start < 2))
          throw fail("Start_Argument is below the processes the pattern needs");
        break;
      case Variation::kChunks:
        if (!s.end) s.end = 16L * std::max(1, world - 1);
        if (s.start < 1) throw fail("Start_Argument must be at least 1 chunk");
        break;
      case Variation::kNone:
        s.start = 0;
        s.end = 0;
        break;
    }
    if (s.variation != Variation::kLength) {
      s.default_length = s.default_length / unit * unit;
      if (need(s.default_length, world) > memory)
        throw fail("Default_Message_length does not fit in @MEMORY");
    }
  }
}

}  // namespace mpiscope::skampi
