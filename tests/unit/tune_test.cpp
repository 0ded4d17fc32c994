// `mpiscope tune`'s pure parts (suites/tune): MPICH's glued algorithm names, the choice per length
// on made-up medians and intervals, Open MPI's rules file and MPICH's selection file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "suites/tune/tune.hpp"

using namespace mpiscope;

namespace {

core::Measurement point(std::size_t bytes, double median, double lower, double upper) {
  core::Measurement m;
  m.measured = true;
  m.bytes = bytes;
  core::AccurateStats a;
  a.summary_us.median = median;
  a.summary_us.median_ci.available = true;
  a.summary_us.median_ci.lower = lower;
  a.summary_us.median_ci.upper = upper;
  m.accurate = a;
  return m;
}

const std::vector<tune::Algorithm> kAlgorithms = {
    {0, "ignore"}, {3, "recursive_doubling"}, {4, "ring"}};

}  // namespace

TEST(TuneNames, MpichsGluedDescriptionGivesEachNameAsACandidate) {
  // MPICH 4.0.2's description of MPIR_CVAR_BCAST_INTRA_ALGORITHM, as MPI_T gives it.
  const std::string description =
      "Variable to select bcast algorithmauto - Internal algorithm selection (can be overridden "
      "with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)binomial                                - "
      "Force Binomial Treenb                                      - Force nonblocking "
      "algorithmsmp                                     - Force smp "
      "algorithmscatter_recursive_doubling_allgather    - Force Scatter Recursive-Doubling "
      "Allgatherscatter_ring_allgather                  - Force Scatter Ring";
  const auto glued = tune::glued_names(description);
  ASSERT_EQ(glued.size(), 6u);
  EXPECT_EQ(glued[0], "algorithmauto");
  EXPECT_EQ(glued[1], "binomial");
  EXPECT_EQ(glued[2], "reenb");  // "Tree" + "nb": only the library can tell where "nb" starts
  const std::vector<std::pair<std::string, std::string>> expected = {
      {glued[2], "nb"},
      {glued[3], "smp"},
      {glued[4], "scatter_recursive_doubling_allgather"},
      {glued[5], "scatter_ring_allgather"}};
  for (const auto& [word, name] : expected) {
    const auto candidates = tune::name_candidates(word);
    EXPECT_NE(std::find(candidates.begin(), candidates.end(), name), candidates.end()) << word;
  }
  // What follows "algorithm" is tried first: one child accepts it at once.
  EXPECT_EQ(tune::name_candidates(glued[3]).front(), "smp");
}

TEST(TuneChoice, TheFastestIsChosenOnlyBeyondTheNoise) {
  const auto library = point(1024, 10.0, 9.8, 10.2);
  // ring's interval reaches 8.2 x 1.05 = 8.61 < 9.8: chosen.
  auto ring = point(1024, 8.0, 7.9, 8.2), doubling = point(1024, 12, 11.8, 12.3);
  auto c = tune::choose(kAlgorithms, {{&library}, {&doubling}, {&ring}}, 0.05);
  EXPECT_TRUE(c.changed);
  EXPECT_EQ(c.bytes, 1024u);
  EXPECT_EQ(c.fastest.name, "ring");
  EXPECT_EQ(c.fastest.value, 4);
  EXPECT_NEAR(c.speedup(), 10.0 / 8.0, 1e-12);
  // Faster, but its interval x (1 + 5 %) reaches the library's: the library's own choice stays.
  ring = point(1024, 9.4, 9.3, 9.5);
  c = tune::choose(kAlgorithms, {{&library}, {&doubling}, {&ring}}, 0.05);
  EXPECT_FALSE(c.changed);
  EXPECT_EQ(c.fastest.name, "ring");
  EXPECT_NE(c.why.find("not faster beyond the noise in round 1 of 1"), std::string::npos) << c.why;
  // The same at no tolerance: chosen.
  EXPECT_TRUE(tune::choose(kAlgorithms, {{&library}, {&doubling}, {&ring}}, 0.0).changed);
  // The library's own choice unmeasured: nothing is chosen.
  core::Measurement none;
  EXPECT_FALSE(tune::choose(kAlgorithms, {{&none}, {&doubling}, {&ring}}, 0.0).changed);
}

