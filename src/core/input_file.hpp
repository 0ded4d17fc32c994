// Reading the text files a user hands to mpiscope: option and configuration files (IMB's -input
// and -msglen, SKaMPI configurations, PRESTA's process lists), SKaMPI output files read back, and
// the files of `mpiscope import`. One reader checks them all the same way, at the first offending
// byte, so that a planted or damaged file is refused at once rather than read into memory:
//   - only a regular file (after symbolic links): a directory, pipe, device (/dev/zero) or socket
//     is refused. Imports read each file twice (every file checked before any is stored), and a
//     stream cannot be read twice, so no pipe is supported anywhere;
//   - a file above the caller's size limit is refused from its size, before a byte is read;
//   - text only: UTF-8 without control characters (tab, CR and LF are text). A NUL, ESC, any other
//     C0 control, DEL, a C1 control (raw, as 0x9B, or as UTF-8) or a byte that is not UTF-8 ends
//     the read naming the file, its line and byte offset, and the byte escaped (\x9B);
//   - a line longer than the caller's limit ends the read the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace mpiscope::core {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct InputLimits {
  std::size_t max_bytes = 0;  // of the whole file; 0: any size (read as a stream, a line at a time)
  std::size_t max_line_bytes = 0;
};

// Option and configuration files are a few kilobytes; one line is a name, a length or a
// statement.
inline constexpr InputLimits kOptionFileLimits{.max_bytes = std::size_t{1} << 20,
                                               .max_line_bytes = 4096};
// SKaMPI output files read back (restart, postproc): every rank holds one whole, so it is
// bounded; a line carries one time per process.
inline constexpr InputLimits kOutputFileLimits{.max_bytes = std::size_t{64} << 20,
                                               .max_line_bytes = std::size_t{1} << 20};
// Imported output files: streamed (one table and one line in memory), of any size.
inline constexpr InputLimits kImportLimits{.max_bytes = 0, .max_line_bytes = std::size_t{1} << 20};

// One text file read a line at a time. `what` says what the file should be ("a -msglen file"),
// for the messages: "<path>: is a directory, not <what>", "<path>: not a regular file (a pipe),
// <what> must be a file", "<path>: cannot read <what>: <reason>", "<path>: N bytes, more than
// <what> can be (at most M)", "<path>:<line>: byte <offset> is \x1B (ESC), not text: <what> must be
// UTF-8 text without control characters", "<path>:<line>: a line longer than N bytes; no line of
// <what> is that long".
class InputFile {
 public:
  InputFile(const std::string& path, std::string what, InputLimits limits);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // The next line without its '\n' (a '\r' before it is left to the caller); false at the end.
  bool next_line(std::string& line);
  bool line_ended() const { return line_ended_; }           // false: the last line read had no '\n'
  std::size_t line_number() const { return line_number_; }  // of the last line read, from 1
  // Back to the first line, for a second pass.
  void rewind();
  const std::string& path() const { return path_; }

 private:
  bool fill();  // more bytes into buffer_; false at the end
  [[noreturn]] void refuse_bytes(const std::vector<unsigned char>& bytes,
                                 std::uint64_t offset) const;
  void check_length(const std::string& line) const;

  int fd_ = -1;
  std::string path_, what_;
  InputLimits limits_;
  std::vector<char> buffer_;
  std::size_t pos_ = 0, end_ = 0;
  std::uint64_t buffer_offset_ = 0;  // of buffer_[0] in the file
  std::size_t line_number_ = 0;
  int continuation_bytes_ = 0;       // of a UTF-8 sequence still expected
  unsigned char sequence_lead_ = 0;  // its first byte (0xC2 leads the C1 controls) …
  std::uint64_t lead_offset_ = 0;    // … and where it is
  bool line_ended_ = true;
};

// The whole file, checked as InputFile checks it (tests and small files: option files, SKaMPI
// output files).
std::string read_text_file(const std::string& path, const std::string& what,
                           InputLimits limits = kOptionFileLimits);

}  // namespace mpiscope::core
