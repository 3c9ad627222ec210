// `fitscale run --kubeconfig FILE --provider sim|aws [--config FILE] [--dry-run] [--interval S]
// [--lease-namespace NS] [--lease-duration S] [--id NAME] [--catalog FILE] ...`: the controller
// against a live Kubernetes API server. Informers keep a view of nodes, pods and
// PodDisruptionBudgets; leader election on a Lease makes sure one replica acts; the leader runs
// the Controller every interval; SIGTERM/SIGINT stop it cleanly and release the lease so a
// standby replica takes over at once. This file is the edge: it reads the wall clock, the
// environment (in-cluster config, AWS keys), the hostname and the pid.
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "cli/aws_setup.h"
#include "cli/budget_gate_server.h"
#include "cli/commands.h"
#include "cli/positive_seconds.h"
#include "cli/run_budgets.h"
#include "cli/run_pools.h"
#include "cli/run_providers.h"
#include "cli/wall_clock.h"
#include "cloud/aws/api_catalog.h"
#include "cloud/aws/aws_stack.h"
#include "cloud/sim/remote_sim_cloud.h"
#include "controller/controller.h"
#include "controller/provisioning_view.h"
#include "cost/budget_alerts_from_config.h"
#include "cost/memory_ledger.h"
#include "cost/sqlite_ledger.h"
#include "kube/api_access.h"
#include "kube/decode_codecs.h"
#include "kube/kube_cluster_view.h"
#include "kube/kube_provisioning_store.h"
#include "kube/kubeconfig.h"
#include "kube/launch_writer.h"
#include "kube/leader_election.h"
#include "model/catalog.h"
#include "model/config.h"
#include "model/error.h"
#include "model/file_text.h"
#include "obs/log_recorder.h"
#include "obs/logger.h"
#include "obs/metrics_recorder.h"
#include "obs/metrics_registry.h"
#include "obs/obs_server.h"
#include "obs/readiness.h"
#include "planner/policy_from_config.h"

