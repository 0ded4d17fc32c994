// The b_eff_io kernels: how each pattern type opens its file, places a pattern, and moves one
// chunk (Figure 1 of the paper). Every MPI-IO call is here; the schedule that times them is in
// measure.cpp.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "suites/beffio/definition.hpp"

namespace mpiscope::beffio {

// One pattern type's file, open for one access method.
struct TypeFile {
  MPI_File file = MPI_FILE_NULL;
  int type = 0;
  Method method = Method::Write;
  MPI_Comm comm = MPI_COMM_NULL;  // the partition (the file's communicator except for type 2)
  int rank = 0, nprocs = 1;
  std::uint64_t segment = 0;  // types 3 and 4: bytes of each process's segment
  std::byte* buffer = nullptr;
};

// The file of a pattern type: one shared file, except type 2's file per process.
std::string type_file_path(const std::string& prefix, int type, int rank);
// True when every process of the partition opens the same file.
constexpr bool shared_file(int type) {
  return type != 2;
}

// MPI_File_open: CREATE|RDWR for writes (ROMIO's read-modify-write of strided writes needs read
// access), RDONLY for reads; never MPI_MODE_UNIQUE_OPEN (section 5.4). Types 3 and 4 see their
// own segment from here on.
void open_type_file(TypeFile& f, const std::string& path);
void close_type_file(TypeFile& f);

// The file bytes a pattern's `calls` calls cover: over all processes for the interleaved types
// 0 and 1, per process for the others (own file, own segment).
std::uint64_t region_bytes(const Pattern& p, long calls, int nprocs);

// Places the next calls of pattern p at `region_start` (as region_bytes counts): type 0 sets the
// strided view (l bytes of each n·l), type 1 moves the shared pointer, types 2–4 the individual
// one.
void place_pattern(TypeFile& f, const Pattern& p, std::uint64_t region_start);

// One call: L bytes written or read (MPI_File_write_all / _ordered / write, …). Throws when the
// call fails or moves fewer bytes.
void access_once(TypeFile& f, const Pattern& p);

// MPI_File_sync: the end of every write loop (section 5.1).
void sync_writes(TypeFile& f);

}  // namespace mpiscope::beffio
