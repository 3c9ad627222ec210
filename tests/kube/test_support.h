#pragma once
// Helpers for the kube tests: a settable clock, simple decoders (the real ones are the model
// developer's kube/decode*; these keep the client tests independent of them), and waiting for
// something another thread does (with a generous deadline: no test asserts a duration).
#include <atomic>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "controller/interfaces.h"
#include "kube/informer.h"
#include "kube/kube_cluster_view.h"
#include "model/error.h"
#include "obs/logger.h"

namespace fitscale::testing {

class ManualClock final : public Clock {
 public:
  explicit ManualClock(Time t = 1'800'000'000) : t_(t) {}
  Time now() const override { return t_.load(); }
  void advance(Seconds s) { t_ += s; }

 private:
  std::atomic<Time> t_;
};

// What the code under test logs: JSON lines in a stream a test may read once the threads that
// write it have stopped.
struct TestLog {
  std::ostringstream out;
  obs::Logger logger{obs::LoggerOptions{obs::LogFormat::Json, obs::LogLevel::Debug, {}}, out};
  std::string text() const { return out.str(); }
};

inline bool eventually(const std::function<bool()>& done,
                       std::chrono::milliseconds deadline = std::chrono::seconds(20)) {
  auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

// A pod is "bad" when it carries label bad=true (stands for any decoding error).
inline Pod simple_pod(const nlohmann::json& j) {
  Pod p;
  p.name = j["metadata"]["name"];
  p.ns = j["metadata"].value("namespace", "");
  p.uid = j["metadata"].value("uid", "");
  p.resource_version = j["metadata"].value("resourceVersion", "");
  if (j["metadata"].contains("labels") && j["metadata"]["labels"].value("bad", "") == "true") {
    throw InputError("pod " + p.ns + "/" + p.name +
                     ": spec.containers[0].resources.requests.cpu: bad quantity");
  }
  if (j.contains("spec")) p.node_name = j["spec"].value("nodeName", "");
  return p;
}

inline Node simple_node(const nlohmann::json& j) {
  Node n;
  n.name = j["metadata"]["name"];
  if (j.contains("spec")) n.unschedulable = j["spec"].value("unschedulable", false);
  return n;
}

template <class T>
ResourceCodec<T> simple_codec(std::string resource, std::string path,
                              std::function<T(const nlohmann::json&)> one,
                              std::function<std::string(const T&)> key) {
  ResourceCodec<T> c;
  c.resource = resource;
  c.path = path;
  c.decode_object = [one](std::string_view s) { return one(nlohmann::json::parse(s)); };
  c.decode_list = [one, key](std::string_view page, std::vector<std::pair<std::string, T>>& items,
                             std::vector<std::pair<std::string, std::string>>& bad) {
    const nlohmann::json doc = nlohmann::json::parse(page);
    for (const auto& item : doc["items"]) {
      try {
        T t = one(item);
        items.emplace_back(key(t), std::move(t));
      } catch (const InputError& e) {
        std::string k = item["metadata"].value("namespace", "") + "/" +
                        item["metadata"]["name"].get<std::string>();
        bad.emplace_back(k, e.what());
      }
    }
  };
  return c;
}

inline KubeCodecs simple_codecs() {
  return KubeCodecs{
      simple_codec<Pod>("pods", "/api/v1/pods", simple_pod,
                        [](const Pod& p) { return p.ns + "/" + p.name; }),
      simple_codec<Node>("nodes", "/api/v1/nodes", simple_node,
                         [](const Node& n) { return n.name; }),
      simple_codec<PodDisruptionBudgetView>(
          "poddisruptionbudgets", "/apis/policy/v1/poddisruptionbudgets",
          [](const nlohmann::json& j) {
            PodDisruptionBudgetView v;
            v.name = j["metadata"]["name"];
            v.ns = j["metadata"].value("namespace", "");
            return v;
          },
          [](const PodDisruptionBudgetView& v) { return v.ns + "/" + v.name; }),
  };
}

inline nlohmann::json pod_json(const std::string& ns, const std::string& name,
                               const std::string& node = "", bool bad = false) {
  nlohmann::json j = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", ns}, {"uid", "uid-" + ns + "-" + name}}},
      {"spec", {{"nodeName", node}}}};
  if (bad) j["metadata"]["labels"] = {{"bad", "true"}};
  return j;
}

inline nlohmann::json node_json(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}}},
          {"spec", nlohmann::json::object()}};
}

inline KubeConfig config_for(const std::string& url) {
  KubeConfig c;
  c.source = "test";
  c.server = url;
  c.token = "s3cret-token";
  return c;
}

inline InformerOptions fast_informer_options() {
  InformerOptions o;
  o.page_limit = 2;  // small pages: pagination is exercised with a handful of objects
  o.backoff_initial = std::chrono::milliseconds(20);
  o.backoff_max = std::chrono::milliseconds(200);
  return o;
}

}  // namespace fitscale::testing
