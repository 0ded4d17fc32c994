// How a message's elements lie in the buffers and which datatype its calls name.
// Current IMB-MPI1's -contig_type: base: the element itself, packed; base_vec: one MPI_Type_vector
// of the message's elements (count 1); resize: the element resized to twice its extent (lower
// bound one element), so that element k lies at 2k elements and the buffers are twice the
// message; resize_vec: a vector of those. Under any of these but base the reductions sum with
// IMB's own operation (every extent/size-th element of the type), not MPI_SUM.
// OSU 7.4's -D: the message of X bytes is one derived datatype over the buffer (count 1):
// cont: MPI_Type_contiguous of its elements; vect:S:B: MPI_Type_vector of X / S blocks of B
// elements, S apart, so that fewer bytes move than X; indx:FILE: MPI_Type_indexed of the file's
// (displacement, block length) lines, in elements. What the type moves is the row's
// transmit_size, and bandwidths count it, as OSU's.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "core/benchmark.hpp"

namespace mpiscope::core {

enum class LayoutKind { Base, BaseVector, Resized, ResizedVector, Contiguous, Vector, Indexed };
const char* layout_kind_name(
    LayoutKind k);  // "base", "base_vec", "resize", "resize_vec", "cont", …
std::optional<LayoutKind> find_imb_layout(std::string_view name);  // -contig_type's four words

struct IndexedBlock {
  int displacement = 0, length = 0;  // in elements
};

struct ElementLayout {
  LayoutKind kind = LayoutKind::Base;
  int stride = 8, block_length = 4;  // Vector (OSU's defaults, OMB_DDT_STRIDE/BLOCK_LENGTH)
  std::vector<IndexedBlock> blocks;  // Indexed
  bool packed() const { return kind == LayoutKind::Base; }
  // OSU's -D: the bytes the type moves count for the bandwidth and the Transmit Size column.
  bool counts_transmitted() const {
    return kind == LayoutKind::Contiguous || kind == LayoutKind::Vector ||
           kind == LayoutKind::Indexed;
  }
};

// Buffer bytes per message byte: 2 for the resized layouts.
inline std::size_t buffer_scale(const ElementLayout& l) {
  return l.kind == LayoutKind::Resized || l.kind == LayoutKind::ResizedVector ? 2 : 1;
}
// The bytes a message of `bytes` spans in its buffer: more than `bytes` only for an indexed type
// whose blocks reach further (OSU's buffers are its largest size's; mpiscope's the point's).
std::size_t span_bytes(const ElementLayout& l, std::size_t bytes, std::size_t element_bytes);
// The bytes a message of `bytes` moves (MPI_Type_size of what its calls name): OSU's transmit
// size.
std::size_t transmitted_bytes(const ElementLayout& l, std::size_t bytes, std::size_t element_bytes);

// The datatype (and a reduction's operation) one point's calls name under a layout other than
// base, made for the point and freed with it.
class DerivedTypes {
 public:
  DerivedTypes(const ElementLayout& layout, Datatype element, std::size_t bytes);
  ~DerivedTypes();
  DerivedTypes(const DerivedTypes&) = delete;
  DerivedTypes& operator=(const DerivedTypes&) = delete;
  MPI_Datatype datatype() const { return outer_; }
  int count() const { return count_; }
  std::size_t type_size() const { return type_size_; }
  MPI_Op op() const { return op_; }  // MPI_SUM where the element is not a sum
  // Bytes from one of a message's elements to the next in the buffers (0: packed).
  std::size_t spacing() const { return spacing_; }

 private:
  MPI_Datatype resized_ = MPI_DATATYPE_NULL, vector_ = MPI_DATATYPE_NULL;
  MPI_Datatype osu_ = MPI_DATATYPE_NULL;  // -D's type
  MPI_Datatype outer_ = MPI_DATATYPE_NULL;
  int count_ = 0;
  std::size_t type_size_ = 1, spacing_ = 0;
  MPI_Op op_ = MPI_SUM;
};

}  // namespace mpiscope::core
