// Files a run creates (IMB-IO, b_eff_io): every one is registered before it is created and
// removed at the end of its point, after an error, on SIGINT/SIGTERM, and by a reaper process
// when the rank dies of something no handler sees (SIGKILL), so that a run never leaves files
// behind.
#pragma once

#include <string>

namespace mpiscope::core::scratch_files {

// Installs the SIGINT/SIGTERM handler that removes registered files, then lets the signal end
// the process as it would have.
void install_signal_cleanup();
void add(const std::string& path);
// Deletes the file (if it exists) and forgets it.
void remove(const std::string& path);
// Forgets it without deleting (another rank deletes a shared file).
void forget(const std::string& path);
void remove_all();

// A tag that makes this run's file names unique: host, process id and time of rank 0.
std::string unique_run_tag();

}  // namespace mpiscope::core::scratch_files