namespace fitscale::cli {
namespace {

struct RunFlags {
  std::string kubeconfig;
  std::string provider;
  std::string config;
  std::string catalog;
  bool dry_run = false;
  Seconds interval_s = 0;  // 0 = the config's controller.interval
  std::string lease_namespace = "kube-system";
  std::string budgets_namespace;  // "" = lease_namespace
  Seconds lease_duration_s = 15;
  std::string id;
  std::string ledger;
  std::string metrics_address;  // "" = the config's metrics.address; "off" = none
  std::string aws_endpoint;
  std::string interruption_queue;
  std::string log_format;  // "" = the config's logFormat (text by default)
  // The budget gate's admission webhook (cli/budget_gate_server.h): "" = not served.
  std::string webhook_address;
  std::string webhook_cert_file;
  std::string webhook_key_file;
};

std::string default_identity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
    std::snprintf(host, sizeof host, "fitscale");
  return std::string(host) + "-" + std::to_string(getpid());
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// A CloudProvider and whatever must live as long as it.
struct ProviderHandle {
  std::unique_ptr<CloudProvider> owned;
  std::unique_ptr<aws::AwsStack> aws;
  std::unique_ptr<ConfiguredProviders> configured;  // `providers:` (docs/clouds.md)
  CloudProvider* provider = nullptr;
};

// The one place that knows the providers. The AWS provider learns its prices from the catalog
// once that has been read from its API (set_prices).
ProviderHandle make_provider(const RunFlags& f, const KubeConfig& kube, const Config& config,
                             const Clock& clock) {
  ProviderHandle h;
  if (!config.providers.empty()) {
    if (!f.provider.empty())
      throw InputError("--provider: " + config.source +
                       " lists providers:, which name every provider; remove one of the two");
    h.configured = std::make_unique<ConfiguredProviders>(config, kube, clock);
    h.provider = &h.configured->provider();
  } else if (f.provider == "sim") {
    // The virtual cluster serves its simulated cloud next to the Kubernetes API.
    h.owned = std::make_unique<RemoteSimCloud>(remote_sim_cloud_options(kube));
    h.provider = h.owned.get();
  } else if (f.provider == "aws") {
    h.aws = make_aws_stack(config, f.aws_endpoint, "", clock, nullptr,
                           f.dry_run ? AwsRole::AutoscalerDryRun : AwsRole::Autoscaler);
    h.provider = &h.aws->provider();
  } else {
    throw InputError("--provider: expected sim or aws, got '" + f.provider + "'");
  }
  return h;
}

// The live view, noting which nodes aws-node-termination-handler has tainted (by providerID):
// GatedCloud marks their instances at the next listing, one loop later at most.
class NthTaintView final : public ClusterView {
 public:
  // `observed`: told the Nodes of every synced view (owned hardware is found among them).
  NthTaintView(ClusterView& inner, std::function<void(const std::vector<Node>&)> observed)
      : inner_(inner), observed_(std::move(observed)) {}
  std::uint64_t generation() const override { return inner_.generation(); }
  ClusterState observe() override {
    ClusterState s = inner_.observe();
    if (s.synced) tainted_ = nth_tainted_provider_ids(s.nodes);
    if (s.synced && observed_) observed_(s.nodes);
    return s;
  }
  bool cordon(const std::string& node) override { return inner_.cordon(node); }
  bool uncordon(const std::string& node) override { return inner_.uncordon(node); }
  bool add_taint(const std::string& node, const Taint& taint) override {
    return inner_.add_taint(node, taint);
  }
  bool remove_taint(const std::string& node, const std::string& key) override {
    return inner_.remove_taint(node, key);
  }
  EvictOutcome evict(const std::string& ns, const std::string& pod) override {
    return inner_.evict(ns, pod);
  }
  bool delete_node(const std::string& node) override { return inner_.delete_node(node); }
  bool delete_pod(const std::string& ns, const std::string& pod) override {
    return inner_.delete_pod(ns, pod);
  }
  bool remove_scheduling_gate(const std::string& ns, const std::string& pod,
                              std::string_view gate) override {
    return inner_.remove_scheduling_gate(ns, pod, gate);
  }
  void record_event(const ObjectRef& about, const std::string& type, const std::string& reason,
                    const std::string& message) override {
    inner_.record_event(about, type, reason, message);
  }
  const std::set<std::string>& tainted() const { return tainted_; }

 private:
  ClusterView& inner_;
  std::function<void(const std::vector<Node>&)> observed_;
  std::set<std::string> tainted_;
};

// Launches and terminations only while the gate is open (the leader, not in dry run): a replica
// that just lost its lease must not launch, even in the middle of a loop.
class GatedCloud final : public CloudProvider {
 public:
  GatedCloud(CloudProvider& inner, std::function<bool()> gate, const obs::Logger& log,
             const std::set<std::string>& nth_tainted)
      : inner_(inner), gate_(std::move(gate)), log_(log), nth_tainted_(nth_tainted) {}
  std::string name() const override { return inner_.name(); }
  LaunchResult launch(const LaunchRequest& r) override {
    if (gate_()) return inner_.launch(r);
    log_.warn("not launching: this replica is not the leader",
              {{"instance_type", r.instance_type}});
    LaunchResult out;
    out.failures.push_back({r.instance_type + "/" + r.zone + "/" + to_string(r.capacity_type),
                            r.count, "NotLeader", "this replica is not the leader", false});
    return out;
  }
  void terminate(const std::vector<std::string>& ids) override {
    if (gate_()) return inner_.terminate(ids);
    log_.warn("not terminating: this replica is not the leader");
  }
  std::vector<Instance> list_instances() override {
    auto instances = inner_.list_instances();
    for (auto& i : instances) {
      if (i.interruption_notice || !nth_tainted_.count(i.provider_id)) continue;
      i.interruption_notice = true;
      if (nth_logged_.insert(i.id).second) {
        log_.warn("node tainted by aws-node-termination-handler: treated as an interruption notice",
                  {{"instance", i.id}, {"provider_id", i.provider_id}});
      }
    }
    return instances;
  }
  // The inner cloud's, moved on whenever the set of NTH-tainted nodes changes (the listing marks
  // them), so a quiet loop on the simulated cloud lists nothing (issue 20, item 5).
  std::optional<std::uint64_t> generation() const override {
    const std::optional<std::uint64_t> inner = inner_.generation();
    if (!inner) return std::nullopt;
    if (nth_tainted_ != nth_seen_) {
      nth_seen_ = nth_tainted_;
      ++nth_changes_;
    }
    return *inner + nth_changes_;  // both only grow: the sum moves when either does
  }

