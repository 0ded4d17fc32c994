#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>
#include <iterator>
#include <vector>

#include "core/buffers.hpp"

using namespace mpiscope::core;

TEST(Pattern, IsImbBufValueAsFloats) {
  std::vector<std::byte> b(16);
  fill_pattern(b.data(), b.size(), 2);
  float f[4];
  std::memcpy(f, b.data(), sizeof f);
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(f[i], static_cast<float>(0.3 + i));
}

TEST(Pattern, OffsetsAndOddLengthsAgreeWithTheWholeBuffer) {
  std::vector<std::byte> whole(1000), part(333);
  fill_pattern(whole.data(), whole.size(), 5);
  fill_pattern(part.data(), part.size(), 5, 101);
  EXPECT_EQ(0, std::memcmp(whole.data() + 101, part.data(), part.size()));
  EXPECT_EQ(count_pattern_mismatches(part.data(), part.size(), 5, 101), 0u);
  EXPECT_GT(count_pattern_mismatches(part.data(), part.size(), 4, 101), 0u);  // other rank
  part[200] ^= std::byte{0x10};
  EXPECT_EQ(count_pattern_mismatches(part.data(), part.size(), 5, 101), 1u);  // one byte
}

// OSU's reductions sum MPI_CHAR: the pattern's sum over any number of ranks is
// char_sum_of_ranks and stays within a char (1 … 100), and every rank owns elements.
TEST(Pattern, CharSumFitsACharOnAnyNumberOfRanks) {
  for (int nprocs : {1, 2, 3, 7, 128, 1000}) {
    SCOPED_TRACE(nprocs);
    std::vector<int> owned(static_cast<std::size_t>(nprocs));
    for (std::size_t i = 0; i < 2000; ++i) {
      int sum = 0;
      for (int rank = 0; rank < nprocs; ++rank) {
        const int v = char_sum_value(rank, nprocs, i);
        EXPECT_GE(v, 0);
        if (v != 0) ++owned[static_cast<std::size_t>(rank)];
        sum += v;
      }
      EXPECT_GE(sum, 1);
      EXPECT_LE(sum, 100);
      EXPECT_EQ(sum, char_sum_of_ranks(i)) << i;
    }
    for (int n : owned) EXPECT_GT(n, 0);
  }
  std::vector<std::byte> b(300);
  fill_char_sum_pattern(b.data(), b.size(), 2, 3, 100);
  for (std::size_t k = 0; k < b.size(); ++k)
    EXPECT_EQ(static_cast<char>(b[k]), char_sum_value(2, 3, 100 + k)) << k;
}

TEST(OffCache, SlotsCoverTwiceTheCacheAndStartTwoLinesApart) {
  const OffCache oc{1.0, 64};
  EXPECT_EQ(slot_stride(100, oc), 128u + 128u);
  EXPECT_EQ(slot_stride(4096, oc), 4096u + 128u);
  EXPECT_GE(slot_count(4096, oc) * slot_stride(4096, oc), 2u * 1048576u);
  EXPECT_EQ(slot_count(8u << 20, oc), 1);      // a message larger than twice the cache
  EXPECT_EQ(slot_count(4096, OffCache{}), 1);  // off: one slot
}

TEST(OffCache, FootprintIsWhatMemIsComparedWith) {
  EXPECT_EQ(footprint({1024, 2048}, OffCache{}), 1024u + 2048u);
  const OffCache oc{1.0, 64};
  EXPECT_GE(footprint({1024, 1024}, oc), 4u * 1048576u);
}

// -off_cache under -mem: the most slots that fit, never more than the cache needs, 0 when one
// buffer pair alone exceeds the limit.
TEST(OffCache, SlotsWithinAMemoryLimit) {
  const OffCache oc{1.0, 64};
  const BufferShape shape{1000, 1000};
  const int all = slot_count(1000, oc);
  EXPECT_EQ(slots_within(shape, oc, 1e12), all);
  const double limit = static_cast<double>(footprint(shape, oc)) / 3;
  const int fit = slots_within(shape, oc, limit);
  EXPECT_GT(fit, 0);
  EXPECT_LT(fit, all);
  EXPECT_LE(static_cast<double>(footprint(shape, oc, fit)), limit);
  EXPECT_GT(static_cast<double>(footprint(shape, oc, fit + 1)), limit);
  EXPECT_EQ(slots_within(shape, oc, 1000), 0);
  auto mb = MessageBuffers::try_create(shape, oc, 0, fit);
  ASSERT_TRUE(mb.has_value());
  EXPECT_EQ(mb->slots(), fit);
  EXPECT_EQ(mb->send(0), mb->send(fit));
  EXPECT_NE(mb->recv(0), mb->recv(fit - 1));
}

