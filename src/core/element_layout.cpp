#include "core/element_layout.hpp"

#include <algorithm>
#include <string>

namespace mpiscope::core {
namespace {
// IMB's contig_sum: adds every extent/size-th T of the type's extent, count times, so that a
// resized element's gap is left alone.
template <typename T>
void spaced_sum(void* in, void* inout, int* count, MPI_Datatype* type) {
  MPI_Aint lb = 0, extent = 0;
  int size = 0;
  MPI_Type_get_extent(*type, &lb, &extent);
  MPI_Type_size(*type, &size);
  const auto step = static_cast<std::size_t>(extent / size);
  const auto n = static_cast<std::size_t>(extent) / sizeof(T) * static_cast<std::size_t>(*count);
  for (std::size_t k = 0; k < n; k += step) static_cast<T*>(inout)[k] += static_cast<T*>(in)[k];
}

MPI_Op spaced_sum_of(Datatype element) {
  MPI_User_function* f = nullptr;
  switch (element) {
    case Datatype::CharSum:
      f = &spaced_sum<char>;
      break;
    case Datatype::IntSum:
      f = &spaced_sum<int>;
      break;
    case Datatype::FloatSum:
      f = &spaced_sum<float>;
      break;
    case Datatype::DoubleSum:
      f = &spaced_sum<double>;
      break;
    default:
      return MPI_SUM;
  }
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(f, 1, &op);
  return op;
}

void named(MPI_Datatype t, const std::string& name) {
  MPI_Type_set_name(t, name.c_str());  // what a trace (tests/pmpi) prints
}
}  // namespace

const char* layout_kind_name(LayoutKind k) {
  switch (k) {
    case LayoutKind::BaseVector:
      return "base_vec";
    case LayoutKind::Resized:
      return "resize";
    case LayoutKind::ResizedVector:
      return "resize_vec";
    case LayoutKind::Contiguous:
      return "cont";
    case LayoutKind::Vector:
      return "vect";
    case LayoutKind::Indexed:
      return "indx";
    default:
      return "base";
  }
}

std::optional<LayoutKind> find_imb_layout(std::string_view name) {
  for (auto k :
       {LayoutKind::Base, LayoutKind::BaseVector, LayoutKind::Resized, LayoutKind::ResizedVector})
    if (name == layout_kind_name(k)) return k;
  return std::nullopt;
}

namespace {
// A vector's blocks at a message of `elements`: OSU's count / stride.
std::size_t vector_blocks(const ElementLayout& l, std::size_t elements) {
  return elements / static_cast<std::size_t>(std::max(l.stride, 1));
}
}  // namespace

std::size_t span_bytes(const ElementLayout& l, std::size_t bytes, std::size_t element_bytes) {
  std::size_t elements = 0;  // the furthest element the type reaches
  if (l.kind == LayoutKind::Indexed) {
    for (const auto& b : l.blocks)
      elements = std::max(elements, static_cast<std::size_t>(b.displacement + b.length));
  } else if (l.kind == LayoutKind::Vector) {
    if (const std::size_t n = vector_blocks(l, bytes / element_bytes); n > 0)
      elements =
          (n - 1) * static_cast<std::size_t>(l.stride) + static_cast<std::size_t>(l.block_length);
  }
  return std::max(bytes, elements * element_bytes);
}

std::size_t transmitted_bytes(const ElementLayout& l, std::size_t bytes,
                              std::size_t element_bytes) {
  const std::size_t elements = bytes / element_bytes;
  switch (l.kind) {
    case LayoutKind::Vector:
      return vector_blocks(l, elements) * static_cast<std::size_t>(l.block_length) * element_bytes;
    case LayoutKind::Indexed: {
      std::size_t moved = 0;
      for (const auto& b : l.blocks) moved += static_cast<std::size_t>(b.length);
      return moved * element_bytes;
    }
    default:
      return elements * element_bytes;
  }
}

DerivedTypes::DerivedTypes(const ElementLayout& layout, Datatype element, std::size_t bytes) {
  const MPI_Datatype base = mpi_datatype(element);
  const std::size_t s = element_bytes(element);
  const std::string base_name = mpi_type_name(element);
  const int elements = static_cast<int>(bytes / s);
  if (layout.counts_transmitted()) {  // OSU's -D: one of the type per message
    if (layout.kind == LayoutKind::Contiguous) {
      MPI_Type_contiguous(elements, base, &osu_);
      named(osu_, "contiguous " + std::to_string(elements) + " " + base_name);
    } else if (layout.kind == LayoutKind::Vector) {
      const int blocks =
          static_cast<int>(vector_blocks(layout, static_cast<std::size_t>(elements)));
      MPI_Type_vector(blocks, layout.block_length, layout.stride, base, &osu_);
      named(osu_, "vector of " + std::to_string(blocks) + " blocks of " +
                      std::to_string(layout.block_length) + " " + base_name + " stride " +
                      std::to_string(layout.stride));
    } else {
      std::vector<int> lengths, displacements;
      for (const auto& b : layout.blocks) {
        lengths.push_back(b.length);
        displacements.push_back(b.displacement);
      }
      MPI_Type_indexed(static_cast<int>(lengths.size()), lengths.data(), displacements.data(), base,
                       &osu_);
      named(osu_, "indexed " + std::to_string(lengths.size()) + " blocks of " + base_name);
    }
    MPI_Type_commit(&osu_);
    outer_ = osu_;
    count_ = 1;
    int size = 0;
    MPI_Type_size(outer_, &size);
    type_size_ = static_cast<std::size_t>(size);
    return;  // no reduction takes it: op_ stays MPI_SUM
  }
  const bool resized = buffer_scale(layout) > 1;
  outer_ = base;
  if (resized) {  // IMB: lower bound one element, extent two
    MPI_Type_create_resized(base, static_cast<MPI_Aint>(s), static_cast<MPI_Aint>(2 * s),
                            &resized_);
    MPI_Type_commit(&resized_);
    named(resized_, base_name + " resized to extent " + std::to_string(2 * s));
    outer_ = resized_;
    spacing_ = 2 * s;
  }
  count_ = elements;
  // The vectors: made at a length of at least one element (IMB: the base type at length 0).
  if ((layout.kind == LayoutKind::BaseVector || layout.kind == LayoutKind::ResizedVector) &&
      elements > 0) {
    MPI_Type_vector(elements, 1, 1, outer_, &vector_);
    MPI_Type_commit(&vector_);
    named(vector_, "vector of " + std::to_string(elements) + " " +
                       (resized ? base_name + " resized" : base_name));
    outer_ = vector_;
    count_ = 1;
  }
  int size = 0;
  MPI_Type_size(outer_, &size);
  type_size_ = static_cast<std::size_t>(size);
  op_ = spaced_sum_of(element);
}

DerivedTypes::~DerivedTypes() {
  if (op_ != MPI_SUM) MPI_Op_free(&op_);
  if (osu_ != MPI_DATATYPE_NULL) MPI_Type_free(&osu_);
  if (vector_ != MPI_DATATYPE_NULL) MPI_Type_free(&vector_);
  if (resized_ != MPI_DATATYPE_NULL) MPI_Type_free(&resized_);
}

}  // namespace mpiscope::core
