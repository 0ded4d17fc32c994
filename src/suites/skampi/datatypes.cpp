#include "suites/skampi/datatypes.hpp"

#include <algorithm>
#include <map>

#include "core/mpi.hpp"

namespace mpiscope::skampi {

namespace {
struct Builtin {
  MPI_Datatype type;
  long size;  // of the C type the MPI type stands for
};
const std::map<std::string, Builtin>& builtins() {
  static const std::map<std::string, Builtin> m = {
      {"MPI_CHAR", {MPI_CHAR, sizeof(char)}},
      {"MPI_SIGNED_CHAR", {MPI_SIGNED_CHAR, sizeof(signed char)}},
      {"MPI_UNSIGNED_CHAR", {MPI_UNSIGNED_CHAR, sizeof(unsigned char)}},
      {"MPI_BYTE", {MPI_BYTE, 1}},
      {"MPI_SHORT", {MPI_SHORT, sizeof(short)}},
      {"MPI_UNSIGNED_SHORT", {MPI_UNSIGNED_SHORT, sizeof(unsigned short)}},
      {"MPI_INT", {MPI_INT, sizeof(int)}},
      {"MPI_UNSIGNED", {MPI_UNSIGNED, sizeof(unsigned)}},
      {"MPI_LONG", {MPI_LONG, sizeof(long)}},
      {"MPI_UNSIGNED_LONG", {MPI_UNSIGNED_LONG, sizeof(unsigned long)}},
      {"MPI_LONG_LONG", {MPI_LONG_LONG, sizeof(long long)}},
      {"MPI_FLOAT", {MPI_FLOAT, sizeof(float)}},
      {"MPI_DOUBLE", {MPI_DOUBLE, sizeof(double)}},
  };
  return m;
}
}  // namespace

bool is_builtin_type_name(const std::string& name) {
  return builtins().count(name) > 0;
}
MPI_Datatype builtin_type(const std::string& name) {
  return builtins().at(name).type;
}
long builtin_type_size(const std::string& name) {
  return builtins().at(name).size;
}

const std::vector<PatternInfo>& all_datatype_patterns() {
  static const std::vector<PatternInfo> p = {
      {0, "(none)", "n base elements, contiguous: count n of the base type"},
      {1, "MPI_Type_contiguous", "contiguous(n)"},
      {2, "MPI_Type_vector", "vector(n/b, b, s), tail (b = @BLOCKSIZE 1, s = @VECTORSTRIDE 2)"},
      {3, "MPI_Type_create_hvector", "hvector(n/b, b, (s+1) extents), tail (3 extents)"},
      {4, "MPI_Type_indexed", "blocks of 1, 2, 3, 1, 2, 3, ... elements, one element gap"},
      {5, "MPI_Type_create_hindexed", "blocks of 1, 2, 3, ... elements, two element gap (bytes)"},
      {6, "MPI_Type_create_indexed_block", "blocks of 2 elements every 3, tail by struct"},
      {7, "MPI_Type_create_struct", "blocks of 4 elements every 5"},
      {8, "nested", "struct(hvector(n/2, 1, 6 extents) of contiguous(2), tail)"},
      {9, "nested", "struct(indexed of vector(2, 1, 2), tail)"},
      {50, "MPI_Type_vector", "dynamic vector: pattern 2 built for each length (= 2)"},
  };
  return p;
}

bool is_datatype_pattern(int number) {
  const auto& p = all_datatype_patterns();
  return std::any_of(p.begin(), p.end(), [&](const auto& i) { return i.number == number; });
}

BaseDatatype::BaseDatatype(const BaseType& spec) {
  if (spec.is_builtin()) {
    builtin_ = true;
    type_ = builtin_type(spec.items[0].type);
    int s = 0;
    mpi::check(MPI_Type_size(type_, &s), "MPI_Type_size");
    size_ = extent_ = s;
    for (long b = 0; b < s; ++b) data_bytes_.push_back(b);
    return;
  }
  std::vector<int> lens;
  std::vector<MPI_Aint> displs;
  std::vector<MPI_Datatype> types;
  long end = 0;
  for (const auto& i : spec.items) {
    const MPI_Datatype t = builtin_type(i.type);
    int s = 0;
    mpi::check(MPI_Type_size(t, &s), "MPI_Type_size");
    lens.push_back(i.count);
    displs.push_back(i.offset);
    types.push_back(t);
    for (long b = 0; b < static_cast<long>(i.count) * s; ++b) data_bytes_.push_back(i.offset + b);
    size_ += static_cast<long>(i.count) * s;
    end = std::max(end, i.offset + static_cast<long>(i.count) * s);
  }
  std::sort(data_bytes_.begin(), data_bytes_.end());
  if (std::adjacent_find(data_bytes_.begin(), data_bytes_.end()) != data_bytes_.end())
    throw std::runtime_error("a structured base type has overlapping items: " + spec.text());
  MPI_Datatype s;
  mpi::check(MPI_Type_create_struct(static_cast<int>(lens.size()), lens.data(), displs.data(),
                                    types.data(), &s),
             "MPI_Type_create_struct");
  mpi::check(MPI_Type_create_resized(s, 0, end, &type_), "MPI_Type_create_resized");
  MPI_Type_free(&s);
  mpi::check(MPI_Type_commit(&type_), "MPI_Type_commit");
  extent_ = end;
  // MPI packs a struct in type-map order: items as listed, not sorted by offset.
  data_bytes_.clear();
  for (const auto& i : spec.items) {
    int sz = 0;
    MPI_Type_size(builtin_type(i.type), &sz);
    for (long b = 0; b < static_cast<long>(i.count) * sz; ++b) data_bytes_.push_back(i.offset + b);
  }
}

BaseDatatype::~BaseDatatype() {
  if (!builtin_ && type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
}

namespace {
// Blocks of the indexed patterns: (first element index in memory, length) for n elements.
struct Block {
  long at, len;
};
std::vector<Block> cyclic_blocks(long n, const std::vector<long>& lens, long gap) {
  std::vector<Block> b;
  long placed = 0, at = 0;
  for (std::size_t k = 0; placed < n; ++k) {
    const long len = std::min(lens[k % lens.size()], n - placed);
    b.push_back({at, len});
    placed += len;
    at += len + gap;
  }
  return b;
}
}  // namespace

namespace {
// The stride, in base elements, of the vector (2, 50) and hvector (3) patterns.
long vector_stride(int number, const DatatypeParams& p) {
  return number == 3 ? p.vectorstride + 1L : p.vectorstride;
}
}  // namespace

std::vector<long> pattern_layout(int number, long n, long x, const DatatypeParams& params) {
  std::vector<long> off;
  auto blocks = [&](const std::vector<Block>& bl) {
    for (const auto& b : bl)
      for (long j = 0; j < b.len; ++j) off.push_back((b.at + j) * x);
  };
  switch (number) {
    case 0:
    case 1:
      for (long i = 0; i < n; ++i) off.push_back(i * x);
      break;
    case 2:
    case 3:
    case 50: {
      // n / b blocks of b elements, one every `stride` elements, then the n % b left over.
      const long b = params.blocksize, stride = vector_stride(number, params);
      for (long i = 0; i < n; ++i) off.push_back(((i / b) * stride + i % b) * x);
      break;
    }
    case 4:
      blocks(cyclic_blocks(n, {1, 2, 3}, 1));
      break;
    case 5:
      blocks(cyclic_blocks(n, {1, 2, 3}, 2));
      break;
    case 6:
      blocks(cyclic_blocks(n, {2}, 1));
      break;
    case 7:
      blocks(cyclic_blocks(n, {4}, 1));
      break;
    case 8: {
      const long q = n / 2;
      for (long k = 0; k < q; ++k) {
        off.push_back(6 * k * x);
        off.push_back((6 * k + 1) * x);
      }
      if (n % 2) off.push_back((q > 0 ? 6 * (q - 1) + 2 : 0) * x);
      break;
    }
    case 9: {
      const long q = n / 2;
      for (long k = 0; k < q; ++k) {
        off.push_back(6 * k * x);
        off.push_back((6 * k + 2) * x);
      }
      if (n % 2) off.push_back((q > 0 ? 6 * (q - 1) + 3 : 0) * x);
      break;
    }
    default:
      throw std::invalid_argument("unknown datatype pattern " + std::to_string(number));
  }
  return off;
}

namespace {
MPI_Datatype commit(MPI_Datatype t) {
  mpi::check(MPI_Type_commit(&t), "MPI_Type_commit");
  return t;
}
// struct(main at 0, r base elements at tail_offset bytes); frees main.
MPI_Datatype with_tail(MPI_Datatype main, long r, long tail_offset, MPI_Datatype base) {
  if (r == 0) return main;
  int lens[2] = {1, static_cast<int>(r)};
  MPI_Aint displs[2] = {0, tail_offset};
  MPI_Datatype types[2] = {main, base};
  MPI_Datatype t;
  mpi::check(MPI_Type_create_struct(2, lens, displs, types, &t), "MPI_Type_create_struct");
  MPI_Type_free(&main);
  return t;
}
std::pair<std::vector<int>, std::vector<int>> indexed_args(const std::vector<Block>& bl) {
  std::vector<int> lens, displs;
  for (const auto& b : bl) {
    lens.push_back(static_cast<int>(b.len));
    displs.push_back(static_cast<int>(b.at));
  }
  return {lens, displs};
}
}  // namespace

MessageType::MessageType(int number, long n, const BaseDatatype& base, const DatatypeParams& params)
    : base_(base) {
  const long x = base.extent();
  const MPI_Datatype b = base.get();
  layout_ = pattern_layout(number, n, x, params);
  span_ = layout_.empty() ? 0 : *std::max_element(layout_.begin(), layout_.end()) + x;
  if (number == 0 || n == 0) {
    type_ = b;
    count_ = static_cast<int>(n);
    extent_ = x;  // of one base element: `count` of them make the message
    return;
  }
  MPI_Datatype t = MPI_DATATYPE_NULL;
  const int ni = static_cast<int>(n);
  switch (number) {
    case 1:
      mpi::check(MPI_Type_contiguous(ni, b, &t), "MPI_Type_contiguous");
      break;
    case 2:
    case 3:
    case 50: {
      const long blocksize = params.blocksize, stride = vector_stride(number, params);
      const long q = n / blocksize, r = n % blocksize;
      if (q == 0) {  // shorter than one block: the tail alone
        mpi::check(MPI_Type_contiguous(static_cast<int>(r), b, &t), "MPI_Type_contiguous");
        break;
      }
      if (number == 3)
        mpi::check(MPI_Type_create_hvector(static_cast<int>(q), static_cast<int>(blocksize),
                                           stride * x, b, &t),
                   "MPI_Type_create_hvector");
      else
        mpi::check(MPI_Type_vector(static_cast<int>(q), static_cast<int>(blocksize),
                                   static_cast<int>(stride), b, &t),
                   "MPI_Type_vector");
      t = with_tail(t, r, q * stride * x, b);
      break;
    }
    case 4: {
      auto [lens, displs] = indexed_args(cyclic_blocks(n, {1, 2, 3}, 1));
      mpi::check(MPI_Type_indexed(static_cast<int>(lens.size()), lens.data(), displs.data(), b, &t),
                 "MPI_Type_indexed");
      break;
    }
    case 5: {
      auto [lens, displs] = indexed_args(cyclic_blocks(n, {1, 2, 3}, 2));
      std::vector<MPI_Aint> bytes(displs.begin(), displs.end());
      for (auto& d : bytes) d *= x;
      mpi::check(
          MPI_Type_create_hindexed(static_cast<int>(lens.size()), lens.data(), bytes.data(), b, &t),
          "MPI_Type_create_hindexed");
      break;
    }
    case 6: {
      const long q = n / 2;
      std::vector<int> displs;
      for (long k = 0; k < q; ++k) displs.push_back(static_cast<int>(3 * k));
      mpi::check(MPI_Type_create_indexed_block(static_cast<int>(q), 2, displs.data(), b, &t),
                 "MPI_Type_create_indexed_block");
      t = with_tail(t, n % 2, 3 * q * x, b);
      break;
    }
    case 7: {
      const auto bl = cyclic_blocks(n, {4}, 1);
      std::vector<int> lens;
      std::vector<MPI_Aint> displs;
      std::vector<MPI_Datatype> types(bl.size(), b);
      for (const auto& blk : bl) {
        lens.push_back(static_cast<int>(blk.len));
        displs.push_back(blk.at * x);
      }
      mpi::check(MPI_Type_create_struct(static_cast<int>(bl.size()), lens.data(), displs.data(),
                                        types.data(), &t),
                 "MPI_Type_create_struct");
      break;
    }
    case 8: {
      const long q = n / 2;
      MPI_Datatype pair, vec;
      mpi::check(MPI_Type_contiguous(2, b, &pair), "MPI_Type_contiguous");
      mpi::check(MPI_Type_create_hvector(static_cast<int>(q), 1, 6 * x, pair, &vec),
                 "MPI_Type_create_hvector");
      MPI_Type_free(&pair);
      t = with_tail(vec, n % 2, (q > 0 ? 6 * (q - 1) + 2 : 0) * x, b);
      break;
    }
    case 9: {
      const long q = n / 2;
      MPI_Datatype inner, idx;
      mpi::check(MPI_Type_vector(2, 1, 2, b, &inner), "MPI_Type_vector");  // extent 3 elements
      std::vector<int> lens(static_cast<std::size_t>(q), 1), displs;
      for (long k = 0; k < q; ++k) displs.push_back(static_cast<int>(2 * k));  // units of 3x
      MPI_Datatype inner6;  // resize to 3 elements so that index 2k means 6k elements
      mpi::check(MPI_Type_create_resized(inner, 0, 3 * x, &inner6), "MPI_Type_create_resized");
      MPI_Type_free(&inner);
      mpi::check(MPI_Type_indexed(static_cast<int>(q), lens.data(), displs.data(), inner6, &idx),
                 "MPI_Type_indexed");
      MPI_Type_free(&inner6);
      t = with_tail(idx, n % 2, (q > 0 ? 6 * (q - 1) + 3 : 0) * x, b);
      break;
    }
    default:
      throw std::invalid_argument("unknown datatype pattern " + std::to_string(number));
  }
  type_ = commit(t);
  owned_ = true;
  MPI_Aint lb = 0, ext = 0;
  MPI_Type_get_extent(type_, &lb, &ext);
  extent_ = ext;
  span_ = std::max(span_, static_cast<long>(lb + ext));
}

MessageType::~MessageType() {
  if (owned_) MPI_Type_free(&type_);
}

std::vector<long> MessageType::data_byte_offsets() const {
  std::vector<long> o;
  o.reserve(layout_.size() * base_.data_bytes().size());
  for (long e : layout_)
    for (long b : base_.data_bytes()) o.push_back(e + b);
  return o;
}

void fill_message(unsigned char* buf, const MessageType& t, unsigned seed) {
  const auto o = t.data_byte_offsets();
  for (std::size_t k = 0; k < o.size(); ++k) buf[o[k]] = pattern_byte(k, seed);
}

long count_wrong_bytes(const unsigned char* buf, const MessageType& t, unsigned seed) {
  const auto o = t.data_byte_offsets();
  long wrong = 0;
  for (std::size_t k = 0; k < o.size(); ++k)
    if (buf[o[k]] != pattern_byte(k, seed)) ++wrong;
  return wrong;
}

}  // namespace mpiscope::skampi
