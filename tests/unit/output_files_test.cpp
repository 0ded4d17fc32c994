// ReplacementFile, check_writable and create_unique on real files in a fresh directory.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/scratch_files.hpp"
#include "output/files.hpp"

namespace fs = std::filesystem;
using namespace mpiscope;

namespace {

struct Dir {
  fs::path path;
  Dir() {
    char name[] = "/tmp/mpiscope_unit_XXXXXX";
    path = mkdtemp(name);
  }
  ~Dir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(path), {}));
  }
};

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

TEST(OutputFiles, ReplacesALinkInsteadOfWritingThroughIt) {
  Dir d;
  write_text(d / "victim", "victim");
  ASSERT_EQ(symlink((d / "victim").c_str(), (d / "out").c_str()), 0);
  output::replace_file(d / "out", "new");
  EXPECT_EQ(text_of(d / "victim"), "victim");
  EXPECT_EQ(text_of(d / "out"), "new");
  EXPECT_FALSE(fs::is_symlink(d / "out"));
  EXPECT_EQ(d.entries(), 2u);
}

TEST(OutputFiles, UncommittedFileLeavesTheTargetAndNoTemporaryFile) {
  Dir d;
  write_text(d / "out", "old");
  {
    output::ReplacementFile f(d / "out");
    f.write("half of a new");
    EXPECT_EQ(d.entries(), 2u);
  }
  EXPECT_EQ(text_of(d / "out"), "old");
  EXPECT_EQ(d.entries(), 1u);
}

TEST(OutputFiles, ModeHonoursTheUmask) {
  Dir d;
  for (const mode_t mask : {mode_t{022}, mode_t{077}}) {
    const mode_t previous = umask(mask);
    output::replace_file(d / "out", "x");
    umask(previous);
    struct stat st {};
    ASSERT_EQ(stat((d / "out").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
  }
}

TEST(OutputFiles, CheckWritableLeavesAnExistingFileAndRefusesADirectory) {
  Dir d;
  write_text(d / "out", "old");
  output::check_writable(d / "out");
  EXPECT_EQ(text_of(d / "out"), "old");
  EXPECT_EQ(d.entries(), 1u);
  EXPECT_THROW(output::check_writable(d.path.string()), output::OutputError);
  EXPECT_THROW(output::check_writable(d / "missing/out"), output::OutputError);
}

TEST(OutputFiles, DevicesAreWrittenDirectlyAndTheirErrorsNamed) {
  output::replace_file("/dev/null", "nothing");
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  try {
    output::replace_file("/dev/full", "too much");
    ADD_FAILURE() << "no error from /dev/full";
  } catch (const output::OutputError& e) {
    EXPECT_STREQ(e.what(), "cannot write '/dev/full': No space left on device");
  }
}

TEST(ScratchFiles, CreateUniqueNeverOpensAnExistingName) {
  Dir d;
  std::string first, second;
  const int a = core::scratch_files::create_unique(d / "p-", first);
  const int b = core::scratch_files::create_unique(d / "p-", second);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  close(a);
  close(b);
  EXPECT_NE(first, second);
  EXPECT_EQ(first.size(), (d / "p-").size() + 16);
  EXPECT_NE(core::scratch_files::unique_run_tag(), core::scratch_files::unique_run_tag());
}
