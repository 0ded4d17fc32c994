// OSU's blocking collectives (c/mpi/collective/blocking in OSU 7.4): each is the MPI call of an
// IMB-MPI1 benchmark, so the IMB kernel (with its buffers and -check blocks) is reused under
// OSU's name; the reductions on OSU's datatype, MPI_CHAR (on_osu_datatype). OSU's timing (each
// iteration alone, a barrier after it, root 0) is set by the front end's engine settings, not
// here.
#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "core/text.hpp"
#include "suites/imb/mpi1/benchmarks.hpp"
#include "suites/imb/mpi4/benchmarks.hpp"
#include "suites/imb/nbc/benchmarks.hpp"
#include "suites/osu/osu.hpp"

namespace mpiscope::osu {

namespace {
using core::ExpectedBlock;
using core::PointContext;

// osu_reduce_scatter_block: the size's n elements reduced, a block of n / P to each rank (OSU's
// portion: the n mod P left over reach nobody, and with n < P every block is empty).
void reduce_scatter_block(PointContext& c, int i) {
  MPI_Reduce_scatter_block(c.send(i), c.recv(i), c.count / c.nprocs, c.datatype, MPI_SUM, c.comm);
}
std::vector<ExpectedBlock> block_of_the_sum(const PointContext& c, int) {
  const std::size_t block = static_cast<std::size_t>(c.count / c.nprocs) * c.element_bytes;
  return {{0, ExpectedBlock::kAllRanks, static_cast<std::size_t>(c.rank) * block, block}};
}

// osu_alltoallw: MPI_Alltoall's exchange through MPI_Alltoallw, each peer's count, byte
// displacement and datatype given, as OSU sets them; the displacements are message slots apart
// (X, or under -D what the type reaches), so that no peer's block overlaps another's (OSU 7.4
// puts them an element apart under -D).
void alltoallw(PointContext& c, int i) {
  MPI_Alltoallw(c.send(i), c.counts.data(), c.displs.data(), c.types.data(), c.recv(i),
                c.counts.data(), c.displs.data(), c.types.data(), c.comm);
}
void alltoallw_arguments(PointContext& c) {
  for (int rank = 0; rank < c.nprocs; ++rank) {
    c.counts.push_back(c.count);
    c.displs.push_back(rank * static_cast<int>(c.message_slot()));
    c.types.push_back(c.datatype);
  }
}

// The IMB-MPI1 benchmark of that name.
const core::Benchmark& imb_benchmark(const std::string& name) {
  const auto& imb = imb::mpi1::all_benchmarks();
  const auto it = std::find_if(imb.begin(), imb.end(),
                               [&](const core::Benchmark& b) { return b.name == name; });
  if (it == imb.end()) throw std::logic_error("IMB-MPI1 has no " + name);
  return *it;
}

// The IMB-MPI1 operation whose call an OSU program makes ("Alltoallw" for osu_alltoallw).
std::string imb_operation(const std::string& osu_name) {
  static const std::vector<std::pair<std::string, std::string>> imb_name_of = {
      {"osu_allreduce", "Allreduce"},
      {"osu_reduce", "Reduce"},
      {"osu_reduce_scatter", "Reduce_scatter"},
      {"osu_allgather", "Allgather"},
      {"osu_allgatherv", "Allgatherv"},
      {"osu_gather", "Gather"},
      {"osu_gatherv", "Gatherv"},
      {"osu_scatter", "Scatter"},
      {"osu_scatterv", "Scatterv"},
      {"osu_alltoall", "Alltoall"},
      {"osu_alltoallv", "Alltoallv"},
      {"osu_bcast", "Bcast"},
      {"osu_barrier", "Barrier"},
      {"osu_alltoallw", "Alltoallw"},
      {"osu_reduce_scatter_block", "Reduce_scatter_block"}};
  const auto name = std::find_if(imb_name_of.begin(), imb_name_of.end(),
                                 [&](const auto& n) { return n.first == osu_name; });
  if (name == imb_name_of.end()) throw std::logic_error("no IMB kernel for " + osu_name);
  return name->second;
}

constexpr std::string_view kPersistent = "_persistent";
}  // namespace

core::Benchmark collective(const std::string& osu_name) {
  core::Benchmark b;
  if (osu_name == "osu_reduce_scatter_block") {  // Allreduce's buffers, OSU's blocks
    b = imb_benchmark("Allreduce");
    b.kernel = core::kernel<reduce_scatter_block>();
    b.expected = block_of_the_sum;
  } else if (osu_name == "osu_alltoallw") {  // Alltoall's buffers and -check blocks
    b = imb_benchmark("Alltoall");
    b.kernel = core::kernel<alltoallw>();
    b.setup = alltoallw_arguments;
  } else {
    b = imb_benchmark(imb_operation(osu_name));
  }
  b = on_osu_datatype(std::move(b), osu_types().front());
  b.name = osu_name;
  b.turnover = 0;  // OSU's collectives print latency only
  b.in_default_list = true;
  return b;
}

bool is_persistent_collective(const Program& p) {
  return p.figure == Figure::kCollective && p.name.ends_with(kPersistent);
}

core::Benchmark persistent_collective(const std::string& osu_name, bool in_place) {
  const std::string blocking = osu_name.substr(0, osu_name.size() - kPersistent.size());
  // In place: the blocking program's in-place definition (buffers, -check's input and blocks).
  core::Benchmark b = in_place ? in_place_collective(blocking) : collective(blocking);
  b.name = osu_name;
  b.kernel = core::kernel<imb::nbc::started_then_waited<imb::mpi4::start_persistent>>();
  b.make_request = imb::mpi4::request_maker(imb_operation(blocking), in_place);
  if (!b.make_request)
    throw std::logic_error(std::string("no persistent ") + (in_place ? "in-place " : "") +
                           "form of " + blocking);
  return b;
}

const std::vector<OsuType>& osu_types() {
  static const std::vector<OsuType> types = {*core::find_element_type("char"),
                                             *core::find_element_type("int"),
                                             *core::find_element_type("float")};
  return types;
}

std::string osu_type_word(const OsuType& t) {
  return std::string("mpi_") + t.name;
}

const OsuType* find_osu_type(const std::string& word) {
  for (const auto& t : osu_types())
    if (core::to_lower(word) == osu_type_word(t)) return &t;
  return nullptr;
}

core::Benchmark on_osu_datatype(core::Benchmark b, const OsuType& t) {
  if (!b.sized) return b;
  b.datatype = core::is_sum(b.datatype) ? t.summed : t.moved;
  b.unit = core::element_bytes(b.datatype);  // OSU's rows from one whole element
  return b;
}

}  // namespace mpiscope::osu
