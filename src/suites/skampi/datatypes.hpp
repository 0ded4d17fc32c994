// User-defined datatypes (paper section 3.2): base types (a built-in MPI type or a simple
// structure of (count, offset, type) triples) and type patterns over a base type, one per MPI
// type constructor plus nested ones. Every pattern describes exactly n base elements, so send
// and receive patterns can be chosen independently. Each pattern has a plain C++ layout (the
// byte offset of every base element) besides its MPI construction, to check what arrives.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "suites/skampi/config.hpp"

namespace mpiscope::skampi {

bool is_builtin_type_name(const std::string& name);
MPI_Datatype builtin_type(const std::string& name);
// Bytes of one element of a built-in type (its C type's size), without calling MPI, so that the
// configuration can be checked before MPI types exist.
long builtin_type_size(const std::string& name);

bool is_datatype_pattern(int number);
struct PatternInfo {
  int number;
  const char* constructor;
  const char* description;
};
const std::vector<PatternInfo>& all_datatype_patterns();

// A committed base type. size: bytes of data per element; extent: bytes per element in memory.
class BaseDatatype {
 public:
  explicit BaseDatatype(const BaseType& spec);
  ~BaseDatatype();
  BaseDatatype(const BaseDatatype&) = delete;
  BaseDatatype& operator=(const BaseDatatype&) = delete;
  MPI_Datatype get() const { return type_; }
  long size() const { return size_; }
  long extent() const { return extent_; }
  // Byte offsets (within one element) of the element's data bytes.
  const std::vector<long>& data_bytes() const { return data_bytes_; }
  bool builtin() const { return builtin_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  bool builtin_ = false;
  long size_ = 0, extent_ = 0;
  std::vector<long> data_bytes_;
};

// Byte offsets of the n base elements of pattern `number` (base extent x), in type-map order.
std::vector<long> pattern_layout(int number, long n, long x, const DatatypeParams& params);

// `count` instances of `type` hold the message: the MPI datatype of one pattern for n elements.
class MessageType {
 public:
  MessageType(int number, long n, const BaseDatatype& base, const DatatypeParams& params);
  ~MessageType();
  MessageType(const MessageType&) = delete;
  MessageType& operator=(const MessageType&) = delete;
  MPI_Datatype type() const { return type_; }
  int count() const { return count_; }
  long span() const { return span_; }  // bytes of buffer one message occupies (≥ its extent)
  long extent() const { return extent_; }
  // Offsets of every data byte, in the order MPI packs them.
  std::vector<long> data_byte_offsets() const;

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  bool owned_ = false;
  int count_ = 1;
  long span_ = 0, extent_ = 0;
  std::vector<long> layout_;
  const BaseDatatype& base_;
};

// The check of what datatypes send and receive: the k-th data byte of a message carries
// pattern_byte(k, seed).
inline unsigned char pattern_byte(std::size_t k, unsigned seed) {
  return static_cast<unsigned char>((k * 131u + seed * 7u + 1u) & 0xffu);
}
void fill_message(unsigned char* buf, const MessageType& t, unsigned seed);
// Number of data bytes that differ from what fill_message wrote on the sender.
long count_wrong_bytes(const unsigned char* buf, const MessageType& t, unsigned seed);

}  // namespace mpiscope::skampi
