// The SKaMPI output file (@OUTFILE), a versioned line-oriented text format described in
// docs/skampi.md: a header of @KEY lines, then one block per finished suite. A block is
// written only when its suite is complete, so a crashed run leaves whole blocks behind (plus
// perhaps a torn tail, which the reader drops); that is what restart and the post-processor read.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace mpiscope::skampi {

inline constexpr int kOutputFormatVersion = 1;

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
};

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

std::string format_header(const std::vector<std::pair<std::string, std::string>>& header);
std::string format_suite(const SuiteResult& s);
std::string format_end();
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

}  // namespace mpiscope::skampi
