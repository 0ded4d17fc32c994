// MPICH's collective selection file (tune.hpp): the library's built-in tree of its own algorithms,
// read from the library file this process loaded, with the measured communicator size's rows of
// each tuned collective replaced by the choice.
#include <dlfcn.h>
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "core/text.hpp"
#include "suites/tune/tune.hpp"

namespace mpiscope::tune {

namespace {

using Tree = nlohmann::ordered_json;  // MPICH tries a node's keys in the file's order

constexpr const char* kContainerPrefix = "algorithm=";

// N of a key "<prefix>N" (such as "comm_size<=8"), or nullopt for another key.
std::optional<long> number_after(const std::string& key, std::string_view prefix) {
  if (key.rfind(prefix, 0) != 0) return std::nullopt;
  const auto digits = key.substr(prefix.size());
  if (digits.empty() || digits.size() > 18 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stol(digits);
}

// A collective's subtree of a selection tree, or nullptr.
const Tree* collective_of(const Tree& tree, const std::string& collective) {
  const auto c = tree.find("collective=" + core::to_lower(collective));
  return c == tree.end() ? nullptr : &*c;
}

// The key MPICH's selection compares for a collective, and the size it compares at IMB's length X
// (csel.c: avg_msg_size is the datatype's size x count, defined for these four only;
// total_msg_size is the whole vector: x the communicator size for the gathers and scatters).
struct SizeKey {
  const char* key;  // nullptr: the collective has no size (Barrier)
  bool times_processes;
};
SizeKey size_key(const std::string& collective) {
  for (const char* avg : {"Allreduce", "Bcast", "Reduce", "Alltoall"})
    if (collective == avg) return {"avg_msg_size", false};
  for (const char* total : {"Allgather", "Gather", "Scatter"})
    if (collective == total) return {"total_msg_size", true};
  if (collective == "Reduce_scatter") return {"total_msg_size", false};
  return {nullptr, false};
}

// The cases tune timed, as MPICH's selection tells them apart: the reductions with MPI_SUM on
// MPI_FLOAT, Alltoall with a send buffer of its own. A choice holds for those only; every other
// case keeps the library's own subtree (some algorithms abort on others: MPICH 4.0's
// noncommutative Reduce_scatter on unequal blocks).
std::vector<std::pair<const char*, const char*>> timed_cases(const std::string& collective) {
  if (collective == "Allreduce" || collective == "Reduce")
    return {{"is_commutative=yes", "is_commutative=no"},
            {"is_op_built_in=yes", "is_op_built_in=no"}};
  if (collective == "Reduce_scatter") return {{"is_commutative=yes", "is_commutative=no"}};
  if (collective == "Alltoall") return {{"is_sendbuf_inplace=no", "is_sendbuf_inplace=yes"}};
  return {};
}

// A chosen algorithm's subtree: the container in the cases timed, the library's own elsewhere.
Tree leaf(const std::string& collective, const std::string& container, const Tree& library) {
  Tree node = Tree::object();
  node[kContainerPrefix + container] = Tree::object();
  const auto cases = timed_cases(collective);
  for (auto c = cases.rbegin(); c != cases.rend(); ++c) {
    Tree split = Tree::object();
    split[c->first] = std::move(node);
    split[c->second] = library;
    node = std::move(split);
  }
  return node;
}

// A subtree split by communicator size alone, as this writes it: "comm_size<=N" keys with N
// ascending, then "comm_size=any" (bound -1). nullopt for any other subtree.
using SizeSplit = std::vector<std::pair<long, Tree>>;
std::optional<SizeSplit> size_split(const Tree& t) {
  SizeSplit out;
  for (const auto& [key, value] : t.items()) {
    if (!out.empty() && out.back().first < 0) return std::nullopt;  // keys after "any"
    if (key == "comm_size=any") {
      out.emplace_back(-1, value);
      continue;
    }
    const auto bound = number_after(key, "comm_size<=");
    if (!bound || (!out.empty() && *bound <= out.back().first)) return std::nullopt;
    out.emplace_back(*bound, value);
  }
  if (out.empty() || out.back().first >= 0) return std::nullopt;
  return out;
}

// `before` with communicators of exactly `processes` ranks given `rows`: a size split of its own
// is extended, not nested, so that tuning at many sizes keeps the file linear in them.
Tree with_size(const Tree& before, int processes, Tree rows) {
  const auto split = size_split(before).value_or(SizeSplit{{-1, before}});
  // What `before` gives a communicator of n ranks: the first bound not below n, else "any".
  const auto subtree_of = [&](long n) -> const Tree& {
    for (const auto& [bound, subtree] : split)
      if (bound < 0 || bound >= n) return subtree;
    return split.back().second;
  };
  Tree out = Tree::object();
  const long below = processes - 1;
  for (const auto& [bound, subtree] : split)
    if (bound >= 0 && bound < below) out[fmt::format("comm_size<={}", bound)] = subtree;
  if (below >= 1) out[fmt::format("comm_size<={}", below)] = subtree_of(below);
  out[fmt::format("comm_size<={}", processes)] = std::move(rows);
  for (const auto& [bound, subtree] : split)
    if (bound > processes) out[fmt::format("comm_size<={}", bound)] = subtree;
  out["comm_size=any"] = split.back().second;
  return out;
}

}  // namespace

std::string mpich_container(const MpichSelection& s, const std::string& collective,
                            const std::string& algorithm) {
  for (const char* kind : {"_intra_", "_allcomm_"}) {
    const std::string name = "MPIR_" + collective + kind + algorithm;
    if (std::find(s.containers.begin(), s.containers.end(), name) != s.containers.end())
      return name;
  }
  return "";
}

std::size_t mpich_rule_bytes(const std::string& collective, std::size_t bytes, int processes) {
  const auto k = size_key(collective);
  if (k.key == nullptr) return 0;
  return k.times_processes ? bytes * static_cast<std::size_t>(processes) : bytes;
}

std::string mpich_selection_problem(const std::string& text) {
  if (!Tree::accept(text)) return "it is not JSON";
  const auto tree = Tree::parse(text);
  if (!tree.is_object() || tree.empty()) return "it is not a JSON object of collectives";
  for (const auto& [key, value] : tree.items())
    if (key.rfind("collective=", 0) != 0 || !value.is_object())
      return "its key '" + key + "' is not a collective's";
  return "";
}

std::string mpich_selection_file(const MpichSelection& s, const std::vector<TunedCollective>& tuned,
                                 int processes, std::vector<std::string>& notes,
                                 const std::string& merged_into) {
  const Tree built_in = Tree::parse(s.tree);
  Tree tree = merged_into.empty() ? built_in : Tree::parse(merged_into);
  bool any = false;
  for (const auto& t : tuned) {
    const bool changed = std::any_of(t.choices.begin(), t.choices.end(),
                                     [](const LengthChoice& c) { return c.changed; });
    // A collective without a change is written only to replace an earlier tuning of this size.
    if (!changed && merged_into.empty()) continue;
    const auto intra_of = [&](const Tree& from) -> const Tree* {
      const Tree* c = collective_of(from, t.variable.collective);
      if (c == nullptr) return nullptr;
      const auto i = c->find("comm_type=intra");
      return i == c->end() ? nullptr : &*i;
    };
    const Tree* library = intra_of(built_in);
    const Tree* before = intra_of(tree);
    if (library == nullptr || before == nullptr) {
      notes.push_back(
          fmt::format("tune: MPICH's selection tree has no {} among intra-communicator "
                      "collectives: its choice is not written",
                      t.variable.collective));
      continue;
    }
    const auto k = size_key(t.variable.collective);
    // Each row's container ("": the library's own subtree); Barrier, which has no size, one row.
    const auto rows = length_rows<std::string>(
        t.choices,
        [&](std::size_t bytes) {
          return mpich_rule_bytes(t.variable.collective, bytes, processes);
        },
        [&](const LengthChoice& c) {
          if (!c.changed) return std::string();
          auto container = mpich_container(s, t.variable.collective, c.fastest.name);
          if (container.empty())
            notes.push_back(fmt::format(
                "tune: MPICH's selection file names no algorithm MPIR_{}_intra_{} (or _allcomm_): "
                "{} bytes of {} keep the library's own choice in the file",
                t.variable.collective, c.fastest.name, c.bytes, t.variable.collective));
          return container;
        });
    const bool chosen =
        std::any_of(rows.begin(), rows.end(), [](const auto& r) { return !r.second.empty(); });
    if (!chosen && merged_into.empty()) continue;
    any |= chosen;
    Tree sized = Tree::object();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& [from, container] = rows[i];
      Tree row = container.empty() ? *library : leaf(t.variable.collective, container, *library);
      if (k.key == nullptr) {
        sized = std::move(row);
        break;
      }
      const std::string condition = i + 1 < rows.size()
                                        ? fmt::format("{}<={}", k.key, rows[i + 1].first - 1)
                                        : fmt::format("{}=any", k.key);
      sized[condition] = std::move(row);
    }
    if (rows.empty()) sized = *library;
    // Communicators of the measured size get the rows; smaller and larger ones the subtree they
    // had (the library's own, or an earlier tuning's).
    auto intra = with_size(*before, processes, std::move(sized));
    tree["collective=" + core::to_lower(t.variable.collective)]["comm_type=intra"] =
        std::move(intra);
  }
  if (!any && merged_into.empty()) return "";
  return tree.dump() + "\n";
}

namespace {
enum class Holds { kNo, kYes, kUnknown };

// Whether a selection key holds for the case tune timed (IMB's collective of `bytes` on
// `processes` ranks, MPI_SUM on MPI_FLOAT, root 0, one thread); kUnknown for what tune cannot
// know (the communicator's node hierarchy, ranks per node).
Holds holds(const std::string& key, const std::string& collective, std::size_t bytes,
            int processes) {
  const auto of = [](bool b) { return b ? Holds::kYes : Holds::kNo; };
  const auto less = [&](long value, long bound, bool or_equal) {
    return of(or_equal ? value <= bound : value < bound);
  };
  const long p = processes;
  const long avg = static_cast<long>(bytes);
  const long total = static_cast<long>(mpich_rule_bytes(collective, bytes, processes));
  const bool reduction =
      collective == "Allreduce" || collective == "Reduce" || collective == "Reduce_scatter";
  // IMB's count: 4-byte floats for the reductions, bytes for the others.
  const long count = reduction ? avg / 4 : avg;
  long pof2 = 1;
  while (pof2 * 2 <= p) pof2 *= 2;
  if (key == "any" || (key.size() > 4 && key.compare(key.size() - 4, 4, "=any") == 0))
    return Holds::kYes;
  if (key == "comm_type=intra") return Holds::kYes;
  if (key == "comm_type=inter") return Holds::kNo;
  if (key == "comm_size=pow2") return of(p == pof2);
  if (const auto n = number_after(key, "comm_size<=")) return less(p, *n, true);
  // MPICH 4.0's csel.c tests "comm_size<N" as <=: which it means is unknown at N itself.
  if (const auto n = number_after(key, "comm_size<"))
    return p == *n ? Holds::kUnknown : less(p, *n, false);
  if (const auto n = number_after(key, "avg_msg_size<=")) return less(avg, *n, true);
  if (const auto n = number_after(key, "avg_msg_size<")) return less(avg, *n, false);
  if (const auto n = number_after(key, "total_msg_size<=")) return less(total, *n, true);
  if (const auto n = number_after(key, "total_msg_size<")) return less(total, *n, false);
  if (const auto n = number_after(key, "count<=")) return less(count, *n, true);
  if (key == "count<pow2") return of(count < pof2);
  // IMB's Reduce_scatter gives every rank count / P floats, the remainder to the last ones.
  if (key == "is_block_regular=yes") return of(count % p == 0);
  if (key == "is_block_regular=no") return of(count % p != 0);
  if (key == "is_commutative=yes" || key == "is_op_built_in=yes" ||
      key == "is_sendbuf_inplace=no" || key == "is_multi_threaded=no")
    return Holds::kYes;
  if (key == "is_commutative=no" || key == "is_op_built_in=no" || key == "is_sendbuf_inplace=yes" ||
      key == "is_multi_threaded=yes")
    return Holds::kNo;
  return Holds::kUnknown;
}

// The containers a subtree may select, trying keys in order as MPICH does: every one a key of
// unknown truth may lead to, up to the first key that holds.
void selectable(const Tree& node, const std::string& collective, std::size_t bytes, int processes,
                std::vector<std::string>& out) {
  for (const auto& [key, child] : node.items()) {
    if (key.rfind(kContainerPrefix, 0) == 0) {
      const auto name = key.substr(std::char_traits<char>::length(kContainerPrefix));
      if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
      return;
    }
    const auto h = holds(key, collective, bytes, processes);
    if (h == Holds::kNo) continue;
    selectable(child, collective, bytes, processes, out);
    if (h == Holds::kYes) return;
  }
}
// The first key of the kind that says what a call is (not how large) on the path to each leaf
// naming `container` that the case tune times fails: one per leaf, "" where none fails.
void reserved_paths(const Tree& node, const std::string& collective, const std::string& container,
                    int processes, const std::string& failed, std::vector<std::string>& out) {
  static const char* const kinds[] = {
      "comm_size=pow2", "is_commutative=", "is_op_built_in=", "is_sendbuf_inplace=", "comm_type="};
  for (const auto& [key, child] : node.items()) {
    if (key.rfind(kContainerPrefix, 0) == 0) {
      if (key.substr(std::char_traits<char>::length(kContainerPrefix)) == container)
        out.push_back(failed);
      continue;
    }
    std::string now = failed;
    if (now.empty())
      for (const char* kind : kinds)
        if (key.rfind(kind, 0) == 0 && holds(key, collective, 0, processes) == Holds::kNo)
          now = key;
    reserved_paths(child, collective, container, processes, now, out);
  }
}
}  // namespace

std::string mpich_own_selection(const MpichSelection& s, const std::string& collective,
                                std::size_t bytes, int processes) {
  const auto tree = Tree::parse(s.tree);
  const Tree* c = collective_of(tree, collective);
  if (c == nullptr) return "";
  std::vector<std::string> out;
  selectable(*c, collective, bytes, processes, out);
  return out.size() == 1 ? out.front() : "";
}

std::string mpich_reserved_case(const MpichSelection& s, const std::string& collective,
                                const std::string& container, int processes) {
  const auto tree = Tree::parse(s.tree);
  const Tree* c = collective_of(tree, collective);
  if (c == nullptr) return "";
  std::vector<std::string> failed;
  reserved_paths(*c, collective, container, processes, "", failed);
  if (failed.empty() ||
      std::any_of(failed.begin(), failed.end(), [](const std::string& f) { return f.empty(); }))
    return "";
  return failed.front();
}

std::optional<MpichSelection> read_mpich_selection(std::string& why) {
  // The library that holds PMPI_Init (MPI_Init may be a PMPI shim's).
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&PMPI_Init), &info) == 0 || info.dli_fname == nullptr) {
    why = "the file of the MPI library this process loaded cannot be found (dladdr)";
    return std::nullopt;
  }
  MpichSelection s;
  s.library = info.dli_fname;
  std::ifstream in(s.library, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    why = "cannot read the MPI library's file " + s.library;
    return std::nullopt;
  }
  // Its strings: the tree of MPIR's algorithms (the one that names "algorithm=MPIR_" containers;
  // the device's trees name MPIDI_ ones) and every container name it accepts. Found where they
  // occur, not between NULs: a literal may follow other constant data with no NUL before it.
  const auto until_nul = [&](std::size_t at) {
    return std::string_view(bytes.data() + at, std::min(bytes.find('\0', at), bytes.size()) - at);
  };
  const std::string container_start = std::string(kContainerPrefix) + "MPIR_";
  for (std::size_t at = bytes.find(container_start); at != std::string::npos;
       at = bytes.find(container_start, at + 1)) {
    auto name = until_nul(at).substr(std::char_traits<char>::length(kContainerPrefix));
    const auto end = std::find_if(name.begin(), name.end(), [](char c) {
      return !(std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    });
    name = name.substr(0, static_cast<std::size_t>(end - name.begin()));
    if (std::find(s.containers.begin(), s.containers.end(), name) == s.containers.end())
      s.containers.emplace_back(name);
  }
  std::vector<std::string> trees;
  for (std::size_t at = bytes.find("{\"collective="); at != std::string::npos;
       at = bytes.find("{\"collective=", at + 1)) {
    const auto text = until_nul(at);
    if (text.find("\"algorithm=MPIR_") != std::string_view::npos) trees.emplace_back(text);
    at += text.size();
  }
  if (trees.size() != 1 || !Tree::accept(trees.front())) {
    why = fmt::format(
        "the MPI library's file {} holds {} built-in selection trees of MPIR's algorithms "
        "(one JSON text is needed)",
        s.library, trees.size());
    return std::nullopt;
  }
  s.tree = trees.front();
  return s;
}

}  // namespace mpiscope::tune
