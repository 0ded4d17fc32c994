// Where an installed mpiscope finds what it reads at run time: `<prefix>/share/mpiscope`, found
// from the executable's own path (<prefix>/bin/mpiscope), so that a prefix moved elsewhere still
// works; the build tree has the same layout (build/bin, build/share/mpiscope).
#pragma once

#include <optional>
#include <string>

namespace mpiscope::core {

// `<directory of the executable>/../share/mpiscope`, when it exists.
std::optional<std::string> data_directory();

// A SKaMPI configuration given as CONFIG: the file itself when it exists, else one of the
// configurations shipped in data_directory()/skampi by its name ("standard" or
// "standard.skampi"); nullopt when neither is there.
std::optional<std::string> skampi_configuration(const std::string& name);

}  // namespace mpiscope::core
