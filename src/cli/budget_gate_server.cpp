#include "cli/budget_gate_server.h"

#include <httplib.h>

#include <chrono>
#include <stdexcept>

#include "kube/admission_review.h"
#include "model/error.h"
#include "obs/obs_server.h"
#include "vcluster/tls_context.h"

namespace fitscale::cli {

namespace {
// An AdmissionReview carries the pod (kube-apiserver's limit for a request is 3 MiB) and, on
// updates, the old one too.
constexpr std::size_t kMaxReviewBytes = std::size_t{8} * 1024 * 1024;
}  // namespace

BudgetGateServer::BudgetGateServer(BudgetGateServerOptions options, BudgetGateScope scope,
                                   const obs::Logger& log)
    : options_(std::move(options)), scope_(std::move(scope)), log_(log) {
  obs::ListenAddress a;
  try {
    a = obs::parse_listen_address(options_.address);
  } catch (const InputError&) {
    throw InputError("--webhook-address '" + options_.address +
                     "': want HOST:PORT (e.g. 0.0.0.0:8443)");
  }
  host_ = a.host;
  wanted_port_ = a.port;
  vcluster::TlsFiles tls;
  tls.cert_file = options_.cert_file;
  tls.key_file = options_.key_file;
  std::string error;
  // httplib calls the setup back inside its constructor and only reports a bool.
  auto server = std::make_unique<httplib::SSLServer>([&](SSL_CTX& ctx) {
    try {
      vcluster::configure_tls(ctx, tls);
      return true;
    } catch (const InputError& e) {
      error = e.what();
      return false;
    }
  });
  if (!server->is_valid()) {
    throw InputError("--webhook-cert-file/--webhook-key-file: " +
                     (error.empty() ? std::string("cannot set up TLS (OpenSSL)") : error));
  }
  server_ = std::move(server);
}

BudgetGateServer::~BudgetGateServer() { stop(); }

void BudgetGateServer::set_budgets(const Budgets& budgets) {
  std::lock_guard<std::mutex> lock(scope_mutex_);
  scope_.budgets = budgets;
}

void BudgetGateServer::start() {
  if (thread_.joinable()) return;
  server_->set_payload_max_length(kMaxReviewBytes);
  // Without it each answer waits for the API server's delayed ACK (~40 ms a review, measured):
  // that is added to every pod creation in the gated namespaces.
  server_->set_tcp_nodelay(true);
  server_->Post(kBudgetGatePath, [this](const httplib::Request& req, httplib::Response& res) {
    BudgetGateScope scope;
    {
      std::lock_guard<std::mutex> lock(scope_mutex_);
      scope = scope_;
    }
    AdmissionAnswer a = review_budget_gate(req.body, scope);
    if (!a.error.empty()) {
      log_.warn("budget gate: admission review refused", {{"pod", a.pod}, {"error", a.error}});
    } else if (a.gated) {
      log_.debug("budget gate: gate added", {{"pod", a.pod}});
    }
    res.status = a.status;
    res.set_content(a.body, a.content_type.c_str());
  });
  // Anything else is not ours: say what is.
  server_->set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status == 404 || res.status == 405) {
      res.set_content(
          std::string("fitscale budget gate: POST an AdmissionReview to ") + kBudgetGatePath + "\n",
          "text/plain");
    } else if (res.status == 413) {
      res.set_content("fitscale budget gate: request body larger than 8 MiB\n", "text/plain");
    }
  });
  server_->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
  });
  int port = wanted_port_;
  if (port == 0) {
    port = server_->bind_to_any_port(host_);
    if (port <= 0) port = 0;
  } else if (!server_->bind_to_port(host_, port)) {
    port = 0;
  }
  if (port == 0) {
    throw std::runtime_error("--webhook-address: cannot listen on " + host_ + ":" +
                             std::to_string(wanted_port_) + " (address in use or not local)");
  }
  port_ = port;
  thread_ = std::thread([s = server_.get()] { s->listen_after_bind(); });
  // stop() does nothing until the listen loop runs: wait for it (microseconds).
  for (int i = 0; i < 5000 && !server_->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void BudgetGateServer::stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

std::string BudgetGateServer::url() const {
  std::string host = host_ == "0.0.0.0" ? "127.0.0.1" : host_;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return "https://" + host + ":" + std::to_string(port_) + kBudgetGatePath;
}

}  // namespace fitscale::cli
