// Current IMB-MPI1's -contig_type: how a message's elements lie in the buffers and which datatype
// its calls name. base: the element itself, packed; base_vec: one MPI_Type_vector of the message's
// elements (count 1); resize: the element resized to twice its extent (lower bound one element),
// so that element k lies at 2k elements and the buffers are twice the message; resize_vec: a
// vector of those. Under any but base the reductions sum with IMB's own operation (every
// extent/size-th element of the type), not MPI_SUM.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <string_view>

#include "core/benchmark.hpp"

namespace mpiscope::core {

enum class ElementLayout { Base, BaseVector, Resized, ResizedVector };
const char* element_layout_name(ElementLayout l);  // "base", "base_vec", "resize", "resize_vec"
std::optional<ElementLayout> find_element_layout(std::string_view name);
// Buffer bytes per message byte: 2 for the resized layouts.
inline std::size_t buffer_scale(ElementLayout l) {
  return l == ElementLayout::Resized || l == ElementLayout::ResizedVector ? 2 : 1;
}

// The datatype (and a reduction's operation) one point's calls name under a layout other than
// base, made for the point and freed with it.
class DerivedTypes {
 public:
  DerivedTypes(ElementLayout layout, Datatype element, std::size_t bytes);
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
  MPI_Datatype outer_ = MPI_DATATYPE_NULL;
  int count_ = 0;
  std::size_t type_size_ = 1, spacing_ = 0;
  MPI_Op op_ = MPI_SUM;
};

}  // namespace mpiscope::core
