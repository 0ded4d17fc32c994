#include "suites/beffio/file_system.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <mntent.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/scratch_files.hpp"

namespace mpiscope::beffio {

namespace {
// Parallel file systems whose numbers <linux/magic.h> does not carry (their own headers do).
constexpr std::uint64_t kLustreMagic = 0x0BD00BD0;
constexpr std::uint64_t kGpfsMagic = 0x47504653;
constexpr std::uint64_t kBeegfsMagic = 0x19830326;
constexpr std::uint64_t kPanfsMagic = 0xAAD7AAEA;
constexpr std::uint64_t kOrangefsMagic = 0x20030528;
constexpr std::uint64_t kZfsMagic = 0x2FC12FC1;

struct KnownType {
  std::uint64_t magic;
  const char* name;
};
constexpr KnownType kKnownTypes[] = {
    {EXT4_SUPER_MAGIC, "ext2/ext3/ext4"},
    {XFS_SUPER_MAGIC, "xfs"},
    {BTRFS_SUPER_MAGIC, "btrfs"},
    {kZfsMagic, "zfs"},
    {TMPFS_MAGIC, "tmpfs"},
    {RAMFS_MAGIC, "ramfs"},
    {OVERLAYFS_SUPER_MAGIC, "overlay"},
    {NFS_SUPER_MAGIC, "nfs"},
    {CIFS_SUPER_MAGIC, "cifs"},
    {SMB2_SUPER_MAGIC, "smb2"},
    {V9FS_MAGIC, "9p"},
    {FUSE_SUPER_MAGIC, "fuse"},
    {CEPH_SUPER_MAGIC, "ceph"},
    {kLustreMagic, "lustre"},
    {kGpfsMagic, "gpfs"},
    {kBeegfsMagic, "beegfs"},
    {kPanfsMagic, "panfs"},
    {kOrangefsMagic, "orangefs"},
    {OCFS2_SUPER_MAGIC, "ocfs2"},
    {F2FS_SUPER_MAGIC, "f2fs"},
    {MSDOS_SUPER_MAGIC, "vfat"},
    {EXFAT_SUPER_MAGIC, "exfat"},
    {SQUASHFS_MAGIC, "squashfs"},
};

std::vector<MountEntry> mount_table() {
  std::vector<MountEntry> mounts;
  FILE* table = setmntent("/proc/self/mounts", "r");
  if (!table) return mounts;
  mntent entry{};
  char strings[4 * PATH_MAX];
  while (getmntent_r(table, &entry, strings, sizeof strings))
    mounts.push_back({entry.mnt_dir, entry.mnt_type, entry.mnt_fsname});
  endmntent(table);
  return mounts;
}

std::string hex(std::uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%08llx", static_cast<unsigned long long>(value));
  return text;
}

// Rank 0's probe file: created exclusively (a name that exists is never opened or removed),
// registered first so that a signal removes it. Empty: created; otherwise why not.
std::string create_probe(const std::string& path) {
  core::scratch_files::add(path);
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    const std::string why = std::strerror(errno);
    core::scratch_files::forget(path);
    return why;
  }
  close(fd);
  return "";
}
}  // namespace

std::string fs_type_name(std::uint64_t f_type) {
  for (const auto& known : kKnownTypes)
    if (known.magic == f_type) return known.name;
  return "";
}

const MountEntry* mount_of(const std::vector<MountEntry>& mounts, const std::string& path) {
  const MountEntry* best = nullptr;
  for (const auto& m : mounts) {
    const std::string& dir = m.dir;
    // `dir` holds `path` when it is `path` or a parent of it ("/" holds every path).
    const bool holds = path.compare(0, dir.size(), dir) == 0 &&
                       (path.size() == dir.size() || dir == "/" || path[dir.size()] == '/');
    if (holds && (!best || dir.size() >= best->dir.size())) best = &m;
  }
  return best;
}

std::map<std::string, std::string> describe_file_system(const std::string& dir,
                                                        const std::string& probe_path,
                                                        MPI_Comm comm) {
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nprocs);
  struct statfs fs {};
  const bool have_statfs = statfs(dir.c_str(), &fs) == 0;
  const int statfs_errno = errno;
  // Every process compares its own view of the directory with rank 0's.
  unsigned long long type_of_rank0 = have_statfs ? static_cast<unsigned long long>(fs.f_type) : 0;
  MPI_Bcast(&type_of_rank0, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  std::string probe_error = rank == 0 ? create_probe(probe_path) : "";
  int probe_created = probe_error.empty() ? 1 : 0;
  MPI_Bcast(&probe_created, 1, MPI_INT, 0, comm);
  struct stat st {};
  int counts[2] = {
      probe_created && (rank == 0 || lstat(probe_path.c_str(), &st) == 0) ? 1 : 0,
      !have_statfs || static_cast<unsigned long long>(fs.f_type) != type_of_rank0 ? 1 : 0};
  // Rank 0 has every count once every process has looked: then the probe can go.
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : counts, counts, 2, MPI_INT, MPI_SUM, 0, comm);
  if (rank != 0) return {};
  if (probe_created) core::scratch_files::remove(probe_path);

  std::map<std::string, std::string> s;
  if (!have_statfs) {
    s["fs_type"] = std::string("unknown (statfs failed: ") + std::strerror(statfs_errno) + ")";
  } else {
    const auto magic = static_cast<std::uint64_t>(fs.f_type);
    const std::string name = fs_type_name(magic);
    s["fs_statfs_type"] =
        hex(magic) + " (" + (name.empty() ? "not in mpiscope's table" : name) + ")";
    s["fs_block_size_bytes"] = std::to_string(fs.f_bsize);
    s["fs_type"] = name.empty() ? "unknown" : name;
  }
  char resolved[PATH_MAX];
  const std::vector<MountEntry> mounts = mount_table();
  const MountEntry* mount = realpath(dir.c_str(), resolved) ? mount_of(mounts, resolved) : nullptr;
  if (mount) {
    s["fs_mount_point"] = mount->dir;
    s["fs_source"] = mount->source;
    // The mount table tells ext4 from ext3, nfs4 from nfs, fuse.sshfs from fuse, which f_type
    // cannot; it is taken where it agrees with f_type or f_type is not in the table.
    const std::string& name = s["fs_type"];
    if (have_statfs && (name == "unknown" || name.find(mount->type) != std::string::npos ||
                        mount->type.rfind(name, 0) == 0))
      s["fs_type"] = mount->type;
  } else {
    s["fs_mount_point"] = "unknown (not found in /proc/self/mounts)";
  }
  if (!probe_created) {
    s["fs_shared_between_processes"] =
        "not checked: cannot create the probe file " + probe_path + ": " + probe_error;
  } else if (nprocs == 1) {
    s["fs_shared_between_processes"] = "not checked (1 process)";
  } else {
    const int seen = counts[0];
    s["fs_shared_between_processes"] =
        seen == nprocs
            ? "yes (all " + std::to_string(nprocs) + " processes see a file rank 0 created there)"
            : "no (only " + std::to_string(seen) + " of " + std::to_string(nprocs) +
                  " processes see a file rank 0 created there: a node-local "
                  "directory?)";
  }
  if (counts[1] > 0)
    s["fs_shared_between_processes"] += "; on " + std::to_string(counts[1]) +
                                        " process(es) the directory is on another type of file "
                                        "system than on rank 0";
  return s;
}

}  // namespace mpiscope::beffio
