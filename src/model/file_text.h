#pragma once
// Reading a whole input file the user named. Every command reads its catalog, trace, cluster
// dump, kubeconfig or certificate this way, so a missing or unreadable file always reads the same:
// "PATH (WHAT): cannot read: No such file or directory".
#include <cstddef>
#include <string>
#include <string_view>

namespace fitscale {

// Larger than any trace, catalog or cluster dump fitscale is meant to read in one piece.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{1} << 31;
// Certificates, keys and tokens: a few KiB each.
inline constexpr std::size_t kMaxCredentialFileBytes = std::size_t{1} << 20;

// The file's bytes. `what` says what the file was for ("trace", "--tls-cert-file",
// "kubeconfig"; empty when the caller names the place itself); an InputError names it, the path
// and the system's reason. A file that goes on past `max_bytes` (a device such as /dev/zero
// named by mistake) is refused rather than read until memory runs out.
std::string read_file_text(const std::string& path, std::string_view what,
                           std::size_t max_bytes = kMaxInputFileBytes);

}  // namespace fitscale
