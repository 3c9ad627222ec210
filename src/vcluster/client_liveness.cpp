#include "vcluster/client_liveness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <filesystem>
#include <system_error>

namespace fitscale::vcluster {
namespace {

int port_of(const sockaddr_storage& a) {
  if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(a).sin_port);
  if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(a).sin6_port);
  return -1;
}

std::string host_of(const sockaddr_storage& a) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(a).sin_addr, buf, sizeof buf);
  } else if (a.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(a).sin6_addr, buf, sizeof buf);
  }
  return buf;
}

}  // namespace

ClientLiveness::ClientLiveness(const std::string& remote_addr, int remote_port, int local_port) {
  if (remote_port <= 0) return;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    int fd = -1;
    try {
      fd = std::stoi(entry.path().filename().string());
    } catch (const std::exception&) {
      continue;
    }
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) continue;
    if (port_of(peer) != remote_port || host_of(peer) != remote_addr) continue;
    sockaddr_storage self{};
    len = sizeof self;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&self), &len) != 0) continue;
    if (local_port > 0 && port_of(self) != local_port) continue;
    fd_ = fd;
    return;
  }
}

bool ClientLiveness::alive() const {
  if (fd_ < 0) return true;
  pollfd p{fd_, static_cast<short>(POLLIN | POLLRDHUP), 0};
  if (poll(&p, 1, 0) <= 0) return true;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return false;
  if (p.revents & POLLIN) {
    // A watch client sends nothing more on its connection: readable means EOF unless bytes wait.
    char c;
    return recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT) != 0;
  }
  return true;
}

}  // namespace fitscale::vcluster
