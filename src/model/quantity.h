#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace fitscale {

// A Kubernetes resource quantity, held exactly as an integer number of milli-units.
// Grammar (k8s.io/apimachinery resource.Quantity): sign? digits ('.' digits)? suffix?
// with suffix one of the binary SI (Ki Mi Gi Ti Pi Ei), decimal SI (n u m "" k M G T P E)
// or decimal exponent (e3, E-2). Values finer than a milli-unit are rounded up, as Kubernetes
// does for requests. Overflow and malformed text throw InputError.
class Quantity {
 public:
  static Quantity parse(std::string_view text);  // throws InputError("bad quantity \"...\": why")
  static Quantity from_milli(std::int64_t m) { return Quantity(m); }
  static Quantity from_units(std::int64_t u) { return Quantity(u * 1000); }

  std::int64_t milli() const { return milli_; }
  // Whole units, rounded up (memory in bytes, GPUs, pods).
  std::int64_t units_ceil() const { return milli_ >= 0 ? (milli_ + 999) / 1000 : milli_ / 1000; }

  bool operator==(const Quantity&) const = default;

 private:
  explicit Quantity(std::int64_t m) : milli_(m) {}
  std::int64_t milli_ = 0;
};

// "1.5Gi" style rendering of bytes for messages (GiB with up to one decimal).
std::string format_bytes_gib(std::int64_t bytes);

}  // namespace fitscale