TEST(TuneChoice, EveryRoundMustAgree) {
  // Round 1: ring far faster; round 2: as fast as the library's choice (a spell of load on the
  // library's choice in round 1, say). Not chosen: the rounds disagree.
  const auto library1 = point(64, 10.0, 9.8, 10.2), library2 = point(64, 6.0, 5.9, 6.1);
  const auto ring1 = point(64, 6.0, 5.9, 6.1), ring2 = point(64, 6.0, 5.9, 6.1);
  const auto slow = point(64, 20, 19, 21);
  auto c =
      tune::choose(kAlgorithms, {{&library1, &library2}, {&slow, &slow}, {&ring1, &ring2}}, 0.05);
  EXPECT_FALSE(c.changed);
  EXPECT_NE(c.why.find("in round 2 of 2"), std::string::npos) << c.why;
  // Faster in both rounds: chosen, with the medians over the rounds (two: their mean).
  const auto library3 = point(64, 9.0, 8.8, 9.2);
  c = tune::choose(kAlgorithms, {{&library1, &library3}, {&slow, &slow}, {&ring1, &ring2}}, 0.05);
  EXPECT_TRUE(c.changed);
  EXPECT_NEAR(c.default_us, 9.5, 1e-12);
  EXPECT_NEAR(c.fastest_us, 6.0, 1e-12);
}

TEST(TuneRules, OpenMpisFileChangesOnlyTheMeasuredSizeFromEachLengthUp) {
  tune::TunedCollective allreduce{{"Allreduce", "coll_tuned_allreduce_algorithm", kAlgorithms}, {}};
  for (const auto& [bytes, changed] :
       std::vector<std::pair<std::size_t, bool>>{{4, false}, {1024, true}, {65536, true}}) {
    tune::LengthChoice c;
    c.bytes = bytes;
    c.changed = changed;
    c.fastest = {4, "ring"};
    allreduce.choices.push_back(c);
  }
  tune::TunedCollective alltoall{{"Alltoall", "coll_tuned_alltoall_algorithm", kAlgorithms}, {}};
  tune::LengthChoice a;
  a.bytes = 4;
  a.changed = true;
  a.fastest = {3, "pairwise"};
  alltoall.choices = {a, a};
  alltoall.choices[1].bytes = 1024;
  const auto file = tune::open_mpi_rules_file({allreduce, alltoall}, 4);
  // Collective id 2 (ALLREDUCE): sizes 1, 4 (0 B: the library's, from 1024 B: ring, merged with
  // 64 KiB) and 5; id 3 (ALLTOALL): its dsize is 4 x the processes, one row from 0.
  EXPECT_EQ(file,
            "2 # collectives: written by mpiscope tune\n"
            "2 # Allreduce\n3 # communicator sizes\n"
            "1 # communicators this small keep the library's decision\n1\n0 0 0 0\n"
            "4 # communicators of the measured size\n2\n0 0 0 0\n1024 4 0 0\n"
            "5 # larger communicators keep the library's decision\n1\n0 0 0 0\n"
            "3 # Alltoall\n3 # communicator sizes\n"
            "1 # communicators this small keep the library's decision\n1\n0 0 0 0\n"
            "4 # communicators of the measured size\n1\n0 3 0 0\n"
            "5 # larger communicators keep the library's decision\n1\n0 0 0 0\n");
  EXPECT_EQ(tune::open_mpi_rule_bytes("Alltoall", 1024, 4), 4096u);
  EXPECT_EQ(tune::open_mpi_rule_bytes("Bcast", 1024, 4), 1024u);
  // No change anywhere: no file.
  allreduce.choices[1].changed = allreduce.choices[2].changed = false;
  EXPECT_EQ(tune::open_mpi_rules_file({allreduce}, 4), "");
}

