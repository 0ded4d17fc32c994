// The SKaMPI output file (@OUTFILE), a versioned line-oriented text format described in
// docs/skampi.md: a header of @KEY lines, then one block per finished suite. A block is
// written only when its suite is complete, so a crashed run leaves whole blocks behind (plus
// perhaps a torn tail, which the reader drops); that is what restart and the post-processor read.
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace mpiscope::skampi {

inline constexpr int kOutputFormatVersion = 1;
// The first line of every output file starts with this, then the format version.
inline constexpr char kOutputFileMagic[] = "#SKAMPI-OUTPUT";

struct PointRow {
  long argument = 0;  // the varied value (bytes, processes or chunks)
  long bytes = 0;     // message length
  int nprocs = 0;     // participating processes
  int chunks = 0;     // master-worker only
  double t_us = 0;    // mean after Cut_Quantile minus the empty measurement
  double stderr_us = 0, raw_us = 0, empty_us = 0;
  int repetitions = 0, used = 0;
  bool converged = false;
  long defects = 0;
  std::vector<double> node_times_us;  // Node_Times = yes: every participant's own mean
  // Accurate mode (the suite's @PARAM method is accurate): the statistics over the valid
  // repetitions; t_us and raw_us are then their median, empty_us 0, stderr_us sigma/sqrt(n) of
  // the valid repetitions, repetitions the attempted ones, used the valid ones, and the block
  // has the extra columns kAccurateColumns.
  std::optional<core::AccurateStats> accurate;
  // Not in the file: a window fall-back's note (rebuilt when read back), why a classic time is not
  // a figure (kBelowZeroNote is rebuilt when read back).
  std::string note;
};

// The columns an accurate suite's rows have after node_times_us.
extern const char* const kAccurateColumns;

// Suite @PARAMs that are not parameters of its table (benchmark_of leaves them out): the
// ping-pong pair, chosen by latency at every run, is the run's setting kPairSetting, so that runs
// of one configuration compare whichever pair they chose; Time_Suite's ending of the suite is a
// note (suite_notes) about how this run went.
inline constexpr char kPairParam[] = "pair";
inline constexpr char kPairSetting[] = "pingpong_pair";
inline constexpr char kTimeSuiteParam[] = "time_suite_stopped";
// A classic row whose mean fell below its empty measurement; its note, and that of a time
// below the timer's resolution, ends in kNotAFigure.
inline constexpr char kNotAFigure[] = "not a figure";
inline constexpr char kBelowZeroNote[] =
    "t is below zero (the operation's mean is below the empty measurement subtracted from it): "
    "not a figure";
inline bool ends_with_not_a_figure(const std::string& note) {
  return note.ends_with(kNotAFigure);
}

struct SuiteResult {
  std::string name;
  int type = 0;
  std::string operation, pattern, variation, argument_unit;
  std::map<std::string, std::string> params;
  std::vector<PointRow> rows;  // in measurement order
};

struct OutputFile {
  int version = kOutputFormatVersion;
  std::vector<std::pair<std::string, std::string>> header;  // in order
  std::vector<SuiteResult> suites;                          // complete blocks only
  bool complete = false;                                    // @END_RUN seen
  std::string torn_suite;  // a block begun but not ended (the crashed suite)
};

// The one reader of the format, fed a line at a time so that no file need be held whole: each
// complete suite block is handed to `on_suite` when its @END_SUITE is read. Restart, postproc
// (parse_output) and `mpiscope import` (db/import.cpp) all read through it. Errors are
// std::runtime_error "NAME:LINE: what" ("line LINE: what" for an empty name); a malformed row
// that turns out to be the last line is a torn tail and is dropped.
class OutputReader {
 public:
  using SuiteSink = std::function<void(SuiteResult&&)>;
  OutputReader(std::string name, SuiteSink on_suite);
  void line(const std::string& text);
  // After the last line: the file without its suites (header, complete, torn_suite, version).
  OutputFile finish();
  const std::vector<std::pair<std::string, std::string>>& header() const { return file_.header; }
  // The block being read (nullptr between blocks): its rows so far.
  const SuiteResult* open_suite() const { return in_suite_ ? &suite_ : nullptr; }

 private:
  [[noreturn]] void fail(const std::string& what, std::size_t line) const;
  std::string name_;
  SuiteSink on_suite_;
  OutputFile file_;
  SuiteResult suite_;
  bool in_suite_ = false;
  std::size_t lines_ = 0;
  std::size_t malformed_line_ = 0;  // a malformed row, an error unless it is the last line
};

std::string format_header(const std::vector<std::pair<std::string, std::string>>& header);
std::string format_suite(const SuiteResult& s);
std::string format_end();
// One data row as the file holds it (`digits` significant digits), and back; `accurate` reads
// the extra columns. parse_row returns false for a malformed (torn) row.
std::string format_row(const PointRow& p, int digits = 6);
bool parse_row(const std::string& line, bool accurate, PointRow& p);
// A measured row as its line in the file holds it, as parse_row would read it back: accurate
// statistics without a column are left out and the derived ones derived, so that a suite
// measured now and one kept from an interrupted run (restart, import) are the same table.
PointRow as_written(const PointRow& p);
// Throws std::runtime_error naming the file and line for a malformed file (torn tails excepted).
OutputFile parse_output(const std::string& text, const std::string& name);
OutputFile read_output(const std::string& path);

// Several runs of the same configuration merged into one: for every suite and argument, the
// median of t_us (and of the other times) over the runs that measured that argument; the
// repetitions column then counts the runs. Suites or arguments missing from some runs use the
// runs that have them.
OutputFile postprocess(const std::vector<OutputFile>& runs);
std::string format_output(const OutputFile& f);

double median(std::vector<double> v);

// A suite block in the result model, as every reporter of a run receives it and as
// `mpiscope import` stores an output file: one table per suite (parameters: the @PARAMs, type,
// operation, variation, argument_unit), one row per point with its figures as named values.
core::BenchmarkRun benchmark_of(const SuiteResult& s, int world_size);
// What a run says about a suite besides its table, "suite NAME: ...": the method's note, the
// grid thinned by Max_Steps, the suite ended by Time_Suite.
std::vector<std::string> suite_notes(const SuiteResult& s);
// The run settings a suite's @PARAMs give (kPairSetting).
std::map<std::string, std::string> suite_settings(const SuiteResult& s);
core::Measurement measurement_of(const PointRow& p, const std::string& argument_unit);

}  // namespace mpiscope::skampi
