// Output files: checked up front, without touching them, so that an unwritable path is reported
// before anything runs; written under a fresh name beside the target and renamed over it, so that
// a failed or interrupted run never leaves a half-written or truncated file, and a name planted in
// a shared directory (a symbolic link to someone else's file) is never written through.
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mpiscope::output {

class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws OutputError naming the path and the reason unless `path` could be replaced: it is not a
// directory, and a file can be created in its directory (tried for real, and removed). An existing
// file is left as it is.
void check_writable(const std::string& path);

// The file that will replace `path`. It is created with a random name in the same directory
// (O_CREAT | O_EXCL | O_NOFOLLOW, mode 0666 less the umask) and renamed over `path` by commit();
// destroyed uncommitted, or when the process dies before the rename (it is a registered scratch
// file, core/scratch_files.hpp), it is removed and `path` is left as it was. A `path` that exists
// and is neither a regular file nor a symbolic link (a device such as /dev/null or /dev/full, a
// FIFO) is written directly instead. Every write, the flush and the close are checked: a failure
// throws OutputError with the reason of the call that failed.
class ReplacementFile {
 public:
  explicit ReplacementFile(std::string path);
  ~ReplacementFile();
  ReplacementFile(const ReplacementFile&) = delete;
  ReplacementFile& operator=(const ReplacementFile&) = delete;

  const std::string& path() const { return path_; }
  // Appends at the end of what was written.
  void write(std::string_view text);
  // Writes at an offset (the JSON reporter rewrites its tail); returns false, with errno set,
  // instead of throwing, so that the caller can restore what was there.
  bool write_at(std::string_view text, off_t offset);
  // Sets the length (nothing for a device).
  bool truncate(off_t length);
  // A stdio stream on the file (created once; the file then writes through it only). flush()
  // checks it.
  std::FILE* stream();
  void flush();
  // Flushes to the disk and renames the file over `path`, once; the file stays open for more
  // writes, which then go to `path`.
  void commit();
  // commit(), then closes the file, checked.
  void close();
  [[noreturn]] void fail(int error) const;

 private:
  std::string path_, temporary_;  // temporary_ is empty once renamed, or for a device
  int fd_ = -1;
  std::FILE* stream_ = nullptr;
  bool committed_ = false;
};

// Writes `content` to a ReplacementFile and commits it.
void replace_file(const std::string& path, const std::string& content);

// A file that grows (a log): opened for appending, created (0666 less the umask) when missing; a
// symbolic link at `path` is refused, not followed. Every write is checked (OutputError).
class AppendFile {
 public:
  explicit AppendFile(std::string path);
  ~AppendFile();
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;
  void write(std::string_view text);

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace mpiscope::output
