#include "core/buffers.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "core/fault_injection.hpp"

namespace mpiscope::core {

namespace {
constexpr std::size_t kAlignment = 4096;  // page-aligned: stable results for large messages

std::size_t round_up(std::size_t v, std::size_t to) {
  return (v + to - 1) / to * to;
}

std::size_t read_sysfs_size(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  if (!(in >> s) || s.empty()) return 0;
  std::size_t mult = 1;
  if (s.back() == 'K')
    mult = 1024, s.pop_back();
  else if (s.back() == 'M')
    mult = 1024 * 1024, s.pop_back();
  try {
    return std::stoul(s) * mult;
  } catch (...) {
    return 0;
  }
}
}  // namespace

OffCache detect_off_cache() {
  OffCache oc{kDefaultCacheMb, kDefaultCacheLine};
  std::size_t largest = 0, line = 0;
  for (int idx = 0; idx < 8; ++idx) {
    const std::string base = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(idx);
    const std::size_t size = read_sysfs_size(base + "/size");
    if (size > largest) {
      largest = size;
      line = read_sysfs_size(base + "/coherency_line_size");
    }
  }
  if (largest > 0) oc.cache_mb = static_cast<double>(largest) / 1048576.0;
  if (line > 0) oc.line = line;
  return oc;
}

std::size_t slot_stride(std::size_t bytes, const OffCache& oc) {
  if (!oc.enabled()) return round_up(bytes > 0 ? bytes : 1, 64);
  // Consecutive slots start at least two cache lines apart (the current and a prefetched one).
  return round_up(bytes, oc.line) + 2 * oc.line;
}

int slot_count(std::size_t bytes, const OffCache& oc) {
  if (!oc.enabled()) return 1;
  const double twice_cache = 2.0 * oc.cache_mb * 1048576.0;
  const double slots = std::ceil(twice_cache / static_cast<double>(slot_stride(bytes, oc)));
  // Saturates rather than overflowing: such a rotation never fits, and -mem then says so.
  return static_cast<int>(std::clamp(slots, 1.0, static_cast<double>(INT_MAX)));
}

std::size_t footprint(const BufferShape& shape, const OffCache& oc, int max_slots) {
  auto region = [&](std::size_t b) {
    return b == 0 ? 0
                  : slot_stride(b, oc) *
                        static_cast<std::size_t>(std::min(slot_count(b, oc), max_slots));
  };
  return region(shape.send) + region(shape.recv);
}

int slots_within(const BufferShape& shape, const OffCache& oc, double limit_bytes) {
  auto fits = [&](int slots) {
    return static_cast<double>(footprint(shape, oc, slots)) <= limit_bytes;
  };
  // The footprint grows with the slot count: bisect for the largest count that fits.
  int low = 0, high = std::max(slot_count(shape.send, oc), slot_count(shape.recv, oc));
  if (fits(high)) return high;
  while (high - low > 1) {
    const int mid = low + (high - low) / 2;
    (fits(mid) ? low : high) = mid;
  }
  return low;
}

namespace {
// Mappings freed by AlignedBytes, kept for the next allocation they can hold, as IMB and OSU keep
// their buffers from one length to the next: a point then times pages that earlier points have
// already used. (Fresh pages for every length made the 64 KiB ping-pong 2–5 % slower than a
// hand-written loop over persistent buffers; bench/README.md.) What is kept was all in use at
// once before, and an allocation that none of it holds first returns all of it to the system,
// so a run never holds more than the most it needed at one time.
class FreedMappings {
 public:
  // A kept mapping of at least `bytes` (the smallest), or a new one; nullptr if none can be made.
  std::byte* take(std::size_t bytes, std::size_t& capacity) {
    const std::lock_guard lock(mutex_);
    auto best = kept_.end();
    for (auto it = kept_.begin(); it != kept_.end(); ++it)
      if (it->capacity >= bytes && (best == kept_.end() || it->capacity < best->capacity))
        best = it;
    if (best != kept_.end()) {
      const Mapping m = *best;
      kept_.erase(best);
      capacity = m.capacity;
      return m.start;
    }
    release_all();
    capacity = round_up(bytes, kAlignment);
    void* p = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<std::byte*>(p);
  }
  void give(std::byte* start, std::size_t capacity) {
    const std::lock_guard lock(mutex_);
    kept_.push_back({start, capacity});
    if (kept_.size() > kMaxKept) {  // the smallest goes back to the system
      auto smallest = std::min_element(kept_.begin(), kept_.end(),
                                       [](auto& a, auto& b) { return a.capacity < b.capacity; });
      munmap(smallest->start, smallest->capacity);
      kept_.erase(smallest);
    }
  }

