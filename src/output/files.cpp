#include "output/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/scratch_files.hpp"

namespace mpiscope::output {

namespace {
std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}
std::string base_name_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
// The hidden prefix of the files that replace `path`: ".<name>." in its directory.
std::string replacement_prefix(const std::string& path) {
  return directory_of(path) + "/." + base_name_of(path) + ".";
}
// A short write is followed by another, which says why it fell short (errno).
bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}
// A device or FIFO named by the user is written, never replaced (renaming over /dev/null would
// replace the device).
bool is_special_file(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode) &&
         !S_ISDIR(st.st_mode);
}
}  // namespace

void check_writable(const std::string& path) {
  struct stat st {};
  if (path.empty()) throw OutputError("an output file name is empty");
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw OutputError("cannot write '" + path + "': " + std::strerror(EISDIR));
  if (is_special_file(path)) {
    const int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw OutputError("cannot write '" + path + "': " + std::strerror(errno));
    close(fd);
    return;
  }
  std::string probe;
  const int fd = core::scratch_files::create_unique(replacement_prefix(path), probe);
  if (fd < 0) throw OutputError("cannot write '" + path + "': " + std::strerror(errno));
  close(fd);
  unlink(probe.c_str());
}

ReplacementFile::ReplacementFile(std::string path) : path_(std::move(path)) {
  if (is_special_file(path_)) {
    fd_ = open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    committed_ = true;
  } else {
    fd_ = core::scratch_files::create_unique(replacement_prefix(path_), temporary_);
    // Registered, so that a process killed before the rename leaves no temporary file.
    if (fd_ >= 0) core::scratch_files::add(temporary_);
  }
  if (fd_ < 0) fail(errno);
}

ReplacementFile::~ReplacementFile() {
  if (stream_)
    std::fclose(stream_);
  else if (fd_ >= 0)
    ::close(fd_);
  if (!committed_ && !temporary_.empty()) core::scratch_files::remove(temporary_);
}

void ReplacementFile::fail(int error) const {
  throw OutputError("cannot write '" + path_ + "': " + std::strerror(error));
}

void ReplacementFile::write(std::string_view text) {
  if (stream_) {
    if (std::fwrite(text.data(), 1, text.size(), stream_) != text.size()) fail(errno);
    return;
  }
  if (!write_all(fd_, text)) fail(errno);
}

bool ReplacementFile::write_at(std::string_view text, off_t offset) {
  while (!text.empty()) {
    const ssize_t n = pwrite(fd_, text.data(), text.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
    offset += n;
  }
  return true;
}

bool ReplacementFile::truncate(off_t length) {
  struct stat st {};
  if (fstat(fd_, &st) == 0 && !S_ISREG(st.st_mode)) return true;
  return ftruncate(fd_, length) == 0;
}

std::FILE* ReplacementFile::stream() {
  if (!stream_) {
    stream_ = fdopen(fd_, "w");
    if (!stream_) fail(errno);
  }
  return stream_;
}

void ReplacementFile::flush() {
  if (!stream_) return;
  errno = 0;  // a stream that failed earlier without a call to blame has no reason of its own
  if (std::fflush(stream_) != 0 || std::ferror(stream_)) fail(errno ? errno : EIO);
}

void ReplacementFile::commit() {
  if (committed_) return;
  flush();
  // The data reaches the disk before the name does: a crash leaves the old file or the new one.
  if (fsync(fd_) != 0) fail(errno);
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) fail(errno);
  committed_ = true;
  core::scratch_files::forget(temporary_);
}

void ReplacementFile::close() {
  commit();
  const int rc = stream_ ? std::fclose(stream_) : ::close(fd_);
  const int error = errno;
  stream_ = nullptr;
  fd_ = -1;
  if (rc != 0) fail(error);
}

void replace_file(const std::string& path, const std::string& content) {
  ReplacementFile file(path);
  file.write(content);
  file.close();
}

AppendFile::AppendFile(std::string path) : path_(std::move(path)) {
  fd_ = open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd_ < 0) throw OutputError("cannot write '" + path_ + "': " + std::strerror(errno));
}

AppendFile::~AppendFile() {
  if (fd_ >= 0) ::close(fd_);
}

void AppendFile::write(std::string_view text) {
  if (!write_all(fd_, text))
    throw OutputError("cannot write '" + path_ + "': " + std::strerror(errno));
}

}  // namespace mpiscope::output