 private:
  CloudProvider& inner_;
  std::function<bool()> gate_;
  const obs::Logger& log_;
  const std::set<std::string>& nth_tainted_;
  std::set<std::string> nth_logged_;
  mutable std::set<std::string> nth_seen_;
  mutable std::uint64_t nth_changes_ = 0;
};

// SIGTERM/SIGINT are blocked in every thread and taken by sigwait on this one, so no signal
// handler and no global flag is needed.
class SignalWaiter {
 public:
  SignalWaiter() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);  // before any other thread exists
    thread_ = std::thread([this] {
      int sig = 0;
      sigwait(&set_, &sig);
      {
        std::lock_guard lock(mu_);
        signal_ = sig;
      }
      cv_.notify_all();
    });
  }
  ~SignalWaiter() {
    // Wakes the thread blocked in sigwait() so it can exit; it handles the signal, nothing dies.
    if (signal_ == 0)
      pthread_kill(thread_.native_handle(), SIGTERM);  // NOLINT(bugprone-bad-signal-to-kill-thread)
    thread_.join();
  }
  // Waits up to `d`; returns true when a stop signal has arrived.
  bool wait_for(std::chrono::milliseconds d) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, d, [this] { return signal_ != 0; });
  }
  int signal() {
    std::lock_guard lock(mu_);
    return signal_;
  }

 private:
  sigset_t set_;
  std::mutex mu_;
  std::condition_variable cv_;
  int signal_ = 0;
  std::thread thread_;
};

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// Once at start: what the API catalog holds and what it left out, with reasons (a few of them:
// a region has dozens of types nobody prices).
void log_api_catalog(const obs::Logger& log, const aws::ApiCatalog& c, const Config& config,
                     double seconds) {
  int spot = 0;
  std::set<std::string> types;
  for (const auto& o : c.catalog.offerings) {
    spot += o.capacity_type == CapacityType::Spot;
    types.insert(o.instance_type);
  }
  const auto& patterns = config.aws.catalog_instance_types;
  log.info("catalog from the EC2 API",
           {{"offerings", std::to_string(c.catalog.offerings.size())},
            {"spot_offerings", std::to_string(spot)},
            {"instance_types", std::to_string(types.size())},
            {"zones", joined(config.zones, ",")},
            {"asked_for", patterns.empty() ? "every type" : joined(patterns, ",")},
            {"excluded", std::to_string(c.excluded.size())},
            {"seconds", fmt::format("{:.1f}", seconds)}});
  if (c.excluded.empty()) return;
  std::vector<std::string> examples;
  // Unpriced types first: those are the ones a user may have expected to get.
  for (int pass = 0; pass < 2 && examples.size() < 5; ++pass) {
    for (const auto& e : c.excluded) {
      const bool unpriced = e.reason.find("price") != std::string::npos;
      if ((pass == 0) != unpriced || examples.size() >= 5) continue;
      examples.push_back(e.instance_type + ": " + e.reason);
    }
  }
  log.warn("instance types left out of the catalog",
           {{"count", std::to_string(c.excluded.size())}, {"examples", joined(examples, "; ")}});
}

// The webhook is checked (address, certificate and key) before anything starts.
std::unique_ptr<BudgetGateServer> make_budget_gate_server(const RunFlags& f, const Config& config,
                                                          const obs::Logger& log) {
  if (f.webhook_address.empty() || f.webhook_address == "off") {
    if (!f.webhook_cert_file.empty() || !f.webhook_key_file.empty())
      throw InputError("--webhook-cert-file/--webhook-key-file: need --webhook-address");
    return nullptr;
  }
  if (f.webhook_cert_file.empty() || f.webhook_key_file.empty())
    throw InputError(
        "--webhook-address: needs --webhook-cert-file and --webhook-key-file "
        "(kube-apiserver calls admission webhooks over HTTPS only)");
  BudgetGateScope scope;
  const Budgets budgets = budgets_or_defaults(config);
  scope.enabled = budgets.gate;
  scope.budgets = budgets;
  scope.exempt_namespaces.insert(f.lease_namespace);
  return std::make_unique<BudgetGateServer>(
      BudgetGateServerOptions{f.webhook_address, f.webhook_cert_file, f.webhook_key_file},
      std::move(scope), log);
}

