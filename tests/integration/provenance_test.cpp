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

// The library's control variables (MPI_T): every one in the JSON and the database; the one the
// environment changed named in the header with the library's default (read by a child process
// without the variable); a library variable naming none said; compare names the changed one.
TEST(Provenance, AControlVariableTheEnvironmentChangedIsNamedWithItsDefault) {
  const auto dir = temp_dir();
  const std::string db = dir + "/r.sqlite";
  const std::vector<std::string> args = {"imb-mpi1", "PingPong", "-msglog", "0:2",
                                         "-iter",    "20",       "--db",    db};
  // One variable of each library: the other library's reads as naming none of its variables.
  const std::string changed =
      is_openmpi() ? "btl_vader_eager_limit" : "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM";
  const std::string variable = is_openmpi() ? "OMPI_MCA_" + changed : changed;
  const std::string other =
      is_openmpi() ? "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM" : "OMPI_MCA_btl_vader_eager_limit";
  const std::string value = is_openmpi() ? "1024" : "recursive_doubling";
  const auto plain = run_mpi(2, args);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  auto json_args = args;
  json_args.insert(json_args.end(), {"--json", dir + "/r.json"});
  const auto set =
      run_mpi(2, json_args, variable + "=" + value + " " + other + "=1 OMPI_MCA_btl_vadr_x=1");
  ASSERT_EQ(set.exit_code, 0) << set.err;

  // The launcher's own settings may change some (mpirun --oversubscribe: rmaps_base_oversubscribe).
  auto header_of = [](const std::string& out) {
    const auto at = out.find("# MPI control variables changed: ");
    return at == std::string::npos ? "" : out.substr(at, out.find('\n', at) - at);
  };
  EXPECT_EQ(count_of(plain.out, "# MPI control variables changed: "), 1) << plain.out;
  EXPECT_EQ(header_of(plain.out).find(changed + "="), std::string::npos) << plain.out;
  const auto header = header_of(set.out);
  EXPECT_NE(header.find(changed + "="), std::string::npos) << header;
  EXPECT_NE(header.find("(default "), std::string::npos) << header;
  EXPECT_NE(header.find(other + " names no control variable of this library"), std::string::npos)
      << header;
  EXPECT_NE(header.find("OMPI_MCA_btl_vadr_x names no control variable"), std::string::npos)
      << header;

  // The JSON and the database hold every variable the library lets a process read, by name.
  const auto j = nlohmann::json::parse(read_file(dir + "/r.json"));
  const auto& variables = j.at("run").at("control_variables");
  EXPECT_GT(variables.size(), 100u);
  ASSERT_TRUE(variables.contains(changed)) << variables.dump();
  if (is_openmpi()) {
    EXPECT_EQ(variables.at(changed), "1024");
  }
  const auto stored = query(db, "SELECT control_variables FROM runs ORDER BY id");
  ASSERT_EQ(stored.size(), 2u);
  const auto first = nlohmann::json::parse(stored[0][0]),
             second = nlohmann::json::parse(stored[1][0]);
  EXPECT_EQ(second, variables);
  ASSERT_TRUE(first.contains(changed));
  EXPECT_NE(first.at(changed), second.at(changed));

  const auto c = run_plain({"compare", "1", "2", "--db", db});
  EXPECT_NE(
      c.out.find("#   control variable " + changed + ": A " + first.at(changed).get<std::string>() +
                 "; B " + second.at(changed).get<std::string>()),
      std::string::npos)
      << c.out;
}
