#pragma once
// The virtual cluster on HTTP or HTTPS (cpp-httplib): Kubernetes API paths go to RestApi and
// stream_watch, discovery to discovery.h, /fitscale.io/sim-cloud/ to the cloud bridge.
// Each connection (a watch included) runs on its own thread, up to worker_threads at once.
#include <httplib.h>

#include <functional>
#include <memory>
#include <string>

#include "vcluster/cloud_bridge.h"
#include "vcluster/object_store.h"
#include "vcluster/rest_api.h"
#include "vcluster/tls_context.h"

namespace fitscale::vcluster {

struct HttpServerOptions {
  // Bearer token from the kubeconfig. A request that presents another token gets 401. Without a
  // client CA, one with no Authorization header is let in, so curl and tests need no
  // credentials; with tls.client_ca_file set, a request needs this token or a client
  // certificate signed by that CA, and gets 401 with neither.
  std::string token;
  // HTTPS when tls.enabled() (files or in-memory PEM); otherwise plain HTTP.
  TlsFiles tls;
  // Connections served at once (each on its own thread); more wait for one to close.
  std::size_t worker_threads = 1024;
  std::function<void(const std::string&)> log;  // one line per request; empty = quiet
};

class ApiHttpServer {
 public:
  ApiHttpServer(ObjectStore& store, RestApi& api, CloudBridge& bridge, HttpServerOptions options);
  // Binds `host:port` (port 0 = any free port) and returns the port. Throws std::runtime_error.
  int bind(const std::string& host, int port);
  void serve();  // blocks until stop()
  void stop();
  // For extra endpoints (/metrics, /healthz from obs) mounted before serve().
  httplib::Server& http() { return *server_; }
  bool tls() const { return options_.tls.enabled(); }

 private:
  void dispatch(const httplib::Request& req, httplib::Response& res);
  void sim_cloud(const std::string& verb, const httplib::Request& req, httplib::Response& res);
  bool discovery(const std::string& path, httplib::Response& res);
  bool authorized(const httplib::Request& req) const;

  ObjectStore& store_;
  RestApi& api_;
  CloudBridge& bridge_;
  HttpServerOptions options_;
  std::unique_ptr<httplib::Server> server_;  // an httplib::SSLServer with TLS
  std::string address_;                      // host:port, for /api's serverAddressByClientCIDRs
};

}  // namespace fitscale::vcluster