TEST(TuneRules, MpichsFileSplitsTheMeasuredSizeOffTheLibrarysOwnTree) {
  // A made-up library tree and the containers it accepts, as read_mpich_selection gives them.
  tune::MpichSelection library;
  library.tree =
      R"({"collective=allgather":{"comm_type=intra":{"algorithm=MPIR_Allgather_intra_ring":{}}},)"
      R"("collective=allreduce":{"comm_type=intra":{"algorithm=MPIR_Allreduce_intra_smp":{}},)"
      R"("comm_type=inter":{"algorithm=MPIR_Allreduce_inter_x":{}}}})";
  library.containers = {"MPIR_Allgather_intra_ring", "MPIR_Allgather_allcomm_nb",
                        "MPIR_Allreduce_intra_smp", "MPIR_Allreduce_intra_recursive_doubling"};
  EXPECT_EQ(tune::mpich_container(library, "Allgather", "nb"), "MPIR_Allgather_allcomm_nb");
  EXPECT_EQ(tune::mpich_container(library, "Allgather", "brucks"), "");

  tune::TunedCollective allreduce{{"Allreduce", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", {}}, {}};
  for (const auto& [bytes, changed] :
       std::vector<std::pair<std::size_t, bool>>{{4, false}, {1024, true}, {65536, true}}) {
    tune::LengthChoice c;
    c.bytes = bytes;
    c.changed = changed;
    c.fastest = {3, "recursive_doubling"};
    allreduce.choices.push_back(c);
  }
  tune::TunedCollective allgather{{"Allgather", "MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM", {}}, {}};
  tune::LengthChoice g;
  g.bytes = 64;
  g.changed = true;
  g.fastest = {2, "nb"};
  allgather.choices = {g, g};
  allgather.choices[1].bytes = 1024;
  allgather.choices[1].fastest = {1, "brucks"};  // a name the library's file does not accept
  std::vector<std::string> notes;
  const auto text = tune::mpich_selection_file(library, {allreduce, allgather}, 4, notes);
  const auto tree = nlohmann::ordered_json::parse(text);
  const auto own_allreduce =
      nlohmann::ordered_json::parse(R"({"algorithm=MPIR_Allreduce_intra_smp":{}})");
  const auto& intra = tree.at("collective=allreduce").at("comm_type=intra");
  // Smaller and larger communicators keep the library's subtree, in the order MPICH tries them.
  std::vector<std::string> keys;
  for (const auto& [key, value] : intra.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"comm_size<=3", "comm_size<=4", "comm_size=any"}));
  EXPECT_EQ(intra.at("comm_size<=3"), own_allreduce);
  EXPECT_EQ(intra.at("comm_size=any"), own_allreduce);
  // 4 ranks: the library's own below 1 KiB, recursive doubling from 1 KiB up (merged with 64 KiB)
  // for commutative built-in operations only.
  const auto& sized = intra.at("comm_size<=4");
  EXPECT_EQ(sized.at("avg_msg_size<=1023"), own_allreduce);
  const auto& chosen = sized.at("avg_msg_size=any");
  EXPECT_EQ(chosen.at("is_commutative=no"), own_allreduce);
  EXPECT_EQ(chosen.at("is_commutative=yes").at("is_op_built_in=no"), own_allreduce);
  EXPECT_TRUE(chosen.at("is_commutative=yes")
                  .at("is_op_built_in=yes")
                  .contains("algorithm=MPIR_Allreduce_intra_recursive_doubling"))
      << sized.dump(1);
  EXPECT_EQ(tree.at("collective=allreduce").at("comm_type=inter"),
            nlohmann::ordered_json::parse(R"({"algorithm=MPIR_Allreduce_inter_x":{}})"));
  // Allgather compares the total size (64 B x 4 ranks): nb from 0, the library's own from 4 KiB,
  // where the name it does not accept was chosen, and a note says so.
  const auto& gathered = tree.at("collective=allgather").at("comm_type=intra").at("comm_size<=4");
  EXPECT_TRUE(gathered.at("total_msg_size<=4095").contains("algorithm=MPIR_Allgather_allcomm_nb"))
      << gathered.dump(1);
  EXPECT_TRUE(gathered.at("total_msg_size=any").contains("algorithm=MPIR_Allgather_intra_ring"));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("MPIR_Allgather_intra_brucks"), std::string::npos) << notes[0];
  // No change anywhere: no file.
  allreduce.choices[1].changed = allreduce.choices[2].changed = false;
  EXPECT_EQ(tune::mpich_selection_file(library, {allreduce}, 4, notes), "");
}

