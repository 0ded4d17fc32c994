// Reading result files of other benchmarks into the result model, so that old results can be
// stored beside new ones: IMB text output (IMB 3.x-2021 and mpiscope's own IMB tables), the OSU
// micro-benchmarks' text output, SKaMPI 5 output files, and mpiscope's own SKaMPI output files
// (`mpiscope skampi`'s @OUTFILE and `skampi postproc`'s medians). The formats are described in
// docs/results-db.md; every figure is stored as the file prints it, with its unit, except OSU's
// and IMB 2018+'s MB/s (10^6 bytes per second, IMB's version read from its title), which are
// converted to the model's MiB/s and also kept as printed; IMB-IO's names and read modes take
// mpiscope's spelling.
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

#include "db/results_db.hpp"

namespace mpiscope::db {

class ImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Format { kImb, kOsu, kSkampi, kMpiscopeSkampi };

const char* format_name(Format f);  // "imb", "osu", "skampi", "mpiscope-skampi"
// Recognises the format from the file's text; throws ImportError naming what was expected.
Format detect_format(const std::string& text);

// No benchmark prints a table this long; a file that does is refused (one table is what an
// import holds in memory).
inline constexpr std::size_t kMaxRowsPerTable = 100000;
// … nor this many differently named tables in one file (the run keeps their names).
inline constexpr std::size_t kMaxBenchmarkNames = 10000;
// … nor a calling sequence of this many words (IMB's "# Calling sequence was").
inline constexpr std::size_t kMaxCommandWords = 10000;

// Receives each table of a file as soon as it has been read.
using TableSink = std::function<void(core::BenchmarkRun&&)>;

// Whole texts, tables kept (tests and small inputs).
StoredRun parse_imb_text(const std::string& text);
StoredRun parse_osu_text(const std::string& text);
StoredRun parse_skampi_text(const std::string& text);
StoredRun parse_mpiscope_skampi_text(const std::string& text);

// Reads one file as a stream, line by line, handing each table to `sink` when it is complete, so
// that a file of any size is imported in the memory of one table. Returns the run without its
// tables: header, settings, notes, benchmark names, world size, source and source_file. Throws
// ImportError naming the file.
StoredRun import_file(const std::string& path, const TableSink& sink);
// The same with the tables kept in the returned run.
StoredRun import_file(const std::string& path);

}  // namespace mpiscope::db
