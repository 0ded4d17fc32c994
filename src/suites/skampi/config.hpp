// SKaMPI configuration files (.skampi, paper section 3 and Figure 1): a preamble of @KEY lines,
// then @MEASUREMENTS and a list of named suites `Name { Field = value; ... }`. Parsing happens
// on rank 0 before anything runs; every error names file:line:column.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

// Max_Value (an empty std::optional) as JSON null: nlohmann 3.11.2 has no std::optional support.
template <>
struct nlohmann::adl_serializer<std::optional<long>> {
  static void to_json(json& j, const std::optional<long>& v) { j = v ? json(*v) : json(nullptr); }
  static void from_json(const json& j, std::optional<long>& v) {
    v = j.is_null() ? std::nullopt : std::optional<long>(j.get<long>());
  }
};

namespace mpiscope::skampi {

class ConfigError : public std::runtime_error {
 public:
  ConfigError(const std::string& file, int line, int column, const std::string& what);
  int line, column;
};

// One (count, offset, built-in type) triple of a structured base type.
struct BaseTypeItem {
  int count = 1;
  long offset = 0;   // bytes
  std::string type;  // e.g. "MPI_INT"
  bool operator==(const BaseTypeItem&) const = default;
};

// @BASETYPEn: a built-in MPI type (one item, offset 0) or a simple structure of several items.
struct BaseType {
  std::vector<BaseTypeItem> items;
  bool is_builtin() const {
    return items.size() == 1 && items[0].count == 1 && items[0].offset == 0;
  }
  std::string text() const;  // as it would be written in a configuration file
  bool operator==(const BaseType&) const = default;
};

// The preamble's customisation of the datatype patterns (@BLOCKSIZE, @VECTORSTRIDE): the vector
// patterns 2 and 50 are vector(n / blocksize, blocksize, vectorstride) over the base type, the
// hvector pattern 3 the same with a stride of vectorstride + 1 elements (in bytes); a tail of
// n % blocksize elements follows. The defaults are the patterns' plain layouts.
struct DatatypeParams {
  int blocksize = 1;     // base elements per block
  int vectorstride = 2;  // base elements from one block's start to the next; >= blocksize
  bool operator==(const DatatypeParams&) const = default;
};
constexpr int kMaxBlocksize = 65536, kMaxVectorstride = 1 << 20;

enum class Variation { kLength, kNodes, kChunks, kNone };
enum class Scale { kFixedLinear, kFixedLog, kDynamicLog };

const char* variation_name(Variation v);
const char* scale_name(Scale s);

// A suite with every field resolved to a value (Default_Value applied). End_Argument and
// Max_Distance may be Max_Value (nullopt); the run resolves it from @MEMORY and the job size.
struct SuiteSpec {
  std::string name;
  int line = 0;  // where the name stands, for messages
  int type = 0;
  int basetype = 1;
  int send_datatype = 0, recv_datatype = 0;
  Variation variation = Variation::kLength;
  Scale scale = Scale::kDynamicLog;
  int max_repetition = 32, min_repetition = 8;
  long multiple_of = 1;
  double time_measurement_s = 0;  // 0: no limit per point (Invalid_Value)
  double time_suite_s = 0;        // 0: no limit per suite
  bool node_times = false;
  double cut_quantile = 0.1;
  int default_chunks = 0;  // 0: two chunks per worker
  long default_length = 256;
  long start = 0;
  std::optional<long> end;  // nullopt: Max_Value
  double stepwidth = 1.414213562;
  int max_steps = 64;
  long min_distance = 1;
  std::optional<long> max_distance;  // nullopt: Max_Value (no limit)
  double standard_error = 0.05;
  bool operator==(const SuiteSpec&) const = default;
};

// @MEMORY and --memory: at most 1 TiB of buffers per process, so that bytes fit a long.
constexpr long kMaxMemoryKb = 1L << 30;
constexpr long kMaxCacheWarmup = 1000000;  // @CACHEWARMUP: repetitions before each measurement

struct Config {
  std::string file;
  std::string machine, node, network, mpiversion, user;
  long memory_kb = 4096;
  std::string outfile = "skampi.out", logfile = "skampi.log";
  bool postproc = false;
  int cachewarmup = 4;
  std::string method;  // @METHOD classic|accurate (empty: not given; --method overrides)
  std::map<int, BaseType> basetypes;  // @BASETYPEn; 1 is MPI_CHAR unless given
  DatatypeParams datatype_params;     // @BLOCKSIZE, @VECTORSTRIDE
  std::vector<SuiteSpec> suites;
  bool operator==(const Config&) const = default;
};

// Parses the text of a configuration file; `file` is used in messages only.
Config parse_config(const std::string& text, const std::string& file);
Config read_config(const std::string& path);

// Resolves Max_Value and checks what depends on the job size and @MEMORY (on rank 0, before
// anything runs); throws ConfigError at the suite's line.
void resolve_limits(Config& c, int world_size);

// The rank hand-off: `j["config"] = c` carries every field above, one declaration per struct. A
// field added to a struct goes here too, and into SkampiConfig.HandOffKeepsEveryField, which
// sets every field and compares the round trip with the structs' ==.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BaseTypeItem, count, offset, type)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BaseType, items)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DatatypeParams, blocksize, vectorstride)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SuiteSpec, name, line, type, basetype, send_datatype,
                                   recv_datatype, variation, scale, max_repetition, min_repetition,
                                   multiple_of, time_measurement_s, time_suite_s, node_times,
                                   cut_quantile, default_chunks, default_length, start, end,
                                   stepwidth, max_steps, min_distance, max_distance, standard_error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Config, file, machine, node, network, mpiversion, user,
                                   memory_kb, outfile, logfile, postproc, cachewarmup, method,
                                   basetypes, datatype_params, suites)

}  // namespace mpiscope::skampi
