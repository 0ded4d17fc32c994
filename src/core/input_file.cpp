#include "core/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/text.hpp"

namespace mpiscope::core {

namespace {

constexpr std::size_t kBlockBytes = 65536;

std::string escaped(const std::vector<unsigned char>& bytes) {
  std::string out;
  for (unsigned char b : bytes) {
    char hex[5];
    std::snprintf(hex, sizeof hex, "\\x%02X", b);
    out += hex;
  }
  return out;
}

std::string file_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string size_text(std::size_t bytes) {
  return bytes >= (std::size_t{1} << 20) ? std::to_string(bytes >> 20) + " MiB"
                                         : std::to_string(bytes) + " bytes";
}

}  // namespace

InputFile::InputFile(const std::string& path, std::string what, InputLimits limits)
    : path_(printable(path)), what_(std::move(what)), limits_(limits) {
  // O_NONBLOCK: opening a pipe without a writer must not wait; it is refused below anyway.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) {
    const int error = errno;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      throw InputError(path_ + ": is a directory, not " + what_);
    throw InputError(path_ + ": cannot read " + what_ + ": " + std::strerror(error));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int error = errno;
    ::close(fd_);
    throw InputError(path_ + ": cannot read " + what_ + ": " + std::strerror(error));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    if (S_ISDIR(st.st_mode)) throw InputError(path_ + ": is a directory, not " + what_);
    throw InputError(path_ + ": is " + file_kind(st.st_mode) + ", not " + what_ +
                     " (only a regular file is read)");
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  if (limits_.max_bytes > 0 && size > limits_.max_bytes) {
    ::close(fd_);
    throw InputError(path_ + ": " + std::to_string(size) + " bytes, more than " + what_ +
                     " can be (at most " + size_text(limits_.max_bytes) + ")");
  }
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  buffer_.resize(kBlockBytes);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool InputFile::fill() {
  buffer_offset_ += end_;
  pos_ = end_ = 0;
  for (;;) {
    const ssize_t got = ::read(fd_, buffer_.data(), buffer_.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw InputError(path_ + ": cannot read " + what_ + ": " + std::strerror(errno));
    end_ = static_cast<std::size_t>(got);
    // A file that grew past its limit while being read is refused as a large one is.
    if (limits_.max_bytes > 0 && buffer_offset_ + end_ > limits_.max_bytes)
      throw InputError(path_ + ": more than " + std::to_string(limits_.max_bytes) +
                       " bytes, more than " + what_ + " can be (at most " +
                       size_text(limits_.max_bytes) + ")");
    return end_ > 0;
  }
}

void InputFile::refuse_bytes(const std::vector<unsigned char>& bytes, std::uint64_t offset) const {
  const unsigned char byte = bytes.front();
  const char* name = byte == 0 ? " (NUL)" : byte == 0x1B ? " (ESC)" : "";
  throw InputError(path_ + ":" + std::to_string(line_number_ + 1) + ": byte " +
                   std::to_string(offset) + " is " + escaped(bytes) + name +
                   ", not text: " + what_ + " must be UTF-8 text without control characters");
}

void InputFile::check_length(const std::string& line) const {
  if (limits_.max_line_bytes > 0 && line.size() > limits_.max_line_bytes)
    throw InputError(path_ + ":" + std::to_string(line_number_ + 1) + ": a line longer than " +
                     std::to_string(limits_.max_line_bytes) + " bytes; no line of " + what_ +
                     " is that long");
}

bool InputFile::next_line(std::string& line) {
  line.clear();
  bool any = false;
  for (;;) {
    if (pos_ == end_ && !fill()) {
      if (continuation_bytes_ > 0) refuse_bytes({sequence_lead_}, lead_offset_);  // cut short
      if (any) {
        ++line_number_;
        line_ended_ = false;
      }
      return any;
    }
    any = true;
    const std::size_t start = pos_;
    for (; pos_ < end_; ++pos_) {
      const auto c = static_cast<unsigned char>(buffer_[pos_]);
      if (continuation_bytes_ > 0) {
        // The C1 controls as UTF-8 are U+0080..U+009F: 0xC2 then 0x80..0x9F.
        if (sequence_lead_ == 0xC2 && c >= 0x80 && c <= 0x9F)
          refuse_bytes({sequence_lead_, c}, lead_offset_);
        if (c < 0x80 || c > 0xBF) refuse_bytes({sequence_lead_}, lead_offset_);  // cut short
        --continuation_bytes_;
        continue;
      }
      if (c == '\n') {
        line.append(buffer_.data() + start, pos_ - start);
        check_length(line);
        ++pos_;
        ++line_number_;
        line_ended_ = true;
        return true;
      }
      const std::uint64_t offset = buffer_offset_ + pos_;
      if (c < 0x80) {
        if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7F) refuse_bytes({c}, offset);
        continue;
      }
      if (c >= 0xC2 && c <= 0xDF)
        continuation_bytes_ = 1;
      else if (c >= 0xE0 && c <= 0xEF)
        continuation_bytes_ = 2;
      else if (c >= 0xF0 && c <= 0xF4)
        continuation_bytes_ = 3;
      else
        refuse_bytes({c}, offset);  // a raw C1 control (0x9B), a stray continuation: not UTF-8
      sequence_lead_ = c;
      lead_offset_ = offset;
    }
    line.append(buffer_.data() + start, pos_ - start);
    check_length(line);
  }
}

void InputFile::rewind() {
  if (::lseek(fd_, 0, SEEK_SET) != 0)
    throw InputError(path_ + ": cannot read " + what_ + " again: " + std::strerror(errno));
  pos_ = end_ = 0;
  buffer_offset_ = 0;
  line_number_ = 0;
  continuation_bytes_ = 0;
  sequence_lead_ = 0;
  line_ended_ = true;
}

std::string read_text_file(const std::string& path, const std::string& what, InputLimits limits) {
  InputFile file(path, what, limits);
  std::string text;
  for (std::string line; file.next_line(line);) {
    text += line;
    if (file.line_ended()) text += '\n';
  }
  return text;
}

}  // namespace mpiscope::core
