// The readable b_eff_io protocol on stdout: the settings, one table per access method and pattern
// type (the paper's Figure 3 as numbers), each type's total, each method's average and the
// partition's matrix, then the single number. Written only from the result model (rows, notes,
// summary figures), so everything it prints is also in the JSON.
#pragma once

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "core/reporter.hpp"
#include "output/text_table.hpp"

namespace mpiscope::beffio {

class TextReporter : public core::Reporter {
 public:
  explicit TextReporter(std::FILE* out) : out_(out) {}
  void run_started(const core::RunInfo& info) override;
  void row(const core::BenchmarkRun& b, const core::Measurement& m) override;
  void note(const std::string& text) override;
  void summary(const core::NamedValue& v) override;
  void run_finished(const core::RunInfo& info, bool ok) override;

 private:
  void flush_table();
  void print_partition(int nprocs);
  double figure(const std::string& name) const;

  std::FILE* out_;
  std::string table_key_;  // partition/method/type of the rows in table_
  std::string table_title_;
  std::unique_ptr<output::TextTable> table_;
  std::map<std::string, double> figures_;
  bool accurate_ = false;  // --method accurate: the tables show medians
};

}  // namespace mpiscope::beffio
