// `mpiscope tune` (issue 37): every algorithm the MPI library offers for a collective, timed with
// the engine's accurate meter at the same lengths on the same communicator size, and the best one
// per length, chosen only where it beats the library's own choice beyond the noise; then the
// library's tuning file that applies the choice. The algorithms, their names and their numbers are
// read from the library through the MPI tool information interface (algorithms.cpp); each is
// forced by writing its control variable on every rank before the engine creates the
// communicators it times on (Open MPI reads it when a communicator is created, MPICH at each call).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace mpiscope::tune {

// The collectives tune knows (IMB-MPI1's benchmarks of them are timed), in its default order.
const std::vector<std::string>& tunable_collectives();

struct Algorithm {
  int value = 0;     // what the control variable is set to
  std::string name;  // as the library names it
};

// A collective's algorithm control variable and the algorithms it offers; the first is the
// library's own choice (Open MPI's "ignore", MPICH's "auto": value 0).
struct AlgorithmVariable {
  std::string collective;  // IMB-MPI1's name: "Allreduce"
  std::string variable;    // coll_tuned_allreduce_algorithm, MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM
  std::vector<Algorithm> algorithms;
};

// "coll_tuned_allreduce_algorithm: 0 ignore, 1 basic_linear, ...": the run's setting
// "algorithms <collective>" and its text header; parsed back (the report) into the variable, or
// nullopt when the text is not of that form.
std::string algorithms_text(const AlgorithmVariable& v);
std::optional<AlgorithmVariable> parse_algorithms_text(const std::string& collective,
                                                       const std::string& text);
inline constexpr const char* kAlgorithmsSettingPrefix = "algorithms ";

// The variables of these collectives that this process's library offers (rank 0, after MPI_Init:
// it opens the tool interface itself and, for MPICH, starts child processes to learn which names
// the library accepts). Collectives the library has no variable for are left out.
std::vector<AlgorithmVariable> offered_algorithms(const std::vector<std::string>& collectives);

// MPICH lists an algorithm variable's choices in its description, with the line breaks lost:
// "Variable to select gather algorithmauto - Internal algorithm selection (...)binomial - Force
// binomial algorithmnb       - Force nonblocking algorithm". The lower-case words glued before
// each " - ", in order ("algorithmauto", "algorithmbinomial", "algorithmnb"): each ends with an
// algorithm's name, which name_candidates() offers for the library to accept: first what follows
// the last "algorithm" in it, then every suffix, longest first.
std::vector<std::string> glued_names(const std::string& description);
std::vector<std::string> name_candidates(const std::string& glued);

// Sets an algorithm control variable on this rank (every rank does the same before a
// communicator is made); throws std::runtime_error when the library refuses.
void set_algorithm(const std::string& variable, int value);

// The choice at one length between the library's own algorithm and the fastest other.
struct LengthChoice {
  std::size_t bytes = 0;
  double default_us = 0;  // the library's own choice's median (0: not measured)
  Algorithm fastest;      // the other algorithm of the lowest median
  double fastest_us = 0;  // its median
  bool changed = false;   // the fastest is faster beyond the noise: it is chosen
  std::string why;        // why the default stays, when it does
  double speedup() const { return changed && fastest_us > 0 ? default_us / fastest_us : 1.0; }
};

// Every algorithm's rows at one length, one per round ([algorithm][round]; algorithm 0 the
// library's own choice). The fastest other is the one of the lowest median over the rounds of its
// medians; it is chosen only when it is faster beyond the noise in every round: its 95 % interval
// of the median x (1 + tolerance) lies below the library's own choice's in that round (upper
// bound x (1 + tolerance) < the other's lower bound). Rounds time the algorithms in a rotated
// order, so that a spell of load in one round cannot make a choice.
using RoundRows = std::vector<std::vector<const core::Measurement*>>;
// The median over the rounds of one algorithm's medians at a length (the mean of the middle two
// for an even count); nullopt when a round has no median.
std::optional<double> median_over_rounds(const std::vector<const core::Measurement*>& rounds);
LengthChoice choose(const std::vector<Algorithm>& algorithms, const RoundRows& rows,
                    double tolerance);

// A tuned collective: its variable and the choice at every measured length.
struct TunedCollective {
  AlgorithmVariable variable;
  std::vector<LengthChoice> choices;
};

// A tuning file's rows from the choice per length: one from each measured length up (the first
// from 0 bytes), merged where the value stays the same; a length whose size is not above the last
// row's (Barrier's: all 0) adds none. `size` is the size the library compares at IMB's length,
// `value` a row's value (the library's own decision where nothing was chosen).
template <class Value, class Size, class ValueOf>
std::vector<std::pair<std::size_t, Value>> length_rows(const std::vector<LengthChoice>& choices,
                                                       Size size, ValueOf value) {
  std::vector<std::pair<std::size_t, Value>> rows;
  for (const auto& c : choices) {
    Value v = value(c);
    const std::size_t from = rows.empty() ? 0 : size(c.bytes);
    if (rows.empty() || (from > rows.back().first && rows.back().second != v))
      rows.emplace_back(from, std::move(v));
  }
  return rows;
}

