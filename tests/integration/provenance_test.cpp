// Issue 32: every run records what configured MPI (the environment variables of MPI, its launcher
// and transports, secrets as "(set)") and where its ranks ran (CPUs and NUMA nodes per host), in
// the text header, the JSON, the database and `runs --long`; compare names a transport variable
// changed between two runs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace harness;

TEST(Provenance, ATransportVariableChangedBetweenTwoRunsIsNamedByCompare) {
  const auto dir = temp_dir();
  const std::string db = dir + "/r.sqlite";
  const std::vector<std::string> args = {"imb-mpi1", "PingPong", "-msglog", "0:2",
                                         "-iter",    "20",       "--db",    db};
  const auto plain = run_mpi(2, args);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  // UCX_TLS=all is UCX's default (MPICH's transport here): set, it changes nothing but the record.
  auto json_args = args;
  json_args.insert(json_args.end(), {"--json", dir + "/r.json"});
  const auto set =
      run_mpi(2, json_args, "UCX_TLS=all I_MPI_PROVENANCE_TEST_TOKEN=hunter2 HOME_NOT_MPI=1");
  ASSERT_EQ(set.exit_code, 0) << set.err;

  // The text: one line each, the secret's value nowhere.
  EXPECT_NE(plain.out.find("# MPI environment: "), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("UCX_TLS="), std::string::npos) << plain.out;
  EXPECT_EQ(count_of(set.out, "# MPI environment: "), 1) << set.out;
  EXPECT_NE(set.out.find("UCX_TLS=all"), std::string::npos) << set.out;
  EXPECT_NE(set.out.find("I_MPI_PROVENANCE_TEST_TOKEN=(set)"), std::string::npos) << set.out;
  EXPECT_EQ(set.out.find("HOME_NOT_MPI"), std::string::npos) << set.out;
  EXPECT_EQ(count_of(set.out, "# CPU binding: "), 1) << set.out;
  for (const auto& text : {set.out, set.err, read_file(dir + "/r.json")})
    EXPECT_EQ(text.find("hunter2"), std::string::npos);

  // The JSON and the database: a setting per variable, the binding naming each rank's host.
  const auto j = nlohmann::json::parse(read_file(dir + "/r.json"));
  const auto& settings = j.at("run").at("settings");
  EXPECT_EQ(settings.at("env:UCX_TLS"), "all");
  const std::string binding = settings.at("cpu_binding");
  EXPECT_NE(binding.find(": rank"), std::string::npos) << binding;
  EXPECT_NE(binding.find(" on CPU"), std::string::npos) << binding;
  EXPECT_EQ(query(db, "SELECT run_id, value FROM run_settings WHERE name = 'env:UCX_TLS'"),
            (std::vector<std::vector<std::string>>{{"2", "all"}}));
  EXPECT_EQ(query(db, "SELECT count(*) FROM run_settings WHERE name = 'cpu_binding'").at(0).at(0),
            "2");
  EXPECT_EQ(query(db, "SELECT count(*) FROM run_settings WHERE value LIKE '%hunter2%'").at(0).at(0),
            "0");

  // runs --long: the variables and the binding of each run, cut to their columns.
  const auto listing = run_plain({"runs", "--long", "--db", db});
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  EXPECT_NE(listing.out.find("MPI environment"), std::string::npos) << listing.out;
  EXPECT_EQ(count_of(listing.out, "I_MPI_PROVENANCE_TEST_TOKEN=(set)"), 1) << listing.out;
  EXPECT_EQ(count_of(listing.out, " on CPU"), 2) << listing.out;
  EXPECT_EQ(listing.out.find("hunter2"), std::string::npos) << listing.out;

  const auto c = run_plain({"compare", "1", "2", "--db", db});
  EXPECT_NE(c.out.find("# note: MPI was configured or placed differently"), std::string::npos)
      << c.out;
  EXPECT_NE(c.out.find("#   UCX_TLS: A unset; B all"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("I_MPI_PROVENANCE_TEST_TOKEN: A unset; B (set)"), std::string::npos)
      << c.out;
  // The same configuration twice: nothing to name.
  ASSERT_EQ(run_mpi(2, args).exit_code, 0);
  const auto same = run_plain({"compare", "1", "3", "--db", db});
  EXPECT_NE(same.out.find("rows compared"), std::string::npos) << same.out << same.err;
  EXPECT_EQ(same.out.find("configured or placed differently"), std::string::npos) << same.out;
}