TEST(MessageBuffers, RotatesThroughDisjointSlots) {
  const OffCache oc{0.25, 64};
  auto mb = MessageBuffers::try_create({1000, 1000}, oc, 3);
  ASSERT_TRUE(mb.has_value());
  EXPECT_NE(mb->send(0), mb->send(1));
  EXPECT_GE(static_cast<std::size_t>(mb->send(1) - mb->send(0)), 1000u + 128u);
  const int slots = slot_count(1000, oc);
  EXPECT_EQ(mb->send(0), mb->send(slots));
  EXPECT_EQ(count_pattern_mismatches(mb->send(slots - 1), 1000, 3, 0), 0u);
}

namespace {
// Whether [p, p+bytes) is mapped in this process (mincore fails with ENOMEM on unmapped pages).
bool mapped(const std::byte* p, std::size_t bytes) {
  std::vector<unsigned char> pages((bytes + 4095) / 4096);
  return mincore(const_cast<std::byte*>(p), bytes, pages.data()) == 0;
}
}  // namespace

// A freed mapping serves the next allocation it holds (warm pages, as IMB's and OSU's persistent
// buffers); one that none holds returns every kept mapping, so no more is held than was in use.
TEST(AlignedBytes, AFreedMappingIsReusedAndReturnedWhenItCannotServe) {
  // Larger than anything an earlier test in this process freed: a miss, so the mappings those kept
  // are returned, and this one stays in use (untouched, so never resident) until the end.
  const auto anchor = AlignedBytes::try_allocate(std::size_t{64} << 20);
  ASSERT_TRUE(anchor);
  std::byte* first = nullptr;
  {
    auto big = AlignedBytes::try_allocate(1u << 20);
    ASSERT_TRUE(big);
    first = big->data();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % 4096, 0u);
    std::memset(first, 1, big->size());
  }
  {
    auto smaller = AlignedBytes::try_allocate(300000);
    ASSERT_TRUE(smaller);
    EXPECT_EQ(smaller->data(), first);  // the kept 1 MiB mapping
    EXPECT_EQ(smaller->size(), 300000u);
  }
  auto larger = AlignedBytes::try_allocate(3u << 20);
  ASSERT_TRUE(larger);
  // Returned to the system before mapping more: its pages are unmapped, or the kernel placed the
  // new mapping over them (which it can only do once they are free).
  const bool inside_new = first >= larger->data() && first < larger->data() + larger->size();
  EXPECT_TRUE(!mapped(first, 1u << 20) || inside_new);
  EXPECT_TRUE(mapped(larger->data(), larger->size()));
}

// -malloc_algo continuous: buffer k's regions at k times the spacing (at least the shape), its
// send region in its own pattern, every receive region zero.
TEST(MessageBuffers, ContiguousCutsOneBlockPerDirection) {
  const BufferShape shape{.send = 8, .recv = 12}, spacing{.send = 100, .recv = 4};
  auto cut = MessageBuffers::try_create_contiguous(shape, spacing, {3, 5, 7});
  ASSERT_TRUE(cut.has_value());
  ASSERT_EQ(cut->size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    const MessageBuffers& mb = (*cut)[k];
    EXPECT_EQ(mb.send(0), (*cut)[0].send(0) + 100 * k);
    EXPECT_EQ(mb.recv(0), (*cut)[0].recv(0) + 12 * k) << "the shape when longer than the spacing";
    EXPECT_EQ(mb.send(1), mb.send(0)) << "one slot";
    std::byte expected[8];
    fill_pattern(expected, 8, 3 + 2 * static_cast<int>(k));
    EXPECT_EQ(std::memcmp(mb.send(0), expected, 8), 0);
    for (int i = 0; i < 12; ++i) EXPECT_EQ(mb.recv(0)[i], std::byte{0});
  }
  // The block outlives the buffer that made it: with that one gone, an allocation no kept
  // mapping can serve (which returns every kept one to the system) leaves it mapped. Last in the
  // file: the large mapping it keeps would serve AlignedBytes' test.
  std::vector<MessageBuffers> rest(std::make_move_iterator(cut->begin() + 1),
                                   std::make_move_iterator(cut->end()));
  cut->clear();
  const auto miss = AlignedBytes::try_allocate(std::size_t{512} << 20);
  ASSERT_TRUE(miss);
  EXPECT_TRUE(mapped(rest[0].recv(0) - 12, 3 * 12));  // the blocks from their (page) start
  EXPECT_TRUE(mapped(rest[0].send(0) - 100, 3 * 100));
}
