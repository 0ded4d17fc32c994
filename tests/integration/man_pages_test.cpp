// Issue 33 item 2: the man pages are made from the help screens, so every option a help screen
// lists is on its page, as a paragraph of its own: rendered by man itself, each option of `mpiscope
// SUITE --help` (and of each legacy name's help) appears on the page, and there is a page for every
// subcommand and legacy name. Help needs no MPI: it answers without a launcher.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace harness;

namespace {

std::set<std::string> options_in(const std::string& help) {
  std::set<std::string> out;
  const std::regex option(R"((^|[\s,\[|(])(--?[A-Za-z][A-Za-z0-9_-]*))");
  for (std::sregex_iterator it(help.begin(), help.end(), option), end; it != end; ++it)
    out.insert((*it)[2]);
  return out;
}

std::string rendered(const std::string& page) {
  const auto r = run_command("LC_ALL=C MANWIDTH=400 man -l " + quote(page) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << page << r.out;
  return r.out;
}

}  // namespace

TEST(ManPages, EveryOptionOfEachHelpScreenIsOnItsPage) {
  const std::string dir = bin_dir() + "/../share/man/man1";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  // The subcommands and legacy names, from mpiscope's own lists.
  const auto aliases = lines_of(run_plain({"--aliases"}).out);
  std::vector<std::string> suites;
  for (const auto& line : lines_of(run_plain({"--help"}).out))
    if (line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ')
      suites.push_back(line.substr(2, line.find(' ', 2) - 2));
  ASSERT_GE(suites.size(), 10u);
  ASSERT_GE(aliases.size(), 10u);
  std::size_t pages = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    pages += entry.path().extension() == ".1";
  EXPECT_EQ(pages, 1 + suites.size() + aliases.size());

  const auto check = [&](const std::string& page, const Result& help) -> std::size_t {
    SCOPED_TRACE(page);
    EXPECT_EQ(help.exit_code, 0) << help.err;
    if (help.exit_code != 0) return 0;
    const auto options = options_in(help.out);
    const auto text = rendered(dir + "/" + page);
    for (const auto& o : options) EXPECT_NE(text.find(o), std::string::npos) << o;
    return options.size();
  };
  std::size_t checked = 0;
  for (const auto& s : suites) checked += check("mpiscope-" + s + ".1", run_plain({s, "--help"}));
  for (const auto& a : aliases) {
    // A legacy name's own help: IMB's -help, CLI11's --help.
    auto help = run_plain({"--help"}, a);
    if (help.exit_code != 0 || help.out.empty()) help = run_plain({"-help"}, a);
    checked += check(a + ".1", help);
  }
  EXPECT_GE(checked, 200u);  // the pages hold hundreds of options in all
  // The top page lists every subcommand.
  const auto top = rendered(dir + "/mpiscope.1");
  for (const auto& s : suites) EXPECT_NE(top.find(s), std::string::npos) << s;
}

// Each option of a help screen is a paragraph of its own on its page (.TP, the option in bold),
// under a section of its own (OPTIONS for CLI11's screens), not one preformatted block.
TEST(ManPages, EachOptionIsAParagraphOfItsOwn) {
  const std::string dir = bin_dir() + "/../share/man/man1";
  const auto roff = [](const std::string& text) {
    std::string out;
    for (const char c : text) out += c == '-' ? std::string("\\-") : std::string(1, c);
    return out;
  };
  std::size_t checked = 0;
  for (const auto& [page, help] :
       {std::pair{std::string("osu_bw.1"), run_plain({"--help"}, "osu_bw")},
        std::pair{std::string("IMB-MPI1.1"), run_plain({"-help"}, "IMB-MPI1")},
        std::pair{std::string("mpiscope-history.1"), run_plain({"history", "--help"})},
        std::pair{std::string("mpiscope-skampi.1"), run_plain({"skampi", "--help"})}}) {
    SCOPED_TRACE(page);
    ASSERT_EQ(help.exit_code, 0) << help.err;
    const auto text = read_file(dir + "/" + page);
    for (const auto& line : lines_of(help.out)) {
      if (line.rfind("  -", 0) != 0) continue;
      const std::string term = line.substr(2, line.find("  ", 2) - 2);
      EXPECT_NE(text.find(".TP\n\\fB" + roff(term) + "\\fR\n"), std::string::npos) << term;
      ++checked;
    }
    if (page != "IMB-MPI1.1") {
      EXPECT_NE(text.find("\n.SH OPTIONS\n"), std::string::npos);
    }
  }
  EXPECT_GE(checked, 60u);
}

TEST(ManPages, HelpNeedsNoLauncher) {
  // Without mpirun, as root, fast: no MPI is started for help (Open MPI would refuse root).
  const auto imb = run_plain({"-help"}, "IMB-MPI1");
  EXPECT_EQ(imb.exit_code, 0) << imb.err;
  EXPECT_NE(imb.out.find("-msglog"), std::string::npos) << imb.out;
  const auto tune = run_plain({"tune", "--help"});
  EXPECT_EQ(tune.exit_code, 0) << tune.err;
  EXPECT_NE(tune.out.find("--rounds"), std::string::npos) << tune.out;
  // Under a launcher only rank 0 answers. Once in a fresh-clone run (this stop's, beside other
  // tests) MPICH's mpiexec ended with SIGPIPE (exit 141) and no output, though both processes
  // exit 0 before MPI starts and 160 launches alone, with and without a busy loop beside them,
  // all printed the help: a launch that dies of SIGPIPE is tried once more.
  auto launched = run_mpi(2, {"imb-mpi1", "-help"});
  if (launched.exit_code == 128 + 13 && launched.out.empty())
    launched = run_mpi(2, {"imb-mpi1", "-help"});
  EXPECT_EQ(launched.exit_code, 0) << launched.err;
  EXPECT_EQ(count_of(launched.out, "-msglog"), count_of(imb.out, "-msglog")) << launched.out;
}
