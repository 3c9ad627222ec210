#include "obs/obs_server.h"

#include <httplib.h>

#include <chrono>
#include <stdexcept>

#include "model/error.h"

namespace fitscale::obs {

ListenAddress parse_listen_address(const std::string& address) {
  auto bad = [&](const std::string& why) {
    return InputError("metrics address '" + address + "': " + why +
                      " (want HOST:PORT, e.g. 127.0.0.1:8080)");
  };
  auto colon = address.rfind(':');
  if (colon == std::string::npos) throw bad("no port");
  ListenAddress out;
  out.host = address.substr(0, colon);
  if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']') {
    out.host = out.host.substr(1, out.host.size() - 2);
  }
  if (out.host.empty()) out.host = "0.0.0.0";
  std::string port = address.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos) {
    throw bad("port is not a number");
  }
  out.port = std::stoi(port);
  if (out.port > 65535) throw bad("port out of range");
  return out;
}

ObsServer::ObsServer(const std::string& address, MetricsRegistry& registry,
                     std::function<bool()> ready)
    : address_(parse_listen_address(address)), registry_(registry), ready_(std::move(ready)) {}

ObsServer::~ObsServer() { stop(); }

void ObsServer::start() {
  if (server_) return;
  server_ = std::make_unique<httplib::Server>();
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(registry_.render(), std::string(MetricsRegistry::kContentType).c_str());
  });
  server_->Get("/metrics/opencost", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(registry_.render_compat(), std::string(MetricsRegistry::kContentType).c_str());
  });
  server_->Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  server_->Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    bool ok = false;
    try {
      ok = !ready_ || ready_();
    } catch (const std::exception&) {
      ok = false;
    }
    res.status = ok ? 200 : 503;
    res.set_content(ok ? "ok\n" : "not ready\n", "text/plain");
  });
  // SO_REUSEADDR (restart without waiting out TIME_WAIT) but not httplib's default SO_REUSEPORT:
  // a second process on the same port must fail loudly, not share the scrape at random.
  server_->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
  });
  int port = address_.port;
  if (port == 0) {
    port = server_->bind_to_any_port(address_.host);
    if (port <= 0) port = 0;
  } else if (!server_->bind_to_port(address_.host, port)) {
    port = 0;
  }
  if (port == 0) {
    server_.reset();
    throw std::runtime_error("cannot listen on " + address_.host + ":" +
                             std::to_string(address_.port) + " (address in use or not local)");
  }
  port_ = port;
  thread_ = std::thread([s = server_.get()] { s->listen_after_bind(); });
  // httplib's stop() does nothing until the listen loop runs, so a stop() right after start()
  // would leave the thread blocked in accept forever: wait for the loop (microseconds).
  for (int i = 0; i < 5000 && !server_->is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void ObsServer::stop() {
  if (!server_) return;
  server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

std::string ObsServer::url() const {
  std::string host = address_.host == "0.0.0.0" ? "127.0.0.1" : address_.host;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return "http://" + host + ":" + std::to_string(port_);
}

}  // namespace fitscale::obs
