// Figure 1: type 0 scatters a memory chunk of L bytes over L/l disk chunks of a strided view
// with one collective call; type 1 writes l bytes per collective call through the shared file
// pointer (ranks in order); type 2 writes each process's own file; types 3 and 4 write each
// process's segment of one file, non-collectively and collectively.
#include "suites/beffio/access.hpp"

#include <climits>
#include <stdexcept>

#include "core/mpi.hpp"
#include "core/scratch_files.hpp"

namespace mpiscope::beffio {

std::string type_file_path(const std::string& prefix, int type, int rank) {
  std::string path = prefix + "_type" + std::to_string(type);
  if (!shared_file(type)) path += "_rank" + std::to_string(rank);
  return path;
}

// The initial write creates the file, exclusively: a file of that name that exists already is an
// error, never written through or removed. Rewrite and read open the file the write created by
// its name, which is safe because it is in the run's own directory (mode 0700): nobody else can
// swap it for a link. That the directory is still the one created is checked before every open.
int access_mode(Method m) {
  switch (m) {
    case Method::Write:
      return MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR;
    case Method::Rewrite:
      return MPI_MODE_RDWR;
    default:
      return MPI_MODE_RDONLY;
  }
}

void open_type_file(TypeFile& f, const std::string& path) {
  if (const auto problem = core::scratch_files::run_directory_problem(); !problem.empty())
    throw mpi::Error(problem);
  const bool create = f.method == Method::Write;
  if (create) core::scratch_files::add(path);  // before the file exists, for the signal clean-up
  const int rc = MPI_File_open(shared_file(f.type) ? f.comm : MPI_COMM_SELF, path.c_str(),
                               access_mode(f.method), MPI_INFO_NULL, &f.file);
  if (rc != MPI_SUCCESS && create)
    core::scratch_files::forget(path);  // not created by this run: not ours to delete
  // A shared file: every rank has forgotten a name it did not create before any rank ends the job
  // (a rank's reaper removes what is still registered when the rank is killed).
  int failed = rc != MPI_SUCCESS;
  if (create && shared_file(f.type))
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, f.comm);
  if (rc != MPI_SUCCESS)
    throw mpi::Error(std::string(create ? "cannot create " : "cannot open ") + path + ": " +
                     mpi::error_string(rc));
  if (failed) throw mpi::Error("another process could not create " + path);
  if (f.type >= 3) {
    const auto disp = static_cast<MPI_Offset>(f.segment) * f.rank;
    mpi::check(MPI_File_set_view(f.file, disp, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL),
               "MPI_File_set_view");
  }
}

void close_type_file(TypeFile& f) {
  mpi::check(MPI_File_close(&f.file), "MPI_File_close");
}

std::uint64_t region_bytes(const Pattern& p, long calls, int nprocs) {
  const std::uint64_t per_process = static_cast<std::uint64_t>(calls) * p.call_bytes;
  return p.type <= 1 ? per_process * static_cast<std::uint64_t>(nprocs) : per_process;
}

void place_pattern(TypeFile& f, const Pattern& p, std::uint64_t region_start) {
  const auto start = static_cast<MPI_Offset>(region_start);
  switch (f.type) {
    case 0: {
      // Process r sees bytes [r·l, (r+1)·l) of every n·l from the region's start.
      MPI_Datatype chunk, strided;
      mpi::check(MPI_Type_contiguous(static_cast<int>(p.disk_chunk), MPI_BYTE, &chunk),
                 "MPI_Type_contiguous");
      mpi::check(MPI_Type_create_resized(chunk, 0, static_cast<MPI_Aint>(p.disk_chunk) * f.nprocs,
                                         &strided),
                 "MPI_Type_create_resized");
      MPI_Type_free(&chunk);
      mpi::check(MPI_Type_commit(&strided), "MPI_Type_commit");
      const MPI_Offset disp = start + static_cast<MPI_Offset>(p.disk_chunk) * f.rank;
      const int rc = MPI_File_set_view(f.file, disp, MPI_BYTE, strided, "native", MPI_INFO_NULL);
      MPI_Type_free(&strided);
      mpi::check(rc, "MPI_File_set_view");
      return;
    }
    case 1:
      mpi::check(MPI_File_seek_shared(f.file, start, MPI_SEEK_SET), "MPI_File_seek_shared");
      return;
    default:
      mpi::check(MPI_File_seek(f.file, start, MPI_SEEK_SET), "MPI_File_seek");
      return;
  }
}

namespace {
using Transfer = int (*)(MPI_File, void*, int, MPI_Datatype, MPI_Status*);
int write_all(MPI_File fh, void* buf, int n, MPI_Datatype t, MPI_Status* s) {
  return MPI_File_write_all(fh, buf, n, t, s);
}
int write_ordered(MPI_File fh, void* buf, int n, MPI_Datatype t, MPI_Status* s) {
  return MPI_File_write_ordered(fh, buf, n, t, s);
}
int write_individual(MPI_File fh, void* buf, int n, MPI_Datatype t, MPI_Status* s) {
  return MPI_File_write(fh, buf, n, t, s);
}

// The call of each pattern type: type 0 and 4 collective through the individual pointer, type 1
// collective through the shared one, types 2 and 3 independent.
Transfer transfer_of(int type, bool write) {
  switch (type) {
    case 0:
    case 4:
      return write ? write_all : MPI_File_read_all;
    case 1:
      return write ? write_ordered : MPI_File_read_ordered;
    default:
      return write ? write_individual : MPI_File_read;
  }
}
}  // namespace

void access_once(TypeFile& f, const Pattern& p) {
  const int count = static_cast<int>(p.call_bytes);
  MPI_Status status;
  mpi::check(
      transfer_of(f.type, f.method != Method::Read)(f.file, f.buffer, count, MPI_BYTE, &status),
      f.method == Method::Read ? "MPI_File_read" : "MPI_File_write");
  int moved = 0;
  MPI_Get_count(&status, MPI_BYTE, &moved);
  if (moved != count)
    throw std::runtime_error("pattern " + std::to_string(p.number) + " moved " +
                             std::to_string(moved) + " of " + std::to_string(count) + " bytes");
}

void sync_writes(TypeFile& f) {
  mpi::check(MPI_File_sync(f.file), "MPI_File_sync");
}

}  // namespace mpiscope::beffio
