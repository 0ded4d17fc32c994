// Files a run creates (IMB-IO, b_eff_io): every one is registered before it is created and
// removed at the end of its point, after an error, on SIGINT/SIGTERM, and by a reaper process
// when the rank dies of something no handler sees (SIGKILL), so that a run never leaves files
// behind.
#pragma once

#include <mpi.h>

#include <string>

namespace mpiscope::core::scratch_files {

// Installs the SIGINT/SIGTERM handler that removes registered files, then lets the signal end
// the process as it would have.
void install_signal_cleanup();
void add(const std::string& path);
// Deletes the file and forgets it, if it is registered: a name this run did not register (a file
// that was there before, a second release) is never deleted.
void remove(const std::string& path);
// Forgets it without deleting (another rank deletes a shared file).
void forget(const std::string& path);
void remove_all();

// A tag that makes this run's file names unique and unguessable: 16 hexadecimal digits from
// std::random_device, drawn by rank 0 and broadcast with the options.
// MPISCOPE_FAULT=run-tag:TAG fixes it, for the tests that plant files at the coming names.
std::string unique_run_tag();
// 16 random hexadecimal digits.
std::string random_token();

// Creates a new file `prefix` + random_token() (O_CREAT | O_EXCL | O_NOFOLLOW, mode 0666 less the
// umask), trying other names while one exists; returns its descriptor and sets `created`, or
// returns -1 with errno set. A name that exists is never opened, followed or removed.
int create_unique(const std::string& prefix, std::string& created);

// --io-dir: a directory where this process can create a file, tried for real (access() passes
// root on a read-only mount or /proc); throws std::runtime_error saying why not.
void check_io_dir(const std::string& dir);

// Collective over `comm`: whether `dir` is one directory that every process sees (a file rank 0
// creates there exists for all), as the I/O suites need on a cluster where /tmp is node-local.
// Returns the same text on every process: empty when shared (or when rank 0 cannot create the
// probe, which check_io_dir reports), else what is wrong, naming a rank and host that miss it.
std::string shared_directory_problem(const std::string& dir, MPI_Comm comm);

}  // namespace mpiscope::core::scratch_files