int run(const RunFlags& f) {
  // Everything that can be wrong with the input is checked before a thread or a connection exists.
  Config config = f.config.empty() ? Config{} : load_config_file(f.config);
  if (config.policy != PolicyKind::Fitscale) {
    throw InputError(
        config.source + ": policy: " + to_string(config.policy) +
        " is an approximation for `fitscale simulate` only; `fitscale run` is fitscale");
  }
  require_catalog_for_region(config, !f.catalog.empty());
  if (f.provider.empty() && config.providers.empty())
    throw InputError(
        "--provider is required (sim or aws), unless the config lists providers: "
        "(docs/clouds.md)");
  if (!f.interruption_queue.empty()) {
    if (f.interruption_queue.rfind("http://", 0) != 0 &&
        f.interruption_queue.rfind("https://", 0) != 0) {
      throw InputError("--interruption-queue: must be the queue's http:// or https:// URL, got '" +
                       f.interruption_queue + "'");
    }
    config.aws.interruption_queue = f.interruption_queue;
  }
  const Seconds interval_s = f.interval_s > 0 ? f.interval_s : config.controller.interval_s;
  if (f.lease_duration_s < 2) throw InputError("--lease-duration: must be at least 2 seconds");
  // The flag wins over the file's logFormat. Every line from here on goes through this logger,
  // the informers' and the leader election's too (DESIGN.md: one logger, passed down).
  WallClock clock;
  obs::LoggerOptions log_options;
  if (!f.log_format.empty())
    log_options.format = obs::parse_log_format(f.log_format);
  else if (config.log_format == LogFormat::Json)
    log_options.format = obs::LogFormat::Json;
  log_options.now = [&clock] { return clock.now(); };
  obs::Logger log(log_options);
  std::unique_ptr<BudgetGateServer> gate_server = make_budget_gate_server(f, config, log);

  const KubeConfig kube =
      f.kubeconfig.empty()
          ? in_cluster_config({env("KUBERNETES_SERVICE_HOST"), env("KUBERNETES_SERVICE_PORT")})
          : load_kubeconfig(f.kubeconfig);
  if (kube.insecure_skip_tls_verify) {
    log.warn(
        "kubeconfig: insecure-skip-tls-verify is set: the API server's certificate is not "
        "checked, anyone on the path can read the token",
        {{"server", kube.server}});
  }
  // A certificate or credential the API server refuses is a configuration error: one line and
  // exit 2 now, not informers retrying forever.
  check_api_access(kube);
  // The shipped (or --catalog) table: the whole catalog for --provider sim, the on-demand prices
  // and spot estimates for --provider aws.
  // Plus each provider's own catalog (providers[].catalog); when every cloud has one, the
  // embedded AWS us-east-1 table would belong to none of them and is left out.
  const bool every_cloud_has_a_catalog =
      !config.providers.empty() &&
      std::all_of(config.providers.begin(), config.providers.end(), [](const ProviderConfig& p) {
        return p.kind == ProviderKind::Static || !p.catalog.empty();
      });
  const std::vector<InstanceType> price_table = with_provider_catalogs(
      !f.catalog.empty() ? parse_catalog_csv(read_file_text(f.catalog, "catalog"), f.catalog)
      : every_cloud_has_a_catalog ? std::vector<InstanceType>{}
                                  : parse_catalog_csv(default_catalog_csv(), "embedded catalog"),
      config, [](const std::string& path) { return read_file_text(path, "catalog"); });
  check_catalog_providers(price_table, config, f.catalog.empty() ? "embedded catalog" : f.catalog);
  const std::string identity = f.id.empty() ? default_identity() : f.id;

  SignalWaiter signals;

  ProviderHandle provider = make_provider(f, kube, config, clock);
  // Offerings are re-priced in place (spot refresh): the controller's pointers into them stay.
  // `all` has every offering through no pool; `catalog` the pools' (Pool objects may change them).
  Catalog all;
  Catalog catalog;
  std::vector<std::string> spot_types;
  bool refresh_spot = false;
  if (provider.aws) {
    log.info("AWS credentials", {{"source", provider.aws->credentials_source()}});
    const double started = clock.monotonic_seconds();
    aws::ApiCatalog api;
    try {
      Config open = config;
      open.pools = RunPools::open_options({}).pools;
      api = load_api_catalog(*provider.aws, price_table, open, clock.now());
    } catch (const aws::AwsError& e) {
      throw std::runtime_error(std::string("cannot read the instance catalog from the EC2 API: ") +
                               e.what());
    }
    const double seconds = clock.monotonic_seconds() - started;
    log_api_catalog(log, api, config, seconds);
    all = std::move(api.catalog);
    catalog = with_pools(all, RunPools::file_pools(config));
    provider.aws->provider().set_prices(catalog);
    spot_types = spot_refresh_types(catalog, config);
    refresh_spot = config.aws.spot_price_refresh_s > 0 &&
                   (config.aws.catalog_instance_types.empty() || !spot_types.empty());
    provider.aws->provider().on_interruptions([&log](const aws::InterruptionReport& r) {
      for (const auto& e : r.marked) {
        log.warn("interruption notice: the node will be replaced",
                 {{"instance", e.instance_id},
                  {"kind", aws::to_string(e.kind)},
                  {"detail", e.detail},
                  {"time", e.time}});
      }
      for (const auto& e : r.foreign) {
        log.info("interruption notice for an instance this cluster does not own",
                 {{"instance", e.instance_id}, {"kind", aws::to_string(e.kind)}});
      }
      if (r.ignored > 0) {
        log.info("interruption queue: messages that are no interruption event were dropped",
                 {{"count", std::to_string(r.ignored)}});
      }
      if (!r.error.empty()) log.warn("interruption queue could not be read", {{"error", r.error}});
      if (!r.tag_error.empty()) {
        log.warn("interruption notice not tagged on the instance: a restart will not know it",
                 {{"error", r.tag_error}});
      }
    });
    if (provider.aws->interruptions()) {
      log.info("reading interruption notices", {{"queue", provider.aws->interruptions()->url()}});
    }
  } else {
    all = build_catalog(price_table, RunPools::open_options(catalog_options_from_config(config)));
    catalog = build_catalog(price_table, catalog_options_from_config(config));
    if (provider.configured) provider.configured->set_prices(catalog);
  }
  Time next_spot_refresh = clock.now() + config.aws.spot_price_refresh_s;

  KubeViewOptions view_options;
  view_options.instance = identity;
  KubeClusterView view(kube, clock, log, default_kube_codecs(catalog.gpu_models), view_options);

  std::unique_ptr<LeaderElector> elector;
  if (!f.dry_run) {
    LeaseOptions lease = LeaseOptions::for_duration(f.lease_duration_s);
    lease.ns = f.lease_namespace;
    lease.identity = identity;
    elector = std::make_unique<LeaderElector>(kube, clock, log, lease);
  }
  // Writes happen only while we lead; a dry run writes nothing at all.
  std::function<bool()> may_act = [&] { return elector && elector->is_leader(); };
  view.set_write_gate(may_act, f.dry_run ? "dry run" : "not the leader");
  std::function<void(const std::vector<Node>&)> nodes_observed;
  if (provider.configured) {
    ConfiguredProviders* configured = provider.configured.get();
    nodes_observed = [configured](const std::vector<Node>& nodes) {
      configured->nodes_observed(nodes);
    };
  }
  NthTaintView nth_view(view, nodes_observed);
  // Kueue's ProvisioningRequests, served through the controller's own planning (docs/kueue.md).
  KubeProvisioningStore provisioning(kube, log, catalog.gpu_models);
  provisioning.set_write_gate(may_act);
  ProvisioningRequestView provisioning_view(nth_view, provisioning, clock, catalog,
                                            policy_from_config(config));
  GatedCloud cloud(*provider.provider, may_act, log, nth_view.tainted());

  std::unique_ptr<Ledger> own_ledger;
  if (!f.ledger.empty())
    own_ledger = std::make_unique<SqliteLedger>(f.ledger);
  else
    own_ledger = std::make_unique<MemoryLedger>();
  // Budget objects: caps from the cluster, and the spend and alerts a new leader starts from.
  RunBudgets budgets(kube, log, config, std::move(own_ledger),
                     f.budgets_namespace.empty() ? f.lease_namespace : f.budgets_namespace);
  budgets.events_to(view);
  Ledger* ledger = &budgets.ledger();
  // Pool objects: the pools from the cluster, their status written after every loop.
  RunPools pools(kube, log, config, view, catalog);
  BudgetAlerts alerts = make_budget_alerts(config, &budgets.alert_log());

  ControllerOptions controller_options;
  controller_options.policy = policy_from_config(config);
  controller_options.offering_backoff_s = config.controller.offering_backoff_s;
  controller_options.cluster_name = config.cluster_name;
  controller_options.dry_run = f.dry_run;

  obs::MetricsRegistry registry;
  obs::MetricsOptions metrics_options;
  metrics_options.budgets = controller_options.policy.budgets;
  metrics_options.catalog = &catalog;
  metrics_options.region = config.region;
  obs::MetricsRecorder metrics(registry, metrics_options);
  if (provider.aws) {
    auto offerings = registry.gauge("fitscale_catalog_offerings",
                                    "Offerings (type x zone x capacity type) fitscale may launch, "
                                    "as the EC2 API reported them at start.",
                                    {"capacity_type"});
    int spot = 0;
    for (const auto& o : catalog.offerings) spot += o.capacity_type == CapacityType::Spot;
    offerings.set({"spot"}, spot);
    offerings.set({"on-demand"}, static_cast<double>(catalog.offerings.size()) - spot);
  }
  // Where fitscale's Kubernetes Events went; the writer runs on its own thread (the loop only
  // queues them), so a full queue or a spam-filtered object shows here, not as a slow loop.
  const obs::Family events_total = registry.counter(
      "fitscale_events_total",
      "Kubernetes Events by outcome: created, updated (a repeat: count bumped), "
      "dropped_queue_full, dropped_spam (per-object token bucket), refused (not the leader), "
      "failed.",
      {"outcome"});
  view.events().set_outcome([events_total](const char* outcome) { events_total.inc({outcome}); });
  // Launch objects (docs/pools.md, "Launch objects"): the loop queues each change, this writer's
  // own thread writes them (the leader only) and deletes removed ones after an hour.
  LaunchWriter launch_writer(kube, clock, LaunchWriterOptions{});
  launch_writer.set_gate(may_act);
  launch_writer.set_warn([&log](const std::string& m) { log.warn(m); });
  launch_writer.set_info([&log](const std::string& m) { log.info(m); });
  const obs::Family launch_writes = registry.counter(
      "fitscale_launch_object_writes_total",
      "Launch object writes by outcome: created, status_written, unchanged (the object already "
      "said so), deleted (removed over an hour ago), dropped, refused (not the leader), failed.",
      {"outcome"});
  launch_writer.set_outcome([launch_writes](const char* outcome) { launch_writes.inc({outcome}); });
  obs::Readiness readiness(interval_s, [&clock] { return clock.now(); });
  obs::LogRecorder log_recorder(log);
  std::vector<Recorder*> targets{&log_recorder, &metrics, &readiness, &pools.usage_recorder()};
  if (alerts.recorder) {
    // Every loop, planned or not, from the ledger (a quiet cluster's spend still grows); a post
    // that fails is logged and counted, and retried with backoff.
    alerts.recorder->read_spend_from(ledger);
    auto failures = registry.counter("fitscale_budget_alert_failures_total",
                                     "Budget alert webhook posts that failed (each is retried).");
    failures.inc({}, 0);
    alerts.recorder->on_failure([&log, failures](const std::string& error) mutable {
      log.warn("budget alert not delivered: retrying later", {{"error", error}});
      failures.inc({});
    });
    targets.push_back(alerts.recorder.get());
  }
  FanoutRecorder recorder(targets);

  std::unique_ptr<obs::ObsServer> obs_server;
  const std::string metrics_address =
      f.metrics_address.empty() ? config.metrics.address : f.metrics_address;
  if (metrics_address != "off") {
    obs_server = std::make_unique<obs::ObsServer>(metrics_address, registry,
                                                  [&readiness] { return readiness.ready(); });
    obs_server->start();
  }

  if (gate_server) {
    gate_server->start();
    log.info("budget gate webhook: serving", {{"url", gate_server->url()}});
  }
  log.info("fitscale run: starting", {{"id", identity},
                                      {"server", kube.server},
                                      {"provider", provider.provider->name()},
                                      {"interval", std::to_string(interval_s) + "s"},
                                      {"dry_run", f.dry_run ? "true" : "false"},
                                      {"metrics", obs_server ? obs_server->url() : "off"}});
  view.start();
  provisioning.start();
  budgets.start();
  pools.start();
  launch_writer.start();
  if (elector) elector->start([&](bool leading) { readiness.set_leader(leading); });

  // A new leader starts from a fresh controller: what a previous term remembered (empty
  // timers, backoffs) may be stale after another replica acted.
  std::unique_ptr<Controller> controller;
  const auto new_controller = [&] {
    auto c = std::make_unique<Controller>(provisioning_view, cloud, catalog, clock, ledger,
                                          recorder, controller_options);
    c->set_launch_log(&launch_writer);
    return c;
  };
  bool synced_logged = false;
  // A signal stops a loop between its phases and batches, not at its end (issue 20).
  controller_options.checkpoint = [&signals] { return signals.signal() != 0; };
  while (!signals.wait_for(std::chrono::milliseconds(controller ? interval_s * 1000 : 200))) {
    const bool synced = view.synced();
    readiness.set_synced(synced);
    if (synced && !synced_logged) {
      log.info("informers synced");
      synced_logged = true;
    }
    // Every replica serves the webhook: it gates by the budgets that apply now, Budget objects
    // included, not by the config file's alone (a namespace capped only by its Budget object).
    if (gate_server && budgets.ready()) gate_server->set_budgets(budgets.current());
    const bool leading = f.dry_run || (elector && elector->is_leader());
    if (!leading) {
      if (controller) log.warn("lost leadership: stopped acting");
      controller.reset();
      continue;
    }
    bool budgets_changed = false;
    if (!controller) {
      if (!budgets.ready()) continue;  // a new term starts from the Budgets' status, once read
      if (!pools.ready()) continue;    // and plans with the Pool objects, once read
      budgets.start_term();
      controller_options.policy.budgets = budgets.budgets(budgets_changed);
      // That call took the change flag: what follows budgets that move must be told here too.
      metrics.set_budgets(controller_options.policy.budgets);
      if (alerts.recorder) alerts.recorder->set_budgets(controller_options.policy.budgets);
      pools.update(all, catalog);
      controller = new_controller();
    } else if (pools.update(all, catalog)) {
      // The offerings changed under the controller: a fresh one plans on them (as a new term).
      controller_options.policy.budgets = budgets.current();
      controller = new_controller();
    }
    if (const Budgets& b = budgets.budgets(budgets_changed); budgets_changed) {
      controller->set_budgets(b);
      if (alerts.recorder) alerts.recorder->set_budgets(b);
      metrics.set_budgets(b);  // the cap gauges show the live caps, not the file's
    }
    if (refresh_spot && clock.now() >= next_spot_refresh) {
      next_spot_refresh = clock.now() + config.aws.spot_price_refresh_s;
      try {
        const auto prices =
            aws::fetch_spot_prices(provider.aws->ec2(), config.zones, spot_types, clock.now());
        const int changed = aws::apply_spot_prices(catalog, prices);
        aws::apply_spot_prices(all, prices);
        provider.aws->provider().set_prices(catalog);
        log.info("spot prices refreshed",
                 {{"prices", std::to_string(prices.size())}, {"changed", std::to_string(changed)}});
      } catch (const aws::AwsError& e) {
        log.warn("spot prices not refreshed: keeping the last ones", {{"error", e.what()}});
      }
    }
    try {
      readiness.loop_started();
      controller->reconcile();
      if (!f.dry_run) budgets.after_loop(clock.now());  // a dry run writes nothing
      if (!f.dry_run) pools.after_loop();
    } catch (const std::exception& e) {
      // A cloud or API outage is retried next interval; the controller never acts on a view it
      // could not read.
      log.error("reconcile failed", {{"error", e.what()}});
      readiness.loop_failed();
    }
  }

  log.info("fitscale run: stopping",
           {{"signal", signals.signal() == SIGINT ? "SIGINT" : "SIGTERM"}});
  controller.reset();
  budgets.stop();
  pools.stop();
  if (elector) elector->stop();  // releases the lease: a standby takes over at its next retry
  view.stop();
  if (obs_server) obs_server->stop();
  if (gate_server) gate_server->stop();
  log.info("fitscale run: stopped");
  return 0;
}

}  // namespace

