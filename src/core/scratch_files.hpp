// Files a run creates (IMB-IO, b_eff_io): every one is registered before it is created and
// removed at the end of its point, after an error, on SIGINT/SIGTERM, and by a reaper process
// when the rank dies of something no handler sees (SIGKILL), so that a run never leaves files
// behind. They live in the run's own directory (create_run_directory), which goes the same ways
// with whatever is in it.
#pragma once

#include <mpi.h>

#include <string>

namespace mpiscope::core::scratch_files {

// Installs the SIGINT/SIGTERM handler that removes registered files, then lets the signal end
// the process as it would have (after the DeferSignals in scope, if any).
void install_signal_cleanup();
// While one lives, SIGINT and SIGTERM (under install_signal_cleanup) wait: the reporters take
// each event whole (core::ReporterList), so that an interrupted run's database, JSON and CSV hold
// the same rows. The signal takes effect when the last one ends.
class DeferSignals {
 public:
  DeferSignals();
  ~DeferSignals();
  DeferSignals(const DeferSignals&) = delete;
  DeferSignals& operator=(const DeferSignals&) = delete;
};
void add(const std::string& path);
// Deletes the file and forgets it, if it is registered: a name this run did not register (a file
// that was there before, a second release) is never deleted.
void remove(const std::string& path);
// Forgets it without deleting (another rank deletes a shared file).
void forget(const std::string& path);
// Deletes every registered file, then the run's directory with whatever is left in it.
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

// The run's own directory in --io-dir, where every scratch file of the run lives: nobody else can
// enter it, so a file reopened by name there (MPI-IO reopens what it creates, and b_eff_io's
// rewrite and read open the write's files) is the run's own, whoever can change --io-dir.
struct RunDirectory {
  std::string path;     // on every process
  std::string problem;  // the same text on every process: empty, or why the run cannot go on
};
// Collective over `comm`: rank 0 creates `dir`/mpiscope-XXXXXX (mkdtemp: a new name, mode 0700)
// and registers it (removed with its content by remove_all, a signal, the reaper, the watchdog);
// every process checks that it sees that very directory (a directory, not a link, rank 0's inode),
// as the I/O suites need on a cluster where /tmp is node-local, and keeps its device and inode for
// check_run_directory. A problem names a rank and host that miss it.
RunDirectory create_run_directory(const std::string& dir, MPI_Comm comm);
// Empty while the run's directory is the one created; else why not (renamed away and replaced, by
// whoever may rename entries of --io-dir). Asked before every file is opened.
std::string run_directory_problem();

}  // namespace mpiscope::core::scratch_files
