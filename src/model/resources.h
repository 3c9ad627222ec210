#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fitscale {

inline constexpr std::string_view kResourceCpu = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourcePods = "pods";
inline constexpr std::string_view kResourceGpu = "nvidia.com/gpu";
inline constexpr std::string_view kResourceEphemeral = "ephemeral-storage";

// A resource vector. The common resources are fixed fields (the planner's hot path); any other
// extended resource lives in `extended`, sorted by name. Units: CPU in milli-cores, memory and
// ephemeral storage in bytes, everything else in whole units.
//
// A resource an offering does not list is zero there, so a pod requesting it does not fit:
// unknown resources are never counted as free (DESIGN.md, model rules).
struct Resources {
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t pods = 0;
  std::int64_t gpus = 0;
  std::int64_t ephemeral_bytes = 0;
  std::vector<std::pair<std::string, std::int64_t>> extended;  // sorted by name, no zeros

  // Sets a resource by its Kubernetes name from an already-parsed quantity in milli-units.
  void set(std::string_view name, std::int64_t milli);
  std::int64_t get(std::string_view name) const;  // in the units above

  Resources& operator+=(const Resources& o);
  Resources& operator-=(const Resources& o);
  friend Resources operator+(Resources a, const Resources& b) { return a += b; }
  friend Resources operator-(Resources a, const Resources& b) { return a -= b; }
  bool operator==(const Resources&) const = default;

  // Every component of *this is <= the same component of `avail`.
  // Ephemeral storage is only compared when `avail` has a non-zero amount.
  bool fits_in(const Resources& avail) const;
  // Component-wise max (for init containers).
  static Resources max(const Resources& a, const Resources& b);
  Resources scaled(std::int64_t n) const;
  bool is_zero() const;

  // Name of the first resource that does not fit, for reasons; empty when it fits.
  std::string first_shortfall(const Resources& avail) const;
  // "cpu 3500m, memory 12.0 GiB, nvidia.com/gpu 1" for messages.
  std::string to_string() const;
};

}  // namespace fitscale
