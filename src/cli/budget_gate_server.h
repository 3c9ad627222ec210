#pragma once
// The HTTPS endpoint of the budget gate's mutating admission webhook (`fitscale run
// --webhook-address`): POST /budget-gate with an AdmissionReview, answered by the pure
// review_budget_gate (kube/admission_review.h). Served by every replica, leader or not: the
// answer depends only on the config, so the Service may send a review to any of them.
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "model/budget_gate.h"
#include "obs/logger.h"

namespace httplib {
class Server;
}

namespace fitscale::cli {

inline constexpr const char* kBudgetGatePath = "/budget-gate";

struct BudgetGateServerOptions {
  std::string address;    // HOST:PORT (port 0 = a free one)
  std::string cert_file;  // PEM serving certificate (then its chain)
  std::string key_file;   // PEM private key
};

class BudgetGateServer {
 public:
  // Throws InputError for a bad address or unreadable certificate/key (naming the flag/file).
  BudgetGateServer(BudgetGateServerOptions options, BudgetGateScope scope, const obs::Logger& log);
  ~BudgetGateServer();
  BudgetGateServer(const BudgetGateServer&) = delete;
  BudgetGateServer& operator=(const BudgetGateServer&) = delete;

  // Binds and serves on a background thread; throws std::runtime_error when it cannot bind.
  void start();
  void stop();
  // The budgets that decide which namespaces are budgeted from now on (Budget objects change
  // them while it serves); the rest of the scope stays as constructed.
  void set_budgets(const Budgets& budgets);
  int port() const { return port_; }
  std::string url() const;  // https://HOST:PORT/budget-gate

 private:
  BudgetGateServerOptions options_;
  std::string host_;
  int wanted_port_ = 0;
  std::mutex scope_mutex_;  // scope_ is read by the server's threads, set by the run loop
  BudgetGateScope scope_;
  const obs::Logger& log_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace fitscale::cli
