#pragma once
// A loopback HTTP server for the cloud replay tests (Azure, GCP): answers every request with
// `handle` and records what it was asked, so a test serves recorded or published answers and
// checks each request. Started in the constructor, stopped and joined in the destructor.
#include <httplib.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fitscale::replay {

struct SeenRequest {
  std::string method;
  std::string path;  // with the query, parameters in httplib's (sorted) order
  std::string body;
  std::string authorization;
  std::string metadata_flavor;  // the Metadata-Flavor header (GCP's metadata server)
};

class LoopbackServer {
 public:
  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;
  LoopbackServer() {
    auto route = [this](const httplib::Request& req, httplib::Response& res) {
      std::string query;
      for (const auto& [k, v] : req.params) query += (query.empty() ? "?" : "&") + k + "=" + v;
      {
        std::lock_guard lock(mu_);
        seen_.push_back({req.method, req.path + query, req.body,
                         req.get_header_value("Authorization"),
                         req.get_header_value("Metadata-Flavor")});
      }
      handle(req, res);
    };
    server_.Get(".*", route);
    server_.Put(".*", route);
    server_.Post(".*", route);
    server_.Delete(".*", route);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LoopbackServer() {
    server_.stop();
    thread_.join();
  }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<SeenRequest> seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }
  std::vector<SeenRequest> seen(const std::string& method) {
    std::vector<SeenRequest> out;
    for (auto& s : seen()) {
      if (s.method == method) out.push_back(s);
    }
    return out;
  }
  Handler handle = [](const httplib::Request&, httplib::Response& res) { res.status = 404; };

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<SeenRequest> seen_;
};

}  // namespace fitscale::replay
