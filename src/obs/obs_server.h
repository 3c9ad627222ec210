#pragma once
// The operator's HTTP surface of a long-running fitscale process: /metrics (Prometheus text
// format), /metrics/opencost (the OpenCost/Kubecost-named node cost gauges), /healthz (the process
// is alive and serving) and /readyz (the readiness callback says yes: informers synced and, for the
// leader, the last loop finished recently — see Readiness).
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "obs/metrics_registry.h"

namespace httplib {
class Server;
}

namespace fitscale::obs {

// "127.0.0.1:8080", "0.0.0.0:9090", ":8080" (all interfaces), "[::1]:8080"; port 0 = a free
// port. Throws InputError naming the flag value when malformed.
struct ListenAddress {
  std::string host;
  int port = 0;
};
ListenAddress parse_listen_address(const std::string& address);

inline constexpr const char* kDefaultObsAddress = "127.0.0.1:8080";

class ObsServer {
 public:
  // `ready` is called on every /readyz request (from the server's thread: make it thread-safe).
  ObsServer(const std::string& address, MetricsRegistry& registry, std::function<bool()> ready);
  ~ObsServer();  // stops
  ObsServer(const ObsServer&) = delete;
  ObsServer& operator=(const ObsServer&) = delete;

  // Binds and serves on a background thread. Throws std::runtime_error when the address cannot
  // be bound (in use, not local).
  void start();
  void stop();
  int port() const { return port_; }  // the bound port (useful with port 0), 0 before start()
  std::string url() const;            // "http://127.0.0.1:PORT"

 private:
  ListenAddress address_;
  MetricsRegistry& registry_;
  std::function<bool()> ready_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace fitscale::obs
