#pragma once
// Whether the client of a long-running response (a watch) is still connected. kube-apiserver
// notices a client that went away from the closed connection; cpp-httplib's streaming callback
// only learns it when a write fails, and a watch without bookmarks on a quiet resource may not
// write for its whole 30-minute timeout, keeping its thread. This finds the request's socket (the
// one connected to its remote address and port) and asks the kernel whether the peer has hung up.
#include <string>

namespace fitscale::vcluster {

class ClientLiveness {
 public:
  // Finds the connection's socket among this process's descriptors; if none matches, alive()
  // stays true (detection then falls back to failing writes).
  ClientLiveness(const std::string& remote_addr, int remote_port, int local_port);
  // False once the peer has closed or reset the connection. Never blocks.
  bool alive() const;

 private:
  int fd_ = -1;
};

}  // namespace fitscale::vcluster
