#include "suites/skampi/restart.hpp"

#include <algorithm>
#include <filesystem>

#include "output/files.hpp"
#include "suites/skampi/patterns.hpp"

namespace mpiscope::skampi {

RestartPlan plan_restart(const Config& c,
                         const std::vector<std::pair<std::string, std::string>>& header,
                         const cli::MethodOptions& method,
                         const std::function<void(const std::string&)>& log) {
  RestartPlan plan;
  namespace fs = std::filesystem;
  OutputFile old;
  bool resume = false;
  // An empty file is the one the front end's writability probe created: no earlier run.
  std::error_code ignored;
  if (fs::exists(c.outfile) && !fs::is_empty(c.outfile, ignored)) {
    old = read_output(c.outfile);
    if (old.complete) {
      int n = 1;
      while (fs::exists(c.outfile + "." + std::to_string(n))) ++n;
      fs::rename(c.outfile, c.outfile + "." + std::to_string(n));
      log("previous complete run kept as " + c.outfile + "." + std::to_string(n));
    } else {
      resume = true;
    }
  }
  std::string text = format_header(resume ? old.header : header);
  if (resume) {
    plan.crashed = old.torn_suite;
    for (const auto& s : old.suites) {
      const auto spec =
          std::find_if(c.suites.begin(), c.suites.end(), [&](auto& x) { return x.name == s.name; });
      const bool in_config = spec != c.suites.end();
      // A suite finished with the other method is measured again (its block is dropped).
      const std::string old_method = s.params.count("method") ? s.params.at("method") : "classic";
      if (in_config &&
          old_method != (measured_accurately(*spec, method) ? "accurate" : "classic")) {
        log("restart: suite " + s.name + " was measured with the " + old_method +
            " method and is measured again");
        continue;
      }
      if (in_config && s.name != plan.crashed) {
        plan.done.push_back(s);
        text += format_suite(s);
      }
    }
    log("restart: " + std::to_string(plan.done.size()) + " suites already done" +
        (plan.crashed.empty() ? "" : ", suite " + plan.crashed + " crashed and runs last"));
  }
  output::replace_file(c.outfile, text);
  int crashed_index = -1;
  for (int i = 0; i < static_cast<int>(c.suites.size()); ++i) {
    const auto& name = c.suites[static_cast<std::size_t>(i)].name;
    if (std::any_of(plan.done.begin(), plan.done.end(), [&](auto& d) { return d.name == name; }))
      continue;
    if (name == plan.crashed)
      crashed_index = i;
    else
      plan.to_run.push_back(i);
  }
  if (crashed_index >= 0) plan.to_run.push_back(crashed_index);
  return plan;
}

}  // namespace mpiscope::skampi
