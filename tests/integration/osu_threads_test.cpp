// osu_latency_mt (issue 34 items 5 and 8): its table as OSU 7.4's own binary prints it, the
// iterations shared round robin among threads that call MPI at once (the project's PMPI library
// names the thread and tag of every send and receive), -c on every thread's buffers, and OSU's
// refusals; osu_latency_mp's children and barriers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "harness.hpp"

namespace {
using namespace harness;

// One traced MPI_Send or MPI_Recv of `count` elements: its tag and thread.
struct Call {
  int tag = 0, thread = 0, inside = 0;
};
std::vector<Call> calls_of(const std::string& trace, const std::string& name, int count) {
  std::vector<Call> calls;
  for (const auto& line : lines_of(read_file(trace))) {
    std::istringstream words(line);
    std::string call, skip, tag_word, thread_word, inside_word;
    int n = -1;
    Call c;
    words >> call >> n >> skip >> skip >> skip >> skip >> tag_word >> c.tag >> thread_word >>
        c.thread >> inside_word >> c.inside;
    if (call == name && n == count && tag_word == "tag" && thread_word == "thread" &&
        inside_word == "inside")
      calls.push_back(c);
  }
  return calls;
}

TEST(OsuThreads, LatencyMtSharesIterationsAmongThreadsAsOsusOwn) {
  // The table (OSU's default, one sender and two receivers) against OSU 7.4's own capture
  // (tests/data/import/osu_latency_mt_7.4.txt: osu_latency_mt -m 1:16 -i 100 -x 10).
  const auto plain =
      run_mpi(2, {"-m", "1:16", "-i", "100", "-x", "10", "--no-db"}, "", 60, "osu_latency_mt");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const auto capture = read_file(sample("osu_latency_mt_7.4.txt"));
  EXPECT_EQ(osu_shape(plain.out), osu_shape(capture));
  EXPECT_EQ(plain.out.rfind("# Number of Sender threads: 1 \n# Number of Receiver threads: 2\n", 0),
            0u)
      << plain.out;

  const auto dir = temp_dir();
  const auto program = with_pmpi_library(dir);
  // -t 2:2: each iteration its own tag, sender thread k taking the iterations k, k + 2, … (OSU's
  // skip iterations among them), and the two threads of a rank inside MPI at once: every
  // MPI_Send first spins 2 ms (the PMPI library's delay), so a thread that starts its first
  // send finds the other's still under way whatever the scheduler does.
  {
    const auto trace = dir + "/two";
    std::filesystem::create_directory(trace);
    const auto r = run_mpi(
        2,
        {"osu", "osu_latency_mt", "-t", "2:2", "-m", "8:8", "-i", "20", "-x", "2", "--json",
         trace + "/r.json", "--no-db"},
        "MPISCOPE_TRACE=" + trace + " MPISCOPE_TRACE_THREADS=1 MPISCOPE_DELAY=MPI_Send=2000", 120,
        program);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& [rank, name] : {std::pair{0, "MPI_Send"}, std::pair{1, "MPI_Recv"}}) {
      SCOPED_TRACE(name);
      const auto calls = calls_of(trace + "/trace." + std::to_string(rank), name, 8);
      ASSERT_EQ(calls.size(), 22u);
      std::map<int, std::set<int>> tags_by_thread;
      std::set<int> tags;
      int most_inside = 0;
      for (const auto& c : calls) {
        tags_by_thread[c.thread].insert(c.tag);
        tags.insert(c.tag);
        most_inside = std::max(most_inside, c.inside);
      }
      ASSERT_EQ(tags_by_thread.size(), 2u);
      EXPECT_EQ(tags.size(), 22u);
      EXPECT_EQ(*tags.rbegin(), 21);
      for (const auto& [thread, own] : tags_by_thread) {
        EXPECT_EQ(own.size(), 11u) << thread;
        const int parity = *own.begin() % 2;
        for (int tag : own) EXPECT_EQ(tag % 2, parity) << "thread " << thread << " tag " << tag;
      }
      EXPECT_GE(most_inside, 2) << "never two threads inside MPI at once";
    }
    const auto doc = nlohmann::json::parse(read_file(trace + "/r.json"));
    EXPECT_EQ(doc["run"]["thread_level"], "MPI_THREAD_MULTIPLE");
    EXPECT_EQ(doc["run"]["settings"]["sender_threads"], "2");
    EXPECT_EQ(doc["run"]["settings"]["receiver_threads"], "2");
  }
  // The default 1:2: tags 1 out and 2 back; either receiver thread takes any message.
  {
    const auto trace = dir + "/default";
    std::filesystem::create_directory(trace);
    const auto r =
        run_mpi(2, {"osu", "osu_latency_mt", "-m", "8:8", "-i", "100", "-x", "10", "--no-db"},
                "MPISCOPE_TRACE=" + trace + " MPISCOPE_TRACE_THREADS=1", 60, program);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::set<int> out_tags, back_tags, receivers;
    for (const auto& c : calls_of(trace + "/trace.0", "MPI_Send", 8)) out_tags.insert(c.tag);
    for (const auto& c : calls_of(trace + "/trace.0", "MPI_Recv", 8)) back_tags.insert(c.tag);
    for (const auto& c : calls_of(trace + "/trace.1", "MPI_Recv", 8)) receivers.insert(c.thread);
    EXPECT_EQ(out_tags, std::set<int>{1});
    EXPECT_EQ(back_tags, std::set<int>{2});
    EXPECT_EQ(receivers.size(), 2u);
  }

