// GoogleTest inside one MPI job, as KaMPIng's tests run: every rank runs every test, rank 0 alone
// prints, and the job's exit status says whether a test failed on any rank. ctest starts this
// program once per process count (tests/CMakeLists.txt).
#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && any_failed && !failed) std::printf("[  FAILED  ] on another rank\n");
  MPI_Finalize();
  return any_failed;
}
