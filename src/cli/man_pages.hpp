// Man pages made from the help screens, which the option tables make (no second copy of the
// options that could drift): mpiscope(1), one page per subcommand (mpiscope-imb-mpi1(1), ...)
// and one per legacy name (IMB-MPI1(1), osu_bw(1), com(1), ...). The build writes them into
// <build>/share/man/man1 (`mpiscope --man-pages DIR`); `cmake --install` puts them in
// <prefix>/share/man/man1.
#pragma once

#include <string>

namespace mpiscope::cli {

// One page: NAME (with the one-line summary), DESCRIPTION (the help screen: its "Options:" and
// like headings as sections, each option a paragraph of its own, synopses as printed), SEE ALSO.
std::string man_page(const std::string& name, const std::string& summary, const std::string& help);

// Writes every page into `directory` (created), the top-level one from `overview` (mpiscope's
// --help); each subcommand's and legacy name's help is asked of this executable in a child
// process, which starts no MPI for help. Returns the exit code (1 when a help screen could not
// be had, saying which).
int write_man_pages(const std::string& directory, const std::string& overview);

}  // namespace mpiscope::cli