  // -c with as many senders as receivers: every thread's buffer checked; a planted corrupt byte
  // fails it.
  const std::vector<std::string> checked = {
      "osu", "osu_latency_mt", "-t",     "3:3", "-m", "1:64", "-i", "20", "-x", "2", "-c",
      "-T",  "mpi_int",        "--no-db"};
  const auto clean = run_mpi(2, checked, "", 60);
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(count_of(clean.out, "Pass"), 5) << clean.out;  // 4 to 64 bytes of MPI_INT
  const auto bad = run_mpi(2, checked, "MPISCOPE_FAULT=corrupt:1", 60);
  EXPECT_EQ(bad.exit_code, 3) << bad.err;
  EXPECT_GE(count_of(bad.out, "Fail"), 1) << bad.out;

  // OSU's refusals, each one error and exit 2: launched on two ranks (-c with one sender and two
  // receivers), the others run alone (a usage error takes Open MPI's launcher 1 to 2 s).
  const auto unequal = run_mpi(2, {"osu", "osu_latency_mt", "-m", "1:1", "-c"}, "", 30);
  EXPECT_EQ(unequal.exit_code, 2) << unequal.err;
  EXPECT_EQ(count_of(unequal.err, "error"), 1) << unequal.err;
  expect_usage_errors({"osu", "osu_latency_mt", "-m", "1:1"}, {{"-t", "0"},
                                                               {"-t", "128"},
                                                               {"-t", "2:x"},
                                                               {"-t", "1:2:3"},
                                                               {"-b", "multiple"},
                                                               {"--method", "accurate"}});
  // A library that grants less than MPI_THREAD_MULTIPLE (the PMPI library lowers what
  // MPI_Init_thread says it provides): one error from rank 0, nothing measured.
  const auto funneled = run_mpi(2, {"osu", "osu_latency_mt", "-m", "1:1"},
                                "MPISCOPE_THREAD_LEVEL_PROVIDED=1", 30, program);
  EXPECT_EQ(funneled.exit_code, 1) << funneled.err;
  EXPECT_EQ(count_of(funneled.err, "error"), 1) << funneled.err;
  EXPECT_NE(funneled.err.find("MPI_Init_thread must return MPI_THREAD_MULTIPLE; the MPI library "
                              "provides only MPI_THREAD_FUNNELED"),
            std::string::npos)
      << funneled.err;
  EXPECT_EQ(funneled.out.find("Avg Latency"), std::string::npos) << funneled.out;
  const auto three = run_mpi(3, {"osu", "osu_latency_mt", "-m", "1:1"}, "", 30);
  EXPECT_EQ(three.exit_code, 2) << three.err;
  EXPECT_NE(three.err.find("exactly two processes"), std::string::npos) << three.err;

  // OSU's own output imports as osu_latency_mt, comparable with a run of mpiscope's.
  const auto tidy =
      import_then_export(dir + "/mt.db", sample("osu_latency_mt_7.4.txt"), "1 table, 5 rows");
  EXPECT_EQ(count_of(tidy, "\"osu_latency_mt\""), count_of(tidy, "\n") - 1) << tidy;
}

