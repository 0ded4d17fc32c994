// core::InputFile, the one reader of option files and imports: only regular files of UTF-8 text
// without control characters, bounded in size and line length, refused at the first offending
// byte with the byte escaped.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/input_file.hpp"
#include "core/text.hpp"

using namespace mpiscope;

namespace {

class InputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/input_file_test.XXXXXX";
    ASSERT_NE(mkdtemp(name), nullptr);
    dir_ = name;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& bytes) {
    const auto path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  // The message of the refusal, or "no error".
  static std::string refusal(const std::string& path,
                             core::InputLimits limits = core::kOptionFileLimits) {
    try {
      core::read_text_file(path, "a test file", limits);
    } catch (const core::InputError& e) {
      return e.what();
    }
    return "no error";
  }
  std::string dir_;
};

TEST_F(InputFileTest, ReadsTextExactlyLineByLine) {
  const std::string text = "first\r\n\tsecond é → ok\n\nlast without end";
  const auto path = write("t", text);
  EXPECT_EQ(core::read_text_file(path, "a test file"), text);
  core::InputFile f(path, "a test file", core::kOptionFileLimits);
  std::string line;
  ASSERT_TRUE(f.next_line(line));
  EXPECT_EQ(line, "first\r");
  ASSERT_TRUE(f.next_line(line));
  ASSERT_TRUE(f.next_line(line));
  EXPECT_EQ(line, "");
  ASSERT_TRUE(f.next_line(line));
  EXPECT_EQ(line, "last without end");
  EXPECT_FALSE(f.line_ended());
  EXPECT_EQ(f.line_number(), 4u);
  EXPECT_FALSE(f.next_line(line));
  f.rewind();
  ASSERT_TRUE(f.next_line(line));
  EXPECT_EQ(line, "first\r");
  EXPECT_EQ(f.line_number(), 1u);
}

TEST_F(InputFileTest, RefusesEveryNonTextByteAtItsOffsetEscaped) {
  struct Case {
    std::string bytes, expected;
  };
  for (const auto& c :
       std::vector<Case>{{std::string("ab\0cd\n", 6), "t:1: byte 2 is \\x00 (NUL), not text"},
                         {"ok\nA\x1b[31m\x07\n", "t:2: byte 4 is \\x1B (ESC), not text"},
                         {"x\x07", "t:1: byte 1 is \\x07, not text"},
                         {"12\x9b"
                          "34\n",
                          "t:1: byte 2 is \\x9B, not text"},  // a raw C1 control (CSI)
                         {"12\xc2\x9b"
                          "34\n",
                          "t:1: byte 2 is \\xC2\\x9B, not text"},  // the same as UTF-8
                         {"\x7f", "t:1: byte 0 is \\x7F, not text"},
                         {"\xff\xfe", "t:1: byte 0 is \\xFF, not text"},
                         {"caf\xc3", "t:1: byte 3 is \\xC3, not text"},  // cut short at the end
                         {"caf\xc3\n", "t:1: byte 3 is \\xC3, not text"}}) {
    const auto path = write("t", c.bytes);
    const auto message = refusal(path);
    EXPECT_NE(message.find(dir_ + "/" + c.expected), std::string::npos) << message;
    EXPECT_NE(message.find("a test file must be UTF-8 text without control characters"),
              std::string::npos)
        << message;
    EXPECT_EQ(core::printable(message), message) << "the message itself is printable";
  }
}

TEST_F(InputFileTest, RefusesALineOverTheLimit) {
  EXPECT_EQ(refusal(write("ok", std::string(4096, 'a') + "\n")), "no error");
  const auto message = refusal(write("long", "x\n" + std::string(4097, 'a') + "\n"));
  EXPECT_EQ(message, dir_ +
                         "/long:2: a line longer than 4096 bytes; no line of a test file is "
                         "that long");
  // Without a line end, in a file larger than the read block: refused too.
  EXPECT_NE(refusal(write("huge-line", std::string(3 << 20, 'a')), core::kImportLimits)
                .find("a line longer than 1048576 bytes"),
            std::string::npos);
}

TEST_F(InputFileTest, RefusesAnythingButARegularFile) {
  EXPECT_EQ(refusal(dir_), dir_ + ": is a directory, not a test file");
  const auto fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(refusal(fifo), fifo + ": is a pipe, not a test file (only a regular file is read)");
  EXPECT_EQ(refusal("/dev/zero", core::kImportLimits),
            "/dev/zero: is a character device, not a test file (only a regular file is read)");
  EXPECT_EQ(refusal(dir_ + "/missing"),
            dir_ + "/missing: cannot read a test file: No such file or directory");
}

// 300 MB of NUL bytes (a sparse file): refused from its size at once, and from its first byte
// where files of any size are taken, never read through.
TEST_F(InputFileTest, RefusesAHugeFileAtOnce) {
  const auto path = write("huge", "");
  std::filesystem::resize_file(path, 300u << 20);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(refusal(path),
            path + ": 314572800 bytes, more than a test file can be (at most 1 MiB)");
  EXPECT_NE(refusal(path, core::kImportLimits).find("huge:1: byte 0 is \\x00 (NUL)"),
            std::string::npos);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
}

TEST(Printable, EscapesBytesThatAreNotUtf8AndC1Controls) {
  EXPECT_EQ(core::printable("a\x9b"
                            "b"),
            "a\\x9Bb");
  EXPECT_EQ(core::printable("a\xc2\x9b"
                            "b"),
            "a\\xC2\\x9Bb");
  EXPECT_EQ(core::printable("\x1b[31m"), "\\x1B[31m");
  EXPECT_EQ(core::printable("é → ✓\t\n"), "é → ✓\t\n");
  EXPECT_EQ(core::printable("\xe2\x86"), "\\xE2\\x86");  // cut short
}

}  // namespace
