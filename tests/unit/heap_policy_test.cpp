// The heap policy (core/heap_policy.hpp): which thresholds a run fixes, when it leaves them to
// the user or the C library, and that fixed thresholds really keep freed memory in the heap.
#include "core/heap_policy.hpp"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace mpiscope::core;

namespace {

struct Planted {
  std::map<std::string, std::string> env;
  std::vector<std::pair<int, int>> calls;  // what the policy asked mallopt to set
  bool refuse = false;
  HeapPolicy decide(HeapPolicyKind suite_default = HeapPolicyKind::Fixed) {
    return decide_heap_policy(
        [this](const char* name) {
          const auto it = env.find(name);
          return it == env.end() ? nullptr : it->second.c_str();
        },
        [this](int option, int value) {
          calls.emplace_back(option, value);
          return !refuse;
        },
        suite_default);
  }
};

}  // namespace

TEST(HeapPolicy, FixesBothThresholdsByDefault) {
  Planted p;
  const auto policy = p.decide();
  EXPECT_EQ(policy.kind, HeapPolicyKind::Fixed);
  const std::vector<std::pair<int, int>> expected = {{M_MMAP_THRESHOLD, 32 << 20},
                                                     {M_TRIM_THRESHOLD, 256 << 20}};
  EXPECT_EQ(p.calls, expected);
  EXPECT_NE(policy.description.find("mmap threshold 32 MiB, trim threshold 256 MiB"),
            std::string::npos)
      << policy.description;
}

TEST(HeapPolicy, LeavesTheUsersOwnThresholdsAlone) {
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"MALLOC_TRIM_THRESHOLD_", "1000000"},
           {"MALLOC_MMAP_THRESHOLD_", "1000000"},
           {"GLIBC_TUNABLES", "glibc.malloc.check=0:glibc.malloc.trim_threshold=9"},
           {"GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=9"}}) {
    Planted p;
    p.env[name] = value;
    const auto policy = p.decide();
    EXPECT_EQ(policy.kind, HeapPolicyKind::Environment) << name << "=" << value;
    EXPECT_TRUE(p.calls.empty()) << name << "=" << value;
  }
  // Other tunables are not about these thresholds: the run still fixes them.
  Planted other;
  other.env["GLIBC_TUNABLES"] = "glibc.malloc.tcache_count=0";
  EXPECT_EQ(other.decide().kind, HeapPolicyKind::Fixed);
}

TEST(HeapPolicy, SystemChoiceAndARefusingAllocatorAreSaid) {
  Planted system;
  system.env["MPISCOPE_HEAP"] = "system";
  const auto chosen = system.decide();
  EXPECT_EQ(chosen.kind, HeapPolicyKind::System);
  EXPECT_TRUE(system.calls.empty());
  EXPECT_NE(chosen.description.find("MPISCOPE_HEAP=system"), std::string::npos);

  Planted refusing;
  refusing.refuse = true;
  const auto refused = refusing.decide();
  EXPECT_EQ(refused.kind, HeapPolicyKind::Unavailable);
  EXPECT_NE(refused.description.find("cannot be set"), std::string::npos);
}

// OSU's front end keeps the C library's thresholds (as OSU's own programs run); MPISCOPE_HEAP=fixed
// fixes them there too, and the user's own thresholds are left alone under either default.
TEST(HeapPolicy, ASuiteMayDefaultToTheSystemsThresholdsAndFixedOverridesIt) {
  Planted osu;
  const auto by_default = osu.decide(HeapPolicyKind::System);
  EXPECT_EQ(by_default.kind, HeapPolicyKind::System);
  EXPECT_TRUE(osu.calls.empty());
  EXPECT_NE(by_default.description.find("MPISCOPE_HEAP=fixed fixes them"), std::string::npos)
      << by_default.description;

  Planted fixed;
  fixed.env["MPISCOPE_HEAP"] = "fixed";
  EXPECT_EQ(fixed.decide(HeapPolicyKind::System).kind, HeapPolicyKind::Fixed);
  EXPECT_EQ(fixed.calls.size(), 2u);

  Planted own;
  own.env["MALLOC_TRIM_THRESHOLD_"] = "1000000";
  EXPECT_EQ(own.decide(HeapPolicyKind::System).kind, HeapPolicyKind::Environment);
  EXPECT_TRUE(own.calls.empty());
}

// A value of MPISCOPE_HEAP it does not know is said in the setting every output carries.
TEST(HeapPolicy, AnUnknownChoiceIsSaid) {
  Planted p;
  p.env["MPISCOPE_HEAP"] = "sytem";
  const auto policy = p.decide();
  EXPECT_EQ(policy.kind, HeapPolicyKind::Fixed);
  EXPECT_NE(policy.description.find("MPISCOPE_HEAP=sytem not understood"), std::string::npos)
      << policy.description;
}

// The real thing in this process: after fix_heap_for_run(), 8 MiB come from the heap, not from a
// mapping of their own, and stay there when freed (with glibc's defaults the first 8 MiB block is
// mapped, and a freed top of the heap above 128 KiB goes back to the system).
TEST(HeapPolicy, FixedThresholdsKeepAFreedBlockInTheHeap) {
#if defined(__SANITIZE_ADDRESS__)
  EXPECT_EQ(fix_heap_for_run().kind, HeapPolicyKind::Unavailable);  // the sanitizer's allocator
  GTEST_SKIP() << "AddressSanitizer replaces glibc's allocator";
#else
  if (std::getenv("MPISCOPE_HEAP") || std::getenv("GLIBC_TUNABLES") ||
      std::getenv("MALLOC_TRIM_THRESHOLD_") || std::getenv("MALLOC_MMAP_THRESHOLD_"))
    GTEST_SKIP() << "the environment chooses the heap policy";
  ASSERT_EQ(fix_heap_for_run().kind, HeapPolicyKind::Fixed);
  EXPECT_EQ(heap_policy().kind, HeapPolicyKind::Fixed);
  constexpr std::size_t kBlock = std::size_t{8} << 20;
  const auto mapped_before = mallinfo2().hblks;
  auto* volatile block = static_cast<char*>(std::malloc(kBlock));
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, kBlock);
  EXPECT_EQ(mallinfo2().hblks, mapped_before) << "8 MiB were mapped apart from the heap";
  const auto heap_with_block = mallinfo2().arena;
  std::free(block);
  EXPECT_GE(mallinfo2().arena, heap_with_block) << "the heap shrank when the block was freed";
  EXPECT_GE(mallinfo2().arena, kBlock);
#endif
}
