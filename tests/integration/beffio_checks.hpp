// What the b_eff_io tests (classic and accurate mode) read from a run's JSON: the summary figures
// and a row's named values, and a fresh folder for the run's files.
#pragma once

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "harness.hpp"

namespace beffio_checks {

constexpr double kMiB = 1048576.0;
inline const char* const kMethods[] = {"write", "rewrite", "read"};

inline std::string fresh_dir(const std::string& name) {
  const auto dir = harness::temp_dir() + "/" + name;
  mkdir(dir.c_str(), 0755);
  return dir;
}

inline double summary(const nlohmann::json& doc, const std::string& name) {
  for (const auto& s : doc.at("summary"))
    if (s.at("name") == name) return s.at("value").get<double>();
  ADD_FAILURE() << "no summary figure " << name;
  return std::nan("");
}

inline double value(const nlohmann::json& row, const std::string& name) {
  return row.at("values").at(name).at("value").get<double>();
}

}  // namespace beffio_checks
