// OSU's blocking collectives (c/mpi/collective/blocking in OSU 7.4): each is the MPI call of an
// IMB-MPI1 benchmark, so the IMB kernel (with its buffers and -check blocks) is reused under
// OSU's name; the reductions on OSU's datatype, MPI_CHAR (on_osu_datatype). OSU's timing (each
// iteration alone, a barrier after it, root 0) is set by the front end's engine settings, not
// here.
#include <algorithm>
#include <stdexcept>
#include <utility>

#include "core/text.hpp"
#include "suites/imb/mpi1/benchmarks.hpp"
#include "suites/osu/osu.hpp"

namespace mpiscope::osu {

core::Benchmark collective(const std::string& osu_name) {
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
      {"osu_barrier", "Barrier"}};
  const auto name = std::find_if(imb_name_of.begin(), imb_name_of.end(),
                                 [&](const auto& n) { return n.first == osu_name; });
  if (name == imb_name_of.end()) throw std::logic_error("no IMB kernel for " + osu_name);
  const auto& imb = imb::mpi1::all_benchmarks();
  const auto it = std::find_if(imb.begin(), imb.end(),
                               [&](const core::Benchmark& b) { return b.name == name->second; });
  if (it == imb.end()) throw std::logic_error("IMB-MPI1 has no " + name->second);
  core::Benchmark b = on_osu_datatype(*it, osu_types().front());
  b.name = osu_name;
  b.turnover = 0;  // OSU's collectives print latency only
  b.in_default_list = true;
  return b;
}

const std::vector<OsuType>& osu_types() {
  static const std::vector<OsuType> types = {
      {"mpi_char", "MPI_CHAR", core::Datatype::Char, core::Datatype::CharSum},
      {"mpi_int", "MPI_INT", core::Datatype::Int, core::Datatype::IntSum},
      {"mpi_float", "MPI_FLOAT", core::Datatype::Float, core::Datatype::FloatSum}};
  return types;
}

const OsuType* find_osu_type(const std::string& word) {
  for (const auto& t : osu_types())
    if (core::to_lower(word) == t.word) return &t;
  return nullptr;
}

core::Benchmark on_osu_datatype(core::Benchmark b, const OsuType& t) {
  if (!b.sized) return b;
  b.datatype = core::is_sum(b.datatype) ? t.summed : t.moved;
  b.unit = core::element_bytes(b.datatype);  // OSU's rows from one whole element
  return b;
}

}  // namespace mpiscope::osu
