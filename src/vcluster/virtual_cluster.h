#pragma once
// `fitscale cluster`: a virtual Kubernetes cluster on loopback. One store, the REST API and
// watches over HTTP, and a loop that plays the cluster's own components every tick: the cloud
// bridge (instances -> Nodes), the Job controller, the scheduler, the kubelets and the
// PodDisruptionBudget controller.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cloud/sim/sim_cloud.h"
#include "controller/interfaces.h"
#include "model/catalog.h"
#include "vcluster/cloud_bridge.h"
#include "vcluster/http_server.h"
#include "vcluster/object_store.h"
#include "vcluster/rest_api.h"

namespace fitscale::vcluster {

struct VirtualClusterOptions {
  CloudBridgeOptions bridge;
  HttpServerOptions http;
  std::size_t watch_history = 10000;  // changes kept for watches; older versions get 410
  std::chrono::milliseconds tick_interval{200};
  std::function<void(const std::string&)> log;  // loop errors; empty = quiet
};

class VirtualCluster {
 public:
  // `sim` may be null (an EC2 endpoint as the cloud): then fault injection is unavailable.
  VirtualCluster(const Catalog& catalog, CloudProvider& cloud, SimCloud* sim, const Clock& clock,
                 VirtualClusterOptions options);
  ~VirtualCluster();
  VirtualCluster(const VirtualCluster&) = delete;
  VirtualCluster& operator=(const VirtualCluster&) = delete;

  // Binds (port 0 = a free port), starts serving and the component loop; returns the port.
  int listen(const std::string& host, int port);
  void stop();  // idempotent; ends watches, joins threads

  // One pass of every in-cluster component (the loop calls this; tests call it directly).
  void tick();

  ObjectStore& store() { return store_; }
  RestApi& api() { return api_; }
  CloudBridge& bridge() { return bridge_; }
  ApiHttpServer& http() { return http_; }

 private:
  const Catalog& catalog_;
  const Clock& clock_;
  VirtualClusterOptions options_;
  ObjectStore store_;
  RestApi api_;
  CloudBridge bridge_;
  ApiHttpServer http_;
  std::thread server_thread_;
  std::thread loop_thread_;
  std::mutex loop_mu_;
  std::condition_variable loop_cv_;
  bool stopping_ = false;
};

}  // namespace fitscale::vcluster
