#include "vcluster/virtual_cluster.h"

#include "vcluster/garbage_collector.h"
#include "vcluster/job_controller.h"
#include "vcluster/kubelets.h"
#include "vcluster/pdb_controller.h"
#include "vcluster/scheduler.h"

namespace fitscale::vcluster {

VirtualCluster::VirtualCluster(const Catalog& catalog, CloudProvider& cloud, SimCloud* sim,
                               const Clock& clock, VirtualClusterOptions options)
    : catalog_(catalog),
      clock_(clock),
      options_(std::move(options)),
      store_(clock, options_.watch_history),
      api_(store_, clock),
      bridge_(store_, cloud, sim, catalog, clock, options_.bridge),
      http_(store_, api_, bridge_, options_.http) {}

VirtualCluster::~VirtualCluster() { stop(); }

int VirtualCluster::listen(const std::string& host, int port) {
  const int bound = http_.bind(host, port);
  server_thread_ = std::thread([this] { http_.serve(); });
  loop_thread_ = std::thread([this] {
    std::unique_lock lock(loop_mu_);
    while (!stopping_) {
      lock.unlock();
      tick();
      lock.lock();
      loop_cv_.wait_for(lock, options_.tick_interval, [this] { return stopping_; });
    }
  });
  return bound;
}

void VirtualCluster::stop() {
  {
    std::lock_guard lock(loop_mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  loop_cv_.notify_all();
  if (loop_thread_.joinable()) loop_thread_.join();
  http_.stop();
  if (server_thread_.joinable()) server_thread_.join();
}

void VirtualCluster::tick() {
  // Each component is independent: one failing (an unreachable EC2 endpoint) must not stop the
  // others, and the next tick tries again.
  auto guarded = [this](const char* what, const std::function<void()>& fn) {
    try {
      fn();
    } catch (const std::exception& e) {
      if (options_.log) options_.log(std::string(what) + ": " + e.what());
    }
  };
  guarded("cloud bridge", [this] { bridge_.tick(); });
  guarded("job controller", [this] {
    run_job_controller(store_, clock_, [this](const std::string& ns, nlohmann::json pod) {
      return api_.admit_controller_pod(ns, std::move(pod));
    });
  });
  guarded("garbage collector", [this] { run_garbage_collector(store_, api_); });
  guarded("scheduler", [this] { schedule_pending_pods(store_, clock_, catalog_.gpu_models); });
  guarded("kubelets", [this] { run_kubelets(store_, clock_); });
  guarded("disruption budgets", [this] { update_disruption_budgets(store_); });
}

}  // namespace fitscale::vcluster
