// The file system b_eff_io measured, for the result protocol: section 3.2 (item 5) says "the
// chosen filesystem, its parameters and any usage of non-default parameters must be reported".
// What statfs and the mount table say about --io-dir, and whether the job's processes share it.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mpiscope::beffio {

// A file system's name from statfs's f_type: "tmpfs", "ext2/ext3/ext4" (they share one number),
// "nfs", "lustre", …; empty for a number not in the table.
std::string fs_type_name(std::uint64_t f_type);

struct MountEntry {
  std::string dir, type, source;  // mount point, type, what is mounted ("tmpfs", "host:/export")
};
// The mount that holds `path` (absolute, without symbolic links): the longest mount point that
// is `path` or one of its parents, the last listed of several at one place (the one on top).
// nullptr when none does.
const MountEntry* mount_of(const std::vector<MountEntry>& mounts, const std::string& path);

// The settings that describe the file system of `dir`, from rank 0 of `comm`: fs_type,
// fs_statfs_type, fs_mount_point, fs_source, fs_block_size_bytes and fs_shared_between_processes.
// Collective: rank 0 creates the file `probe_path` in `dir` (exclusively, registered as a scratch
// file), the other processes look for it, then rank 0 removes it. Problems are described in the
// values, never thrown, so that every process returns.
std::map<std::string, std::string> describe_file_system(const std::string& dir,
                                                        const std::string& probe_path,
                                                        MPI_Comm comm);

}  // namespace mpiscope::beffio