TEST(TuneRules, MergingKeepsOtherSizesAndReplacesThisOne) {
  tune::TunedCollective allreduce{{"Allreduce", "coll_tuned_allreduce_algorithm", kAlgorithms}, {}};
  tune::LengthChoice c;
  c.bytes = 1024;
  c.changed = true;
  c.fastest = {4, "ring"};
  allreduce.choices = {c};
  // Open MPI: a file tuned at 4 ranks, then 2 ranks merged in (3 ranks, which would take the
  // rule of 2, keep the library's decision), then 4 again with no change.
  const auto at_four = tune::open_mpi_rules_file({allreduce}, 4);
  EXPECT_EQ(tune::open_mpi_rules_problem(at_four), "");
  const auto both = tune::open_mpi_rules_file({allreduce}, 2, at_four);
  EXPECT_EQ(both,
            "1 # collectives: written by mpiscope tune\n"
            "2 # Allreduce\n5 # communicator sizes\n"
            "1 # communicators this small keep the library's decision\n1\n0 0 0 0\n"
            "2 # communicators of the measured size\n1\n0 4 0 0\n"
            "3 # larger communicators keep the library's decision\n1\n0 0 0 0\n"
            "4 # communicators tuned before\n1\n0 4 0 0\n"
            "5 # larger communicators keep the library's decision\n1\n0 0 0 0\n");
  allreduce.choices[0].changed = false;
  const auto retuned = tune::open_mpi_rules_file({allreduce}, 4, both);
  EXPECT_NE(retuned.find("4 # communicators of the measured size\n1\n0 0 0 0\n"), std::string::npos)
      << retuned;
  EXPECT_NE(retuned.find("2 # communicators tuned before\n1\n0 4 0 0\n"), std::string::npos)
      << retuned;
  EXPECT_NE(tune::open_mpi_rules_problem("1 # collectives\n2\n1\n"), "");
  EXPECT_NE(tune::open_mpi_rules_problem("1 x\n"), "");

  // MPICH: the size split is extended, not nested: one key per size tuned, in ascending order.
  tune::MpichSelection library;
  library.tree =
      R"({"collective=allreduce":{"comm_type=intra":{"algorithm=MPIR_Allreduce_intra_smp":{}}}})";
  library.containers = {"MPIR_Allreduce_intra_smp", "MPIR_Allreduce_intra_ring"};
  allreduce.choices[0].changed = true;
  std::vector<std::string> notes;
  auto file = tune::mpich_selection_file(library, {allreduce}, 4, notes);
  file = tune::mpich_selection_file(library, {allreduce}, 2, notes, file);
  file = tune::mpich_selection_file(library, {allreduce}, 8, notes, file);
  const auto tree = nlohmann::ordered_json::parse(file);
  const auto& intra = tree.at("collective=allreduce").at("comm_type=intra");
  std::vector<std::string> keys;
  for (const auto& [key, value] : intra.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"comm_size<=1", "comm_size<=2", "comm_size<=3",
                                            "comm_size<=4", "comm_size<=7", "comm_size<=8",
                                            "comm_size=any"}))
      << intra.dump(1);
  const auto own = nlohmann::ordered_json::parse(R"({"algorithm=MPIR_Allreduce_intra_smp":{}})");
  for (const char* k : {"comm_size<=1", "comm_size<=3", "comm_size<=7", "comm_size=any"})
    EXPECT_EQ(intra.at(k), own) << k;
  for (const char* k : {"comm_size<=2", "comm_size<=4", "comm_size<=8"})
    EXPECT_TRUE(intra.at(k)
                    .at("avg_msg_size=any")
                    .at("is_commutative=yes")
                    .at("is_op_built_in=yes")
                    .contains("algorithm=MPIR_Allreduce_intra_ring"))
        << k << intra.dump(1);
  EXPECT_EQ(tune::mpich_selection_problem("[1]"), "it is not a JSON object of collectives");
}

