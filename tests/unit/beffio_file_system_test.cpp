// What b_eff_io reports about its file system: names of statfs's f_type numbers, and which mount
// holds the I/O directory.
#include <gtest/gtest.h>

#include "suites/beffio/file_system.hpp"

using namespace mpiscope::beffio;

TEST(BeffioFileSystem, NamesTheTypesOfStatfs) {
  EXPECT_EQ(fs_type_name(0x01021994), "tmpfs");
  EXPECT_EQ(fs_type_name(0xEF53), "ext2/ext3/ext4");
  EXPECT_EQ(fs_type_name(0x794c7630), "overlay");
  EXPECT_EQ(fs_type_name(0x6969), "nfs");
  EXPECT_EQ(fs_type_name(0x0BD00BD0), "lustre");
  EXPECT_EQ(fs_type_name(0x47504653), "gpfs");
  EXPECT_EQ(fs_type_name(0x12345678), "");
}

TEST(BeffioFileSystem, TheMountHoldingAPathIsTheLongestParentOnTop) {
  const std::vector<MountEntry> mounts = {{"/", "ext4", "/dev/vda"},
                                          {"/scratch", "lustre", "10.0.0.1@tcp:/fs"},
                                          {"/scratch/me", "tmpfs", "tmpfs"},
                                          {"/scratch", "nfs4", "server:/export"}};
  EXPECT_EQ(mount_of(mounts, "/home/me")->type, "ext4");
  EXPECT_EQ(mount_of(mounts, "/")->type, "ext4");
  // Mounted twice at one place: the later mount is the one on top.
  EXPECT_EQ(mount_of(mounts, "/scratch")->type, "nfs4");
  EXPECT_EQ(mount_of(mounts, "/scratch/you/run")->type, "nfs4");
  EXPECT_EQ(mount_of(mounts, "/scratch/me")->type, "tmpfs");
  EXPECT_EQ(mount_of(mounts, "/scratch/me/b_eff_io")->type, "tmpfs");
  // A mount point is a parent by whole names: /scratch/meadow is not under /scratch/me.
  EXPECT_EQ(mount_of(mounts, "/scratch/meadow")->type, "nfs4");
  EXPECT_EQ(mount_of({{"/scratch", "lustre", "fs"}}, "/home"), nullptr);
}
