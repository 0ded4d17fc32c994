// Message buffers: allocation that can fail without crashing, the IMB fill rule, and the
// -off_cache rotation through disjoint copies so that consecutive repetitions never reuse a
// cache line (IMB guide 5.1.2.4).
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace mpiscope::core {

struct OffCache {
  double cache_mb = 0;    // size of the last-level cache to defeat; 0 = off
  std::size_t line = 64;  // cache line size in bytes
  bool enabled() const { return cache_mb > 0; }
};

// The IMB default when -off_cache -1 is given and the cache cannot be detected.
constexpr double kDefaultCacheMb = 8.0;  // IMB_mem_info.h CACHE_SIZE
constexpr std::size_t kDefaultCacheLine = 64;
// Detects the last-level cache from sysfs; falls back to the defaults above.
OffCache detect_off_cache();

struct BufferShape {
  std::size_t send = 0;  // bytes per repetition
  std::size_t recv = 0;
};

// Distance between the starts of two rotation slots, and how many slots a region needs so that
// the bytes touched before a slot is reused exceed twice the cache.
std::size_t slot_stride(std::size_t bytes, const OffCache& oc);
int slot_count(std::size_t bytes, const OffCache& oc);
// Bytes one process allocates for a shape (what -mem is compared with), with at most
// `max_slots` slots per region.
constexpr int kAllSlots = INT_MAX;
std::size_t footprint(const BufferShape& shape, const OffCache& oc, int max_slots = kAllSlots);
// -off_cache under -mem: the largest slot count per region whose footprint fits in
// `limit_bytes` (at most what covering twice the cache needs); 0 when not even one slot fits.
int slots_within(const BufferShape& shape, const OffCache& oc, double limit_bytes);

// Page-aligned memory mapped from the system. A freed mapping is kept for the next allocation it
// can hold (buffers.cpp: a run holds at most what it needed at one time; through malloc, buffers
// freed length after length stayed in the heap and a default IMB-MPI1 run held 2.5 times the
// memory its buffers need).
class AlignedBytes {
 public:
  AlignedBytes() = default;
  ~AlignedBytes();
  AlignedBytes(AlignedBytes&& o) noexcept;
  AlignedBytes& operator=(AlignedBytes&& o) noexcept;
  AlignedBytes(const AlignedBytes&) = delete;
  AlignedBytes& operator=(const AlignedBytes&) = delete;

  // Returns an empty optional instead of throwing when memory is not available.
  static std::optional<AlignedBytes> try_allocate(std::size_t bytes);
  std::byte* data() const { return ptr_; }
  std::size_t size() const { return size_; }

 private:
  std::byte* ptr_ = nullptr;
  std::size_t size_ = 0;      // what was asked for
  std::size_t capacity_ = 0;  // what the mapping holds (page multiple, maybe a reused larger one)
};

class MessageBuffers {
 public:
  // Move-only: a copy would write into the same memory as its original.
  MessageBuffers() = default;
  MessageBuffers(MessageBuffers&&) noexcept = default;
  MessageBuffers& operator=(MessageBuffers&&) noexcept = default;
  MessageBuffers(const MessageBuffers&) = delete;
  MessageBuffers& operator=(const MessageBuffers&) = delete;

  // Fills the send slots with the pattern of `pattern_rank` and the receive slots with zeros.
  // Each region has slot_count() slots, or `max_slots` when fewer.
  static std::optional<MessageBuffers> try_create(const BufferShape& shape, const OffCache& oc,
                                                  int pattern_rank, int max_slots = kAllSlots);
  // IMB-MT's -malloc_algo continuous: one send block and one receive block cut into
  // pattern_ranks.size() buffers of one slot, buffer k's regions at k times `spacing`'s (at least
  // `shape`'s), its send region filled with the pattern of pattern_ranks[k].
  static std::optional<std::vector<MessageBuffers>> try_create_contiguous(
      const BufferShape& shape, const BufferShape& spacing, const std::vector<int>& pattern_ranks);
  int slots() const { return std::max(send_.slots, recv_.slots); }
  std::byte* send(int iteration) const { return send_.at(iteration); }
  std::byte* recv(int iteration) const { return recv_.at(iteration); }
  const BufferShape& shape() const { return shape_; }
  // Whole regions, every slot included (what a window over them must cover).
  std::size_t send_region() const { return send_.size; }
  std::size_t recv_region() const { return recv_.size; }
  void clear_recv(int iteration, std::byte value) const;

 private:
  // Slots of `stride` bytes from `base`, in `block` (shared by the buffers cut from one block).
  struct Region {
    std::shared_ptr<const AlignedBytes> block;
    std::byte* base = nullptr;
    std::size_t size = 0, stride = 0;
    int slots = 1;
    std::byte* at(int i) const {
      if (slots == 1) return base;  // no -off_cache: no division in the timed loop
      return base + stride * static_cast<std::size_t>(i % slots);
    }
  };
  BufferShape shape_;
  Region send_, recv_;
};

// IMB's BUF_VALUE(rank, i) = 0.1·(rank+1) + i, stored as float (assign_type of IMB-MPI1/EXT).
inline float buf_value(int rank, std::size_t i) {
  return static_cast<float>(0.1 * (rank + 1) + static_cast<float>(i));
}
// Writes bytes [offset, offset+n) of rank's pattern (the float array above viewed as bytes).
void fill_pattern(std::byte* dst, std::size_t n, int rank, std::size_t offset = 0);

// A char sum's pattern (OSU's reductions: MPI_CHAR with MPI_SUM): element i is 1 + i mod 100
// from rank i mod nprocs and 0 from every other rank, so that the sum over the ranks is
// 1 + i mod 100 whatever their number and never leaves a char's range (the float pattern's bytes,
// summed over a few ranks, would overflow a char). Every rank's elements count when there are
// at least nprocs of them; a sum that left one out, or added one twice, differs.
inline char char_sum_value(int rank, int nprocs, std::size_t i) {
  return static_cast<std::size_t>(rank) == i % static_cast<std::size_t>(nprocs)
             ? static_cast<char>(1 + i % 100)
             : char{0};
}
// The sum over ranks 0 … nprocs-1 of char_sum_value(rank, nprocs, i).
inline char char_sum_of_ranks(std::size_t i) {
  return static_cast<char>(1 + i % 100);
}
// Writes elements [offset, offset+n) of rank's char-sum pattern.
void fill_char_sum_pattern(std::byte* dst, std::size_t n, int rank, int nprocs,
                           std::size_t offset = 0);
// Writes the first `elements` values of rank's char-sum pattern as T (int, double), whose sums
// over the ranks are exact.
template <typename T>
void fill_sum_pattern_as(std::byte* dst, std::size_t elements, int rank, int nprocs) {
  for (std::size_t k = 0; k < elements; ++k) {
    const T v = static_cast<T>(char_sum_value(rank, nprocs, k));
    std::memcpy(dst + k * sizeof v, &v, sizeof v);
  }
}
// Number of bytes in [0, n) that differ from rank's pattern starting at `offset`.
std::size_t count_pattern_mismatches(const std::byte* got, std::size_t n, int rank,
                                     std::size_t offset);

}  // namespace mpiscope::core
