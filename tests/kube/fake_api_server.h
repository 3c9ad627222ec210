#pragma once
// A tiny Kubernetes API server for the client's tests (cpp-httplib on 127.0.0.1, free port):
// list with limit/continue, watch streams with history, 410 Gone for expired resourceVersions,
// leases with resourceVersion preconditions, node patches, evictions, events. Tests steer it
// (close every watch, expire history, answer evictions with 429) and read what it received.
#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace fitscale::testing {

using nlohmann::json;

struct Received {
  std::string method;
  std::string path;
  std::string body;
  std::string content_type;
  std::string authorization;
};

class FakeApiServer {
 public:
  FakeApiServer() {
    server_.Get(
        R"((/api/v1|/apis/policy/v1)/(pods|nodes|poddisruptionbudgets))",
        [this](const httplib::Request& req, httplib::Response& res) { list_or_watch(req, res); });
    server_.Get(R"(/api/v1/nodes/([^/]+))",
                [this](const httplib::Request& req, httplib::Response& res) {
                  record(req);
                  std::lock_guard lock(mu_);
                  auto& nodes = objects_["nodes"];
                  auto it = nodes.find(req.matches[1]);
                  if (it == nodes.end()) return status(res, 404, "node not found");
                  res.set_content(it->second.dump(), "application/json");
                });
    server_.Patch(
        R"(/api/v1/nodes/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
          record(req);
          std::unique_lock lock(mu_);
          auto& nodes = objects_["nodes"];
          auto it = nodes.find(req.matches[1]);
          if (it == nodes.end()) return status(res, 404, "node not found");
          json patch = json::parse(req.body);
          if (patch.contains("metadata") && patch["metadata"].contains("resourceVersion") &&
              patch["metadata"]["resourceVersion"] != it->second["metadata"]["resourceVersion"]) {
            return status(res, 409, "conflict");
          }
          json obj = it->second;
          obj.merge_patch(patch);
          lock.unlock();
          res.set_content(put("nodes", obj).dump(), "application/json");
        });
    server_.Delete(R"(/api/v1/nodes/([^/]+))",
                   [this](const httplib::Request& req, httplib::Response& res) {
                     record(req);
                     if (!remove("nodes", req.matches[1]))
                       return status(res, 404, "node not found");
                     res.set_content("{}", "application/json");
                   });
    server_.Post(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+)/eviction)",
                 [this](const httplib::Request& req, httplib::Response& res) {
                   record(req);
                   if (eviction_status_ != 201)
                     return status(
                         res, eviction_status_,
                         "Cannot evict pod as it would violate the pod's disruption budget.");
                   remove("pods", std::string(req.matches[1]) + "/" + std::string(req.matches[2]));
                   res.status = 201;
                   res.set_content("{}", "application/json");
                 });
    server_.Post(R"(/api/v1/namespaces/([^/]+)/events)", [this](const httplib::Request& req,
                                                                httplib::Response& res) {
      record(req);
      json ev = json::parse(req.body);
      std::lock_guard lock(mu_);
      events_[std::string(req.matches[1]) + "/" + ev["metadata"]["name"].get<std::string>()] = ev;
      res.status = 201;
      res.set_content(ev.dump(), "application/json");
    });
    server_.Patch(
        R"(/api/v1/namespaces/([^/]+)/events/([^/]+))",
        [this](const httplib::Request& req, httplib::Response& res) {
          record(req);
          std::lock_guard lock(mu_);
          auto it = events_.find(std::string(req.matches[1]) + "/" + std::string(req.matches[2]));
          if (it == events_.end()) return status(res, 404, "event not found");
          it->second.merge_patch(json::parse(req.body));
          res.set_content(it->second.dump(), "application/json");
        });
    server_.Get(R"(/apis/coordination.k8s.io/v1/namespaces/([^/]+)/leases/([^/]+))",
                [this](const httplib::Request& req, httplib::Response& res) {
                  record(req);
                  std::lock_guard lock(mu_);
                  auto it =
                      leases_.find(std::string(req.matches[1]) + "/" + std::string(req.matches[2]));
                  if (it == leases_.end()) return status(res, 404, "lease not found");
                  res.set_content(it->second.dump(), "application/json");
                });
    server_.Post(R"(/apis/coordination.k8s.io/v1/namespaces/([^/]+)/leases)",
                 [this](const httplib::Request& req, httplib::Response& res) {
                   record(req);
                   json lease = json::parse(req.body);
                   std::lock_guard lock(mu_);
                   std::string key = std::string(req.matches[1]) + "/" +
                                     lease["metadata"]["name"].get<std::string>();
                   if (leases_.count(key)) return status(res, 409, "already exists");
                   lease["metadata"]["resourceVersion"] = std::to_string(++rv_);
                   leases_[key] = lease;
                   res.status = 201;
                   res.set_content(lease.dump(), "application/json");
                 });
    server_.Put(R"(/apis/coordination.k8s.io/v1/namespaces/([^/]+)/leases/([^/]+))",
                [this](const httplib::Request& req, httplib::Response& res) {
                  record(req);
                  json lease = json::parse(req.body);
                  std::lock_guard lock(mu_);
                  auto it =
                      leases_.find(std::string(req.matches[1]) + "/" + std::string(req.matches[2]));
                  if (it == leases_.end()) return status(res, 404, "lease not found");
                  if (lease["metadata"].value("resourceVersion", "") !=
                      it->second["metadata"]["resourceVersion"]) {
                    return status(res, 409, "the object has been modified");
                  }
                  lease["metadata"]["resourceVersion"] = std::to_string(++rv_);
                  it->second = lease;
                  res.set_content(lease.dump(), "application/json");
                });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  ~FakeApiServer() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    server_.stop();
    thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Adds or replaces an object; returns it with its new resourceVersion.
  json put(const std::string& collection, json obj) {
    std::lock_guard lock(mu_);
    std::string key = key_of(obj);
    obj["metadata"]["resourceVersion"] = std::to_string(++rv_);
    auto& objs = objects_[collection];
    const char* type = objs.count(key) ? "MODIFIED" : "ADDED";
    objs[key] = obj;
    history_.push_back({rv_, collection, json{{"type", type}, {"object", obj}}.dump()});
    cv_.notify_all();
    return obj;
  }
  bool remove(const std::string& collection, const std::string& key) {
    std::lock_guard lock(mu_);
    auto& objs = objects_[collection];
    auto it = objs.find(key);
    if (it == objs.end()) return false;
    json obj = it->second;
    objs.erase(it);
    obj["metadata"]["resourceVersion"] = std::to_string(++rv_);
    history_.push_back({rv_, collection, json{{"type", "DELETED"}, {"object", obj}}.dump()});
    cv_.notify_all();
    return true;
  }
  // Raw line sent on the next watches of `collection` (a malformed event, a bookmark).
  void push_raw(const std::string& collection, const std::string& line) {
    std::lock_guard lock(mu_);
    history_.push_back({++rv_, collection, line});
    cv_.notify_all();
  }
  // The server ends every open watch (as an API server restart or timeoutSeconds does).
  void close_watches() {
    std::lock_guard lock(mu_);
    ++close_epoch_;
    cv_.notify_all();
  }
  // Forgets the watch history: open watches get an ERROR event with code 410 (or, with
  // http_status, new watches from an old resourceVersion get HTTP 410).
  void expire_history(bool as_http_status = false) {
    std::lock_guard lock(mu_);
    oldest_rv_ = ++rv_ + 1;  // every resourceVersion a client holds is now too old
    gone_as_http_ = as_http_status;
    ++close_epoch_;
    cv_.notify_all();
  }
  void set_eviction_status(int s) { eviction_status_ = s; }

  int count(const std::string& method, const std::string& path_prefix) {
    std::lock_guard lock(mu_);
    int n = 0;
    for (const auto& r : received_) n += r.method == method && r.path.rfind(path_prefix, 0) == 0;
    return n;
  }
  int count_exact(const std::string& method, const std::string& path) {
    std::lock_guard lock(mu_);
    int n = 0;
    for (const auto& r : received_) n += r.method == method && r.path == path;
    return n;
  }
  std::vector<Received> received() {
    std::lock_guard lock(mu_);
    return received_;
  }
  std::map<std::string, json> events() {
    std::lock_guard lock(mu_);
    return events_;
  }
  std::map<std::string, json> leases() {
    std::lock_guard lock(mu_);
    return leases_;
  }
  json object(const std::string& collection, const std::string& key) {
    std::lock_guard lock(mu_);
    auto& objs = objects_[collection];
    auto it = objs.find(key);
    return it == objs.end() ? json() : it->second;
  }
  // Another writer changes a lease behind the client's back.
  void put_lease(const std::string& ns, json lease) {
    std::lock_guard lock(mu_);
    lease["metadata"]["resourceVersion"] = std::to_string(++rv_);
    leases_[ns + "/" + lease["metadata"]["name"].get<std::string>()] = lease;
  }

 private:
  struct HistoryEntry {
    long rv;
    std::string collection;
    std::string line;
  };

  static std::string key_of(const json& obj) {
    const json& m = obj["metadata"];
    std::string name = m["name"];
    return m.contains("namespace") ? m["namespace"].get<std::string>() + "/" + name : name;
  }
  static void status(httplib::Response& res, int code, const std::string& message) {
    res.status = code;
    res.set_content(json{{"kind", "Status"}, {"code", code}, {"message", message}}.dump(),
                    "application/json");
  }
  void record(const httplib::Request& req) {
    std::lock_guard lock(mu_);
    received_.push_back({req.method, req.path + (req.has_param("watch") ? "?watch" : ""), req.body,
                         req.get_header_value("Content-Type"),
                         req.get_header_value("Authorization")});
  }

  void list_or_watch(const httplib::Request& req, httplib::Response& res) {
    record(req);
    const std::string collection = req.matches[2];
    if (req.has_param("watch")) return watch(req, res, collection);
    std::lock_guard lock(mu_);
    std::size_t limit = req.has_param("limit") ? std::stoul(req.get_param_value("limit")) : 1000000;
    std::size_t start = req.has_param("continue") ? std::stoul(req.get_param_value("continue")) : 0;
    json items = json::array();
    std::size_t i = 0;
    for (const auto& [k, v] : objects_[collection]) {
      if (i >= start && i < start + limit) items.push_back(v);
      ++i;
    }
    json meta = {{"resourceVersion", std::to_string(rv_)}};
    if (start + limit < i) meta["continue"] = std::to_string(start + limit);
    res.set_content(json{{"kind", "List"}, {"metadata", meta}, {"items", items}}.dump(),
                    "application/json");
  }

  void watch(const httplib::Request& req, httplib::Response& res, const std::string& collection) {
    long from = std::stol(req.get_param_value("resourceVersion"));
    {
      std::lock_guard lock(mu_);
      if (from + 1 < oldest_rv_ && gone_as_http_)
        return status(res, 410, "too old resource version");
    }
    auto state = std::make_shared<std::pair<long, long>>(from, -1);  // last rv sent, close epoch
    res.set_chunked_content_provider(
        "application/json", [this, state, collection](size_t, httplib::DataSink& sink) {
          std::unique_lock lock(mu_);
          if (state->second < 0) state->second = close_epoch_;
          if (state->first + 1 < oldest_rv_) {
            std::string line = json{{"type", "ERROR"},
                                    {"object",
                                     {{"kind", "Status"},
                                      {"code", 410},
                                      {"reason", "Expired"},
                                      {"message", "too old resource version"}}}}
                                   .dump() +
                               "\n";
            lock.unlock();
            sink.write(line.data(), line.size());
            sink.done();
            return true;
          }
          for (const auto& h : history_) {
            if (h.rv <= state->first || h.collection != collection) continue;
            state->first = h.rv;
            std::string line = h.line + "\n";
            lock.unlock();
            if (!sink.write(line.data(), line.size())) return false;
            return true;
          }
          cv_.wait_for(lock, std::chrono::milliseconds(100));
          if (stopping_ || close_epoch_ != state->second) {
            lock.unlock();
            sink.done();
          }
          return true;
        });
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  long rv_ = 100;
  long oldest_rv_ = 0;
  bool gone_as_http_ = false;
  long close_epoch_ = 0;
  std::atomic<int> eviction_status_{201};
  std::map<std::string, std::map<std::string, json>> objects_;
  std::vector<HistoryEntry> history_;
  std::map<std::string, json> events_;
  std::map<std::string, json> leases_;
  std::vector<Received> received_;
};

}  // namespace fitscale::testing
