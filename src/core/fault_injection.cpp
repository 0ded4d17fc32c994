#include "core/fault_injection.hpp"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/mpi.hpp"
#include "core/text.hpp"

namespace mpiscope::core::fault {

namespace {
std::vector<std::vector<std::string>> planted() {
  static const std::vector<std::vector<std::string>> items = [] {
    std::vector<std::vector<std::string>> out;
    const char* env = std::getenv("MPISCOPE_FAULT");
    if (!env) return out;
    for (const auto& item : split(env, ',')) out.push_back(split(item, ':'));
    return out;
  }();
  return items;
}

bool planted_on_me(const std::vector<std::string>& item, std::size_t rank_field) {
  return item.size() > rank_field && std::atoi(item[rank_field].c_str()) == mpi::world_rank();
}
}  // namespace

bool allocation_should_fail() {
  for (const auto& item : planted())
    if (item[0] == "alloc-fail" && planted_on_me(item, 1)) return true;
  return false;
}

bool corrupt_received_data() {
  for (const auto& item : planted())
    if (item[0] == "corrupt" && planted_on_me(item, 1)) return true;
  return false;
}

void maybe_hang(std::string_view benchmark, std::size_t bytes) {
  for (const auto& item : planted())
    if (item[0] == "hang" && item.size() == 4 && iequals(item[1], benchmark) &&
        std::strtoull(item[2].c_str(), nullptr, 10) == bytes && planted_on_me(item, 3))
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

std::string planted_run_tag() {
  for (const auto& item : planted())
    if (item[0] == "run-tag" && item.size() == 2) return item[1];
  return "";
}

void maybe_stop_in_setup(int processes) {
  for (const auto& item : planted())
    if (item[0] == "stop-setup" && item.size() == 3 && std::atoi(item[1].c_str()) == processes &&
        planted_on_me(item, 2))
      std::raise(SIGSTOP);
}

void maybe_stop_in_release(std::string_view benchmark) {
  for (const auto& item : planted())
    if (item[0] == "stop-release" && item.size() == 3 && iequals(item[1], benchmark) &&
        planted_on_me(item, 2))
      std::raise(SIGSTOP);
}

}  // namespace mpiscope::core::fault
