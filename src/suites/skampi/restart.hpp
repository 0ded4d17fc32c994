// Restart after a crash (docs/skampi.md): what an earlier run left in the output file decides
// what this run measures. Suites an interrupted run finished are kept as they are; the suite it
// died in runs last, so that a suite that crashes again does not hold the others back.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cli/method_options.hpp"
#include "suites/skampi/config.hpp"
#include "suites/skampi/output_file.hpp"

namespace mpiscope::skampi {

struct RestartPlan {
  std::vector<int> to_run;        // indices into Config::suites, in the order they run
  std::vector<SuiteResult> done;  // finished by the interrupted run, kept
  std::string crashed;            // the suite the interrupted run died in ("" for none)
};

// Rank 0, before anything runs. An earlier complete run's file is kept as OUTFILE.n; an
// interrupted run's is rewritten with its header and the suites kept (a suite measured with the
// other method is measured again). `log` gets a line for each decision.
RestartPlan plan_restart(const Config& c,
                         const std::vector<std::pair<std::string, std::string>>& header,
                         const cli::MethodOptions& method,
                         const std::function<void(const std::string&)>& log);

}  // namespace mpiscope::skampi