Runner register_run(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  auto* sub = app.add_subcommand("run", "Run the autoscaler against a Kubernetes cluster");
  sub->add_option("--kubeconfig", flags->kubeconfig,
                  "kubeconfig file (default: in-cluster service account)");
  sub->add_option("--provider", flags->provider,
                  "Cloud provider: sim (the virtual cluster's cloud) or aws; omit it when the "
                  "config lists providers: (several providers, docs/clouds.md)")
      ->check(CLI::IsMember({"sim", "aws"}));
  sub->add_option("--config", flags->config, "fitscale config file (YAML)");
  sub->add_option(
      "--catalog", flags->catalog,
      "Instance catalog CSV (default: the embedded AWS us-east-1 catalog, or none when every "
      "cloud of providers: has its own catalog); with --provider aws, the price table merged "
      "with what the EC2 API reports");
  sub->add_flag("--dry-run", flags->dry_run, "Log every action it would take and take none");
  sub->add_option("--interval", flags->interval_s,
                  "Seconds between reconcile loops, at least 1 (default: the config's "
                  "controller.interval)")
      ->check(positive_seconds());
  sub->add_option("--lease-namespace", flags->lease_namespace,
                  "Namespace of the leader-election Lease")
      ->capture_default_str();
  sub->add_option("--lease-duration", flags->lease_duration_s,
                  "Lease duration in seconds; renew every third of it")
      ->capture_default_str();
  sub->add_option("--budgets-namespace", flags->budgets_namespace,
                  "Namespace of the Budget objects named cluster and default (default: the "
                  "--lease-namespace)");
  sub->add_option("--id", flags->id, "Leader-election identity (default: hostname-pid)");
  sub->add_option("--ledger", flags->ledger,
                  "Meter costs into this SQLite ledger (default: in memory)");
  sub->add_option(
      "--metrics-address", flags->metrics_address,
      "Serve /metrics, /healthz, /readyz here (default: the config's metrics.address; off = none)");
  sub->add_option("--aws-endpoint", flags->aws_endpoint,
                  "EC2 endpoint URL (moto) for --provider aws");
  sub->add_option("--interruption-queue", flags->interruption_queue,
                  "SQS queue URL with EventBridge spot interruption events (default: the config's "
                  "aws.interruptionQueue)");
  sub->add_option("--log-format", flags->log_format,
                  "text or json (default: the config's logFormat, else text)")
      ->check(CLI::IsMember({"text", "json"}));
  sub->add_option("--webhook-address", flags->webhook_address,
                  "Serve the budget gate's mutating admission webhook (HTTPS, POST "
                  "/budget-gate) on HOST:PORT (default: off)");
  sub->add_option("--webhook-cert-file", flags->webhook_cert_file,
                  "PEM serving certificate (then its chain) of the webhook");
  sub->add_option("--webhook-key-file", flags->webhook_key_file,
                  "PEM private key of the webhook's certificate");
  return [flags] { return run(*flags); };
}

}  // namespace fitscale::cli
