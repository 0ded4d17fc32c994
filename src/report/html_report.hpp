// `mpiscope report`: one self-contained HTML page (inline CSS and JavaScript, no network) that
// plots the stored runs: log-log time and bandwidth over message size and time over process
// count per benchmark, several runs overlaid, with a run picker, series toggles, zoom, SVG
// download, each run's metadata and the runs' summary figures.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/results_db.hpp"

namespace mpiscope::report {

// The numbers the page shows, exactly as stored (units named in the page).
nlohmann::json report_data(const std::vector<db::StoredRun>& runs, const std::string& db_path);
std::string render_html(const std::vector<db::StoredRun>& runs, const std::string& db_path);

}  // namespace mpiscope::report
