#include "vcluster/protobuf_body.h"

#include <cstdint>
#include <functional>
#include <string>

#include "vcluster/api_error.h"
#include "vcluster/protobuf_schema.h"

namespace fitscale::vcluster {
namespace {

ApiError malformed() { return bad_request("the protobuf request body is malformed"); }

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
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
  void skip(int wire_type) {
    switch (wire_type) {
      case 0:
        varint();
        break;
      case 1:
        advance(8);
        break;
      case 2:
        bytes();
        break;
      case 5:
        advance(4);
        break;
      default:
        throw malformed();
    }
  }
  // Calls fn(field, wire_type) for each field; fn consumes length-delimited values it wants.
  void fields(const std::function<bool(std::uint64_t, Reader&)>& fn) {
    while (!done()) {
      const std::uint64_t key = varint();
      const int wire = static_cast<int>(key & 7);
      if (wire == 2 && fn(key >> 3, *this)) continue;
      skip(wire);
    }
  }

 private:
  void advance(std::size_t n) {
    if (n > data_.size() - pos_) throw malformed();
    pos_ += n;
  }
  std::string_view data_;
  std::size_t pos_ = 0;
};

}  // namespace

nlohmann::json decode_protobuf_body(std::string_view body) {
  constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, 4) != kMagic) throw malformed();
  std::string api_version, kind;
  std::string_view raw;
  Reader(body.substr(4)).fields([&](std::uint64_t f, Reader& r) {
    if (f == 1) {
      Reader(r.bytes()).fields([&](std::uint64_t tf, Reader& tr) {
        if (tf == 1)
          api_version = tr.bytes();
        else if (tf == 2)
          kind = tr.bytes();
        else
          return false;
        return true;
      });
      return true;
    }
    if (f == 2) {
      raw = r.bytes();
      return true;
    }
    return false;
  });
  nlohmann::json obj = decode_protobuf_object(kind, raw);
  if (obj.is_null()) {
    // The answer kube-apiserver gives a body type it cannot decode.
    throw ApiError(415, "UnsupportedMediaType",
                   "the body of the request was in an unknown format - accepted media types "
                   "include: application/json, application/yaml (this virtual cluster reads "
                   "protobuf only for Namespace, ConfigMap, ServiceAccount, Deployment, Job and "
                   "PodDisruptionBudget; " +
                       kind + " was sent)");
  }
  obj["apiVersion"] = api_version;
  obj["kind"] = kind;
  return obj;
}

}  // namespace fitscale::vcluster
