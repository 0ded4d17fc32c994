#include "core/element_layout.hpp"

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

const char* element_layout_name(ElementLayout l) {
  switch (l) {
    case ElementLayout::BaseVector:
      return "base_vec";
    case ElementLayout::Resized:
      return "resize";
    case ElementLayout::ResizedVector:
      return "resize_vec";
    default:
      return "base";
  }
}

std::optional<ElementLayout> find_element_layout(std::string_view name) {
  for (auto l : {ElementLayout::Base, ElementLayout::BaseVector, ElementLayout::Resized,
                 ElementLayout::ResizedVector})
    if (name == element_layout_name(l)) return l;
  return std::nullopt;
}

DerivedTypes::DerivedTypes(ElementLayout layout, Datatype element, std::size_t bytes) {
  const MPI_Datatype base = mpi_datatype(element);
  const std::size_t s = element_bytes(element);
  const std::string base_name = mpi_type_name(element);
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
  const int elements = static_cast<int>(bytes / s);
  count_ = elements;
  // The vectors: made at a length of at least one element (IMB: the base type at length 0).
  if ((layout == ElementLayout::BaseVector || layout == ElementLayout::ResizedVector) &&
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
  if (vector_ != MPI_DATATYPE_NULL) MPI_Type_free(&vector_);
  if (resized_ != MPI_DATATYPE_NULL) MPI_Type_free(&resized_);
}

}  // namespace mpiscope::core
