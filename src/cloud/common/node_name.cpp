#include "cloud/common/node_name.h"

#include <cstdint>

namespace fitscale::cloud {

std::string launch_node_name(const std::string& cluster_name, const std::string& client_token,
                             int index) {
  std::uint64_t h = 14695981039346656037ULL;  // FNV-1a
  for (const char c : client_token) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (int i = 0; i < 10; ++i) hex += kHex[(h >> (4 * i)) & 15];
  // Azure's Linux VM names and GCE's instance names are at most 63-64 characters: the cluster
  // name is cut to leave room.
  return cluster_name.substr(0, 40) + "-" + hex + "-" + std::to_string(index);
}

}  // namespace fitscale::cloud