 private:
  struct Mapping {
    std::byte* start;
    std::size_t capacity;
  };
  static constexpr std::size_t kMaxKept = 4;  // a point's send and receive regions, twice
  void release_all() {
    for (const Mapping& m : kept_) munmap(m.start, m.capacity);
    kept_.clear();
  }
  std::mutex mutex_;
  std::vector<Mapping> kept_;
};

FreedMappings& freed_mappings() {
  static FreedMappings* const kept = new FreedMappings;  // never destroyed: used until exit
  return *kept;
}
}  // namespace

AlignedBytes::~AlignedBytes() {
  if (ptr_) freed_mappings().give(ptr_, capacity_);
}

AlignedBytes::AlignedBytes(AlignedBytes&& o) noexcept
    : ptr_(std::exchange(o.ptr_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      capacity_(std::exchange(o.capacity_, 0)) {}

AlignedBytes& AlignedBytes::operator=(AlignedBytes&& o) noexcept {
  if (this != &o) {
    if (ptr_) freed_mappings().give(ptr_, capacity_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    size_ = std::exchange(o.size_, 0);
    capacity_ = std::exchange(o.capacity_, 0);
  }
  return *this;
}

std::optional<AlignedBytes> AlignedBytes::try_allocate(std::size_t bytes) {
  AlignedBytes b;
  if (bytes == 0) return b;
  if (fault::allocation_should_fail()) return std::nullopt;
  b.ptr_ = freed_mappings().take(bytes, b.capacity_);
  if (!b.ptr_) return std::nullopt;
  b.size_ = bytes;
  return b;
}

std::optional<MessageBuffers> MessageBuffers::try_create(const BufferShape& shape,
                                                         const OffCache& oc, int pattern_rank,
                                                         int max_slots) {
  MessageBuffers mb;
  mb.shape_ = shape;
  mb.send_.stride = slot_stride(shape.send, oc);
  mb.recv_.stride = slot_stride(shape.recv, oc);
  mb.send_.slots = shape.send ? std::min(slot_count(shape.send, oc), max_slots) : 1;
  mb.recv_.slots = shape.recv ? std::min(slot_count(shape.recv, oc), max_slots) : 1;
  // Always allocate at least one stride so that kernels may pass a valid pointer for 0 bytes.
  for (Region* r : {&mb.send_, &mb.recv_}) {
    auto block = AlignedBytes::try_allocate(r->stride * static_cast<std::size_t>(r->slots));
    if (!block) return std::nullopt;
    r->block = std::make_shared<const AlignedBytes>(std::move(*block));
    r->base = r->block->data();
    r->size = r->block->size();
  }
  for (int i = 0; i < mb.send_.slots; ++i) fill_pattern(mb.send(i), shape.send, pattern_rank);
  std::memset(mb.recv_.base, 0, mb.recv_.size);
  return mb;
}

std::optional<std::vector<MessageBuffers>> MessageBuffers::try_create_contiguous(
    const BufferShape& shape, const BufferShape& spacing, const std::vector<int>& pattern_ranks) {
  // A part of at least one byte, as try_create's one stride: a valid pointer for 0 bytes.
  const std::size_t send_part = std::max({shape.send, spacing.send, std::size_t{1}});
  const std::size_t recv_part = std::max({shape.recv, spacing.recv, std::size_t{1}});
  const std::size_t parts = pattern_ranks.size();
  auto send_block = AlignedBytes::try_allocate(send_part * parts);
  auto recv_block = AlignedBytes::try_allocate(recv_part * parts);
  if (!send_block || !recv_block) return std::nullopt;
  const std::shared_ptr<const AlignedBytes> sends =
      std::make_shared<const AlignedBytes>(std::move(*send_block));
  const std::shared_ptr<const AlignedBytes> recvs =
      std::make_shared<const AlignedBytes>(std::move(*recv_block));
  std::memset(recvs->data(), 0, recvs->size());
  std::vector<MessageBuffers> cut(parts);
  for (std::size_t k = 0; k < parts; ++k) {
    MessageBuffers& mb = cut[k];
    mb.shape_ = shape;
    mb.send_ = {.block = sends,
                .base = sends->data() + k * send_part,
                .size = send_part,
                .stride = send_part};
    mb.recv_ = {.block = recvs,
                .base = recvs->data() + k * recv_part,
                .size = recv_part,
                .stride = recv_part};
    fill_pattern(mb.send_.base, shape.send, pattern_ranks[k]);
  }
  return cut;
}

void MessageBuffers::clear_recv(int iteration, std::byte value) const {
  std::memset(recv(iteration), static_cast<int>(value), shape_.recv);
}

void fill_pattern(std::byte* dst, std::size_t n, int rank, std::size_t offset) {
  std::size_t pos = 0;
  while (pos < n) {
    const std::size_t byte_index = offset + pos;
    const std::size_t element = byte_index / sizeof(float);
    const std::size_t within = byte_index % sizeof(float);
    const float v = buf_value(rank, element);
    unsigned char bytes[sizeof(float)];
    std::memcpy(bytes, &v, sizeof v);
    const std::size_t take = std::min(sizeof(float) - within, n - pos);
    std::memcpy(dst + pos, bytes + within, take);
    pos += take;
  }
}

void fill_char_sum_pattern(std::byte* dst, std::size_t n, int rank, int nprocs,
                           std::size_t offset) {
  for (std::size_t k = 0; k < n; ++k)
    dst[k] = static_cast<std::byte>(char_sum_value(rank, nprocs, offset + k));
}

std::size_t count_pattern_mismatches(const std::byte* got, std::size_t n, int rank,
                                     std::size_t offset) {
  std::size_t wrong = 0;
  std::byte expected[4096];
  for (std::size_t pos = 0; pos < n; pos += sizeof expected) {
    const std::size_t len = std::min(sizeof expected, n - pos);
    fill_pattern(expected, len, rank, offset + pos);
    for (std::size_t i = 0; i < len; ++i) wrong += got[pos + i] != expected[i];
  }
  return wrong;
}

}  // namespace mpiscope::core
