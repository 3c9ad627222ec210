#include "model/resources.h"

#include <algorithm>
#include <cstdio>

namespace fitscale {
namespace {

// Whole units from milli-units, rounded up: a request for 0.5 GPU needs a whole one.
std::int64_t ceil_units(std::int64_t milli) {
  return milli >= 0 ? milli / 1000 + (milli % 1000 != 0 ? 1 : 0) : milli / 1000;
}

using Extended = std::vector<std::pair<std::string, std::int64_t>>;

Extended::iterator find_ext(Extended& ext, std::string_view name) {
  return std::lower_bound(ext.begin(), ext.end(), name,
                          [](const auto& e, std::string_view n) { return e.first < n; });
}

std::int64_t ext_value(const Extended& ext, std::string_view name) {
  auto it = std::lower_bound(ext.begin(), ext.end(), name,
                             [](const auto& e, std::string_view n) { return e.first < n; });
  return it != ext.end() && it->first == name ? it->second : 0;
}

void add_ext(Extended& ext, std::string_view name, std::int64_t delta) {
  auto it = find_ext(ext, name);
  if (it != ext.end() && it->first == name) {
    it->second += delta;
    if (it->second == 0) ext.erase(it);
  } else if (delta != 0) {
    ext.insert(it, {std::string(name), delta});
  }
}

// Merges two sorted extended lists with `op` on matching names.
template <class Op>
void merge_ext(Extended& a, const Extended& b, Op op) {
  if (b.empty()) return;
  for (const auto& [name, v] : b) add_ext(a, name, op(v));
}

}  // namespace

void Resources::set(std::string_view name, std::int64_t milli) {
  if (name == kResourceCpu) {
    cpu_milli = milli;
  } else if (name == kResourceMemory) {
    memory_bytes = ceil_units(milli);
  } else if (name == kResourcePods) {
    pods = ceil_units(milli);
  } else if (name == kResourceGpu) {
    gpus = ceil_units(milli);
  } else if (name == kResourceEphemeral) {
    ephemeral_bytes = ceil_units(milli);
  } else {
    auto it = find_ext(extended, name);
    const std::int64_t v = ceil_units(milli);
    if (it != extended.end() && it->first == name) {
      if (v == 0) {
        extended.erase(it);
      } else {
        it->second = v;
      }
    } else if (v != 0) {
      extended.insert(it, {std::string(name), v});
    }
  }
}

std::int64_t Resources::get(std::string_view name) const {
  if (name == kResourceCpu) return cpu_milli;
  if (name == kResourceMemory) return memory_bytes;
  if (name == kResourcePods) return pods;
  if (name == kResourceGpu) return gpus;
  if (name == kResourceEphemeral) return ephemeral_bytes;
  return ext_value(extended, name);
}

Resources& Resources::operator+=(const Resources& o) {
  cpu_milli += o.cpu_milli;
  memory_bytes += o.memory_bytes;
  pods += o.pods;
  gpus += o.gpus;
  ephemeral_bytes += o.ephemeral_bytes;
  merge_ext(extended, o.extended, [](std::int64_t v) { return v; });
  return *this;
}

Resources& Resources::operator-=(const Resources& o) {
  cpu_milli -= o.cpu_milli;
  memory_bytes -= o.memory_bytes;
  pods -= o.pods;
  gpus -= o.gpus;
  ephemeral_bytes -= o.ephemeral_bytes;
  merge_ext(extended, o.extended, [](std::int64_t v) { return -v; });
  return *this;
}

bool Resources::fits_in(const Resources& avail) const { return first_shortfall(avail).empty(); }

std::string Resources::first_shortfall(const Resources& avail) const {
  if (cpu_milli > avail.cpu_milli) return std::string(kResourceCpu);
  if (memory_bytes > avail.memory_bytes) return std::string(kResourceMemory);
  if (pods > avail.pods) return std::string(kResourcePods);
  if (gpus > avail.gpus) return std::string(kResourceGpu);
  // Many node shapes do not report ephemeral storage; only a reported amount can refuse a pod.
  if (avail.ephemeral_bytes > 0 && ephemeral_bytes > avail.ephemeral_bytes) {
    return std::string(kResourceEphemeral);
  }
  // An extended resource the node does not list is zero there, never free.
  for (const auto& [name, v] : extended) {
    if (v > ext_value(avail.extended, name)) return name;
  }
  return {};
}

Resources Resources::max(const Resources& a, const Resources& b) {
  Resources r;
  r.cpu_milli = std::max(a.cpu_milli, b.cpu_milli);
  r.memory_bytes = std::max(a.memory_bytes, b.memory_bytes);
  r.pods = std::max(a.pods, b.pods);
  r.gpus = std::max(a.gpus, b.gpus);
  r.ephemeral_bytes = std::max(a.ephemeral_bytes, b.ephemeral_bytes);
  r.extended = a.extended;
  for (const auto& [name, v] : b.extended) {
    auto it = find_ext(r.extended, name);
    if (it != r.extended.end() && it->first == name) {
      it->second = std::max(it->second, v);
    } else if (v > 0) {
      r.extended.insert(it, {name, v});
    }
  }
  return r;
}

Resources Resources::scaled(std::int64_t n) const {
  Resources r = *this;
  r.cpu_milli *= n;
  r.memory_bytes *= n;
  r.pods *= n;
  r.gpus *= n;
  r.ephemeral_bytes *= n;
  if (n == 0) r.extended.clear();
  for (auto& e : r.extended) e.second *= n;
  return r;
}

bool Resources::is_zero() const {
  return cpu_milli == 0 && memory_bytes == 0 && pods == 0 && gpus == 0 && ephemeral_bytes == 0 &&
         extended.empty();
}

std::string Resources::to_string() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "cpu %lldm, memory %.1f GiB", static_cast<long long>(cpu_milli),
                static_cast<double>(memory_bytes) / (1024.0 * 1024.0 * 1024.0));
  std::string s = buf;
  if (gpus != 0) s += ", " + std::string(kResourceGpu) + " " + std::to_string(gpus);
  if (ephemeral_bytes != 0) {
    std::snprintf(buf, sizeof buf, ", ephemeral-storage %.1f GiB",
                  static_cast<double>(ephemeral_bytes) / (1024.0 * 1024.0 * 1024.0));
    s += buf;
  }
  for (const auto& [name, v] : extended) s += ", " + name + " " + std::to_string(v);
  // Pod slots matter only when they are the limit, i.e. on nodes, not on single pods.
  if (pods > 1) s += ", pods " + std::to_string(pods);
  return s;
}

}  // namespace fitscale
