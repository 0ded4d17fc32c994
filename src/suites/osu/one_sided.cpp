// OSU's one-sided latency tests (c/mpi/one-sided in OSU 7.4) with their defaults: a window from
// MPI_Win_allocate and passive-target synchronisation by MPI_Win_flush; rank 0 locks rank 1
// outside the loop and each iteration is one call and one flush. The kernels are IMB-RMA's
// (imb/rma/passive_target.hpp): only the window type differs from IMB's Unidir_put/get.
#include "suites/imb/rma/passive_target.hpp"
#include "suites/osu/osu.hpp"

namespace mpiscope::osu {
namespace {
using imb::rma::Access;
using imb::rma::Flush;
using imb::rma::Origins;
using imb::rma::Peers;

template <Access A>
core::Benchmark flush_latency(const std::string& name) {
  core::Benchmark b;
  b.name = name;
  b.family = core::Family::SingleTransfer;
  b.fixed_processes = 2;
  b.shape = [](std::size_t x, int, int) { return core::BufferShape{x, x}; };
  b.kernel = core::kernel<imb::rma::transfer<A, Origins::RankZero, Peers::Partner>,
                          imb::rma::flush<Origins::RankZero, Peers::Partner, Flush::Remote>>();
  b.setup = imb::rma::open_window<A, Origins::RankZero, Peers::Partner, imb::rma::Window::Allocate>;
  b.release = imb::rma::close_window<Origins::RankZero, Peers::Partner>;
  b.timed_rank = imb::rma::is_origin<Origins::RankZero>;  // OSU times rank 0 alone
  return b;
}
}  // namespace

core::Benchmark one_sided(const std::string& osu_name) {
  return osu_name == "osu_get_latency" ? flush_latency<Access::Get>(osu_name)
                                       : flush_latency<Access::Put>(osu_name);
}

}  // namespace mpiscope::osu