// Open MPI's coll/tuned dynamic rules file (coll_tuned_dynamic_rules_filename, read when
// coll_tuned_use_dynamic_rules is on): for communicators of exactly `processes` ranks, each
// collective's rows from each measured length up (the first from 0 bytes), the chosen algorithm's
// number, or 0 (the library's own decision) where nothing was chosen; communicators of other sizes
// keep the library's own decision. With `merged_into` (an earlier file's text), its rules for
// other sizes stay, and those of this size are replaced for every collective tuned now. Empty
// when no collective has a change and nothing is merged.
std::string open_mpi_rules_file(const std::vector<TunedCollective>& tuned, int processes,
                                const std::string& merged_into = "");
// "" when `text` is a rules file open_mpi_rules_file can merge into, else why not.
std::string open_mpi_rules_problem(const std::string& text);
// The message size Open MPI's rules compare for a collective at IMB's length X (its decision
// functions' dsize): X, or X times the process count for the gathers, scatters and all-to-all.
std::size_t open_mpi_rule_bytes(const std::string& collective, std::size_t bytes, int processes);

// MPICH's collective selection: the built-in tree of MPIR's algorithms (the JSON that
// MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE replaces as a whole) and the algorithm names the
// library accepts in it ("MPIR_Allreduce_intra_smp", "MPIR_Allreduce_allcomm_nb"), both read
// from the strings of the library file this process loaded: nothing typed into mpiscope.
struct MpichSelection {
  std::string library;                  // the file read
  std::string tree;                     // the built-in tree, JSON text
  std::vector<std::string> containers;  // every "algorithm=" name, without the prefix
};
// nullopt, with why, when the file or exactly one such tree cannot be found in it.
std::optional<MpichSelection> read_mpich_selection(std::string& why);
// The container MPICH's selection names an algorithm of the control variable by:
// MPIR_<Collective>_intra_<name> or MPIR_<Collective>_allcomm_<name>, whichever the library
// accepts; "" when neither.
std::string mpich_container(const MpichSelection& s, const std::string& collective,
                            const std::string& algorithm);
// The size MPICH's selection compares for a collective at IMB's length X: avg_msg_size (X) for
// Allreduce, Bcast, Reduce and Alltoall, total_msg_size for the others (X times the process count
// for Allgather, Gather and Scatter); 0 for Barrier, which has none.
std::size_t mpich_rule_bytes(const std::string& collective, std::size_t bytes, int processes);
// The container MPICH's built-in tree selects for the case tune times (IMB's collective of
// `bytes` on `processes` ranks, MPI_SUM on MPI_FLOAT, root 0), or "" when the tree may select
// more than one (a key tune cannot decide, such as the node hierarchy, leads to several). A
// choice of that same algorithm gains nothing in the file: forcing it through the control
// variable only skipped the selection's own cost.
std::string mpich_own_selection(const MpichSelection& s, const std::string& collective,
                                std::size_t bytes, int processes);
// Where MPICH's built-in tree keeps an algorithm for other calls than those tune times: the first
// key (such as "is_commutative=no" or "comm_size=pow2") on every path to `container` that the
// timed case fails, or "" when some path has none (or no path names it). Such an algorithm is
// not forced: MPICH 4.0's noncommutative Reduce_scatter, reserved for non-commutative operations
// on equal blocks of a power-of-two communicator, aborts the job on other calls.
std::string mpich_reserved_case(const MpichSelection& s, const std::string& collective,
                                const std::string& container, int processes);
// The library's tree with each changed collective's intra-communicator subtree split by
// communicator size: exactly `processes` ranks get a row from each measured length up (the
// chosen algorithm, or the library's own subtree), other sizes keep the library's own subtree.
// A chosen algorithm applies to the cases tune timed only (the reductions' commutative built-in
// operations, Alltoall's own send buffer). With `merged_into` (an
// earlier file's text) the split starts from that tree instead: other sizes keep its subtrees,
// and every collective tuned now gets this size's rows. Empty when nothing changed and nothing
// is merged; `notes` says what could not be written.
std::string mpich_selection_file(const MpichSelection& s, const std::vector<TunedCollective>& tuned,
                                 int processes, std::vector<std::string>& notes,
                                 const std::string& merged_into = "");
// "" when `text` is a selection file mpich_selection_file can merge into, else why not.
std::string mpich_selection_problem(const std::string& text);

}  // namespace mpiscope::tune
