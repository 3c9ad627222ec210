#pragma once
// A minimal reader of protobuf wire format over one message's bytes: what the virtual cluster
// needs to read the Kubernetes protobuf bodies kubectl sends (protobuf_body, protobuf_schema).
// Malformed input (a truncated varint or length, an unknown wire type) is a 400 BadRequest.
#include <cstdint>
#include <functional>
#include <string_view>

#include "vcluster/api_error.h"

namespace fitscale::vcluster {

class ProtobufReader {
 public:
  explicit ProtobufReader(std::string_view data) : data_(data) {}
  bool done() const { return pos_ >= data_.size(); }
  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) throw malformed();
      const auto b = static_cast<unsigned char>(data_[pos_++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw malformed();
  }
  std::string_view bytes() {
    const std::uint64_t n = varint();
    if (n > data_.size() - pos_) throw malformed();
    auto out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  void skip(int wire) {
    if (wire == 0) {
      varint();
    } else if (wire == 2) {
      bytes();
    } else if (wire == 1 || wire == 5) {
      const std::size_t n = wire == 1 ? 8 : 4;
      if (n > data_.size() - pos_) throw malformed();
      pos_ += n;
    } else {
      throw malformed();
    }
  }
  // Calls fn(field, reader) for each length-delimited field; fn returns true when it consumed
  // the value, and every other field is skipped.
  void fields(const std::function<bool(std::uint64_t, ProtobufReader&)>& fn) {
    while (!done()) {
      const std::uint64_t key = varint();
      const int wire = static_cast<int>(key & 7);
      if (wire == 2 && fn(key >> 3, *this)) continue;
      skip(wire);
    }
  }

  static ApiError malformed() { return bad_request("the protobuf request body is malformed"); }

 private:
  std::string_view data_;
  std::size_t pos_ = 0;
};

}  // namespace fitscale::vcluster
