#include "cli/registry.hpp"

#include <algorithm>

namespace mpiscope::cli {

namespace {
// A function-local static: registration runs during static initialisation of other files.
std::vector<SuiteEntry>& table() {
  static std::vector<SuiteEntry> suites;
  return suites;
}
}  // namespace

bool register_suite(SuiteEntry entry) {
  table().push_back(std::move(entry));
  return true;
}

std::vector<SuiteEntry> registered_suites() {
  auto list = table();
  std::stable_sort(list.begin(), list.end(), [](const SuiteEntry& a, const SuiteEntry& b) {
    // By name where the order ties: registration order is link order, which a
    // unity build changes.
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return list;
}

}  // namespace mpiscope::cli
