#pragma once
// Reading a whole input file the user named. Every command reads its catalog, trace, cluster
// dump, kubeconfig or certificate this way, so a missing or unreadable file always reads the same:
// "PATH (WHAT): cannot read: No such file or directory".
#include <string>
#include <string_view>

namespace fitscale {

// The file's bytes. `what` says what the file was for ("trace", "--tls-cert-file",
// "kubeconfig"; empty when the caller names the place itself); an InputError names it, the path
// and the system's reason.
std::string read_file_text(const std::string& path, std::string_view what);

}  // namespace fitscale