TEST(TuneRules, MpichsOwnSelectionIsFoundWhereTheTreeDecidesIt) {
  // MPICH 4.0.2's Bcast tree, shortened: under 8 ranks binomial whatever the node hierarchy;
  // at 8 or more the hierarchy decides small messages, which tune cannot know.
  tune::MpichSelection library;
  library.tree =
      R"({"collective=bcast":{"comm_type=intra":{"comm_size<8":{)"
      R"("comm_hierarchy=parent":{"avg_msg_size=any":{"algorithm=MPIR_Bcast_intra_binomial":{}}},)"
      R"("comm_hierarchy=any":{"avg_msg_size=any":{"algorithm=MPIR_Bcast_intra_binomial":{}}}},)"
      R"("comm_size=any":{"comm_hierarchy=parent":{"avg_msg_size<=0":{"algorithm=MPIR_Bcast_intra_smp":{}},)"
      R"("avg_msg_size=any":{"algorithm=MPIR_Bcast_intra_binomial":{}}},)"
      R"("comm_hierarchy=any":{"avg_msg_size<=12288":{"algorithm=MPIR_Bcast_intra_binomial":{}},)"
      R"("avg_msg_size=any":{"algorithm=MPIR_Bcast_intra_scatter_ring_allgather":{}}}}}},)"
      R"("collective=allreduce":{"comm_type=intra":{"avg_msg_size<=8":)"
      R"({"algorithm=MPIR_Allreduce_intra_recursive_doubling":{}},"avg_msg_size=any":{)"
      R"("is_op_built_in=no":{"algorithm=MPIR_Allreduce_intra_recursive_doubling":{}},)"
      R"("is_op_built_in=yes":{"count<pow2":{"algorithm=MPIR_Allreduce_intra_recursive_doubling":{}},)"
      R"("count=any":{"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather":{}}}}}}})";
  EXPECT_EQ(tune::mpich_own_selection(library, "Bcast", 4, 2), "MPIR_Bcast_intra_binomial");
  EXPECT_EQ(tune::mpich_own_selection(library, "Bcast", 1 << 20, 4), "MPIR_Bcast_intra_binomial");
  // 16 ranks: by the hierarchy, smp or binomial at 0 bytes, binomial or scatter_ring_allgather
  // at 64 KiB.
  EXPECT_EQ(tune::mpich_own_selection(library, "Bcast", 0, 16), "");
  EXPECT_EQ(tune::mpich_own_selection(library, "Bcast", 65536, 16), "");
  // Allreduce: 8 bytes recursive doubling; 64 bytes (16 floats, not fewer than the power of two
  // at or below 4 ranks) reduce_scatter_allgather; 8 floats on 16 ranks recursive doubling.
  EXPECT_EQ(tune::mpich_own_selection(library, "Allreduce", 8, 4),
            "MPIR_Allreduce_intra_recursive_doubling");
  EXPECT_EQ(tune::mpich_own_selection(library, "Allreduce", 64, 4),
            "MPIR_Allreduce_intra_reduce_scatter_allgather");
  EXPECT_EQ(tune::mpich_own_selection(library, "Allreduce", 32, 16),
            "MPIR_Allreduce_intra_recursive_doubling");
  EXPECT_EQ(tune::mpich_own_selection(library, "Gather", 32, 16), "");
}

TEST(TuneRules, MpichsAlgorithmsKeptForOtherCallsAreFound) {
  // MPICH 4.0.2's Reduce_scatter tree: noncommutative and recursive doubling only for
  // non-commutative operations; pairwise for commutative ones from 512 KiB.
  tune::MpichSelection library;
  library.tree =
      R"({"collective=reduce_scatter":{"comm_type=intra":{"is_commutative=yes":{)"
      R"("total_msg_size<524288":{"algorithm=MPIR_Reduce_scatter_intra_recursive_halving":{}},)"
      R"("total_msg_size=any":{"algorithm=MPIR_Reduce_scatter_intra_pairwise":{}}},)"
      R"("is_commutative=no":{"is_block_regular=yes":{"comm_size=pow2":)"
      R"({"algorithm=MPIR_Reduce_scatter_intra_noncommutative":{}},"comm_size=any":)"
      R"({"algorithm=MPIR_Reduce_scatter_intra_recursive_doubling":{}}},)"
      R"("is_block_regular=no":{"algorithm=MPIR_Reduce_scatter_intra_recursive_doubling":{}}}},)"
      R"("comm_type=inter":{"algorithm=MPIR_Reduce_scatter_inter_x":{}}}})";
  EXPECT_EQ(tune::mpich_reserved_case(library, "Reduce_scatter",
                                      "MPIR_Reduce_scatter_intra_noncommutative", 4),
            "is_commutative=no");
  EXPECT_EQ(tune::mpich_reserved_case(library, "Reduce_scatter",
                                      "MPIR_Reduce_scatter_intra_recursive_doubling", 3),
            "is_commutative=no");
  EXPECT_EQ(
      tune::mpich_reserved_case(library, "Reduce_scatter", "MPIR_Reduce_scatter_intra_pairwise", 3),
      "");
  // Not in the tree at all (nb): nothing says it is kept for other calls.
  EXPECT_EQ(
      tune::mpich_reserved_case(library, "Reduce_scatter", "MPIR_Reduce_scatter_allcomm_nb", 3),
      "");
}