// osu_latency_mp (issue 34 item 5): the table as OSU 7.4's own binary prints it
// (tests/data/import/osu_latency_mp_7.4.txt: osu_latency_mp -t 3:1 -m 1:16, and -t 1 -m 1:4 -c),
// the children forked by each rank (the PMPI library traces fork), a barrier before every
// iteration, -c catching a planted corruption, OSU's refusals and the import of OSU's output.
// Every run that forks lasts the children's 2 s.
TEST(OsuProcesses, LatencyMpForksItsChildrenAndBarriersEachIteration) {
  const auto capture = read_file(sample("osu_latency_mp_7.4.txt"));
  const auto dir = temp_dir();
  const auto program = with_pmpi_library(dir);
  // Traced: rank 0 forks S children and rank 1 R, once; every iteration (5 sizes, 5 + 1 each)
  // adds a barrier to osu_latency's calls.
  std::map<std::string, std::string> traces;
  std::string forked;
  for (const std::string name : {"osu_latency_mp", "osu_latency"}) {
    const std::string trace = dir + "/" + name;
    std::filesystem::create_directory(trace);
    std::vector<std::string> args = {"osu", name, "-m", "1:16", "-i", "5", "-x", "1", "--no-db"};
    if (name == "osu_latency_mp") args.insert(args.begin() + 2, {"-t", "3:1"});
    const auto r = run_mpi(2, args, "MPISCOPE_TRACE=" + trace, 60, program);
    ASSERT_EQ(r.exit_code, 0) << name << r.err;
    if (name == "osu_latency_mp") forked = r.out;
    traces[name + ".0"] = read_file(trace + "/trace.0");
    traces[name + ".1"] = read_file(trace + "/trace.1");
  }
  EXPECT_EQ(count_of(traces["osu_latency_mp.0"], "fork "), 3);
  EXPECT_EQ(count_of(traces["osu_latency_mp.1"], "fork "), 1);
  EXPECT_EQ(count_of(traces["osu_latency.0"], "fork "), 0);
  for (const std::string rank : {".0", ".1"})
    EXPECT_EQ(count_of(traces["osu_latency_mp" + rank], "MPI_Barrier "),
              count_of(traces["osu_latency" + rank], "MPI_Barrier ") + 5 * (5 + 1))
        << traces["osu_latency_mp" + rank];

  const std::vector<std::string> checked_args = {
      "osu", "osu_latency_mp", "-t", "1", "-m", "1:4", "-c", "-i", "5", "-x", "1", "--no-db"};
  const auto checked = run_mpi(2, checked_args);
  ASSERT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_EQ(osu_shape(forked + checked.out), osu_shape(capture)) << forked << checked.out;
  // OSU's rows: the latency 10 wide after the size, 18 with -c and its Validation column.
  for (const auto& line : osu_lines(forked))
    if (line[0] != '#') {
      EXPECT_EQ(line.size(), 20u) << line;
    }
  for (const auto& line : osu_lines(checked.out))
    if (line[0] != '#') {
      EXPECT_EQ(line.size(), 46u) << line;
    }
  EXPECT_EQ(count_of(checked.out, "Pass"), 3) << checked.out;
  const auto bad = run_mpi(2, checked_args, "MPISCOPE_FAULT=corrupt:0", 60);
  EXPECT_EQ(bad.exit_code, 3) << bad.err;
  EXPECT_EQ(count_of(bad.out, "Fail"), 3) << bad.out;

  expect_usage_errors(
      {"osu", "osu_latency_mp", "-m", "1:1"},
      {{"-t", "1:2:3"}, {"-t", "x"}, {"-t", "128"}, {"-t", "0:2"}, {"-b", "multiple"}});

  const auto tidy =
      import_then_export(dir + "/mp.db", sample("osu_latency_mp_7.4.txt"), "2 tables, 8 rows");
  EXPECT_EQ(count_of(tidy, "\"osu_latency_mp\""), count_of(tidy, "\n") - 1) << tidy;
  EXPECT_EQ(count_of(tidy, "\"t_avg_us\""), 8) << tidy;
}

}  // namespace
