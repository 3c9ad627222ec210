// `fitscale cluster`: serves a virtual Kubernetes cluster on loopback (see
// src/vcluster/virtual_cluster.h) and writes a kubeconfig for kubectl and `fitscale run`.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "cli/aws_setup.h"
#include "cli/commands.h"
#include "cli/wall_clock.h"
#include "cloud/sim/sim_cloud.h"
#include "kube/kubeconfig.h"
#include "model/base64.h"
#include "model/catalog.h"
#include "model/error.h"
#include "model/file_text.h"
#include "obs/metrics_registry.h"
#include "obs/obs_server.h"
#include "vcluster/self_signed_tls.h"
#include "vcluster/tls_context.h"
#include "vcluster/virtual_cluster.h"

namespace fitscale::cli {
namespace {

struct ClusterFlags {
  std::string listen = "127.0.0.1:0";
  std::string kubeconfig_out;
  std::string catalog;
  double boot_delay = -1;  // < 0: the simulated cloud's per-type defaults
  std::string cluster_name = "fitscale";
  Seconds interruption_grace = 5;
  std::size_t watch_history = 10000;
  bool verbose = false;
  std::string ec2_endpoint;  // aws: the nodes are this EC2 API's instances tagged with the cluster
  std::string metrics_address = "127.0.0.1:0";  // "off" = none
  // HTTPS (kube-apiserver's flag names). Empty = a generated CA and serving certificate.
  bool plain_http = false;
  std::string tls_cert_file;
  std::string tls_private_key_file;
  std::string client_ca_file;      // clients then need a certificate it signed, or the token
  std::string kubeconfig_ca_file;  // written as certificate-authority-data
};

// What an operator of the virtual cluster watches: its nodes and pods by phase, refreshed from
// the object store between signals.
struct ClusterGauges {
  explicit ClusterGauges(obs::MetricsRegistry& r)
      : nodes(r.gauge("fitscale_cluster_nodes", "Nodes registered in the virtual cluster")),
        pods(r.gauge("fitscale_cluster_pods", "Pods in the virtual cluster by phase", {"phase"})) {}
  // Read from the store's shared objects, not copies: a copy of every pod once a second was
  // gigabytes a minute at 100,000 pods (issue 20). Still one pass over the pods a refresh.
  void refresh(vcluster::ObjectStore& store) const {
    nodes.set(static_cast<double>(store.list_shared("nodes").items.size()));
    std::map<std::string, double> by_phase{
        {"Pending", 0}, {"Running", 0}, {"Succeeded", 0}, {"Failed", 0}};
    for (const auto& pod : store.list_shared("pods").items) {
      const auto status = pod->find("status");
      std::string phase = "Pending";
      if (status != pod->end() && status->is_object()) phase = status->value("phase", "Pending");
      by_phase[phase] += 1;
    }
    for (const auto& [phase, n] : by_phase) pods.set({phase}, n);
  }
  obs::Family nodes;
  obs::Family pods;
};

std::pair<std::string, int> split_listen(const std::string& listen) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    throw InputError("--listen " + listen + ": expected HOST:PORT, e.g. 127.0.0.1:0");
  }
  try {
    std::size_t used = 0;
    int port = std::stoi(listen.substr(colon + 1), &used);
    if (used != listen.size() - colon - 1 || port < 0 || port > 65535)
      throw std::out_of_range("port");
    return {listen.substr(0, colon), port};
  } catch (const std::exception&) {
    throw InputError("--listen " + listen + ": the port must be a number from 0 to 65535");
  }
}

std::string random_token() {
  std::random_device rd;
  std::string t;
  for (int i = 0; i < 32; ++i) t += "0123456789abcdef"[rd() % 16];
  return t;
}

// Flag combinations that cannot work, before anything is read or bound.
void check_tls_flags(const ClusterFlags& f) {
  if (f.tls_cert_file.empty() != f.tls_private_key_file.empty()) {
    throw InputError(f.tls_cert_file.empty()
                         ? "--tls-private-key-file needs --tls-cert-file (give both or neither)"
                         : "--tls-cert-file needs --tls-private-key-file (give both or neither)");
  }
  if (f.plain_http && !f.tls_cert_file.empty()) {
    throw InputError("--plain-http and --tls-cert-file exclude each other");
  }
  if (f.plain_http && !f.client_ca_file.empty()) {
    throw InputError("--client-ca-file needs HTTPS: leave out --plain-http");
  }
  if (f.tls_cert_file.empty() && !f.kubeconfig_ca_file.empty()) {
    throw InputError(
        "--kubeconfig-ca-file needs --tls-cert-file (without it the generated CA is written)");
  }
}

void write_kubeconfig(const std::string& path, const std::string& server, const std::string& name,
                      const std::string& token, const std::string& ca_pem) {
  // It holds a bearer token: readable by its owner only, also when an older one (0644) was there.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ::fchmod(fd, 0600) != 0) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    throw InputError(path + ": cannot write the kubeconfig: " + why);
  }
  ::close(fd);
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw InputError(path + ": cannot write the kubeconfig");
  out << "apiVersion: v1\n"
      << "kind: Config\n"
      << "clusters:\n"
      << "- name: " << name << "\n"
      << "  cluster:\n"
      << "    server: " << server << "\n";
  if (!ca_pem.empty()) out << "    certificate-authority-data: " << base64_encode(ca_pem) << "\n";
  out << "users:\n"
      << "- name: " << name << "-admin\n"
      << "  user:\n"
      << "    token: " << token << "\n"
      << "contexts:\n"
      << "- name: " << name << "\n"
      << "  context:\n"
      << "    cluster: " << name << "\n"
      << "    user: " << name << "-admin\n"
      << "    namespace: default\n"
      << "current-context: " << name << "\n";
  if (!out.flush()) throw InputError(path + ": cannot write the kubeconfig");
}

int run_cluster(const ClusterFlags& f) {
  check_tls_flags(f);
  auto [host, port] = split_listen(f.listen);
  // Named by their flags here; the server names the key file itself when it loads it.
  const std::string serving_pem =
      f.tls_cert_file.empty() ? ""
                              : vcluster::read_certificate_pem(f.tls_cert_file, "--tls-cert-file");
  if (!f.client_ca_file.empty())
    vcluster::read_certificate_pem(f.client_ca_file, "--client-ca-file");
  std::string kubeconfig_ca =
      f.kubeconfig_ca_file.empty()
          ? ""
          : vcluster::read_certificate_pem(f.kubeconfig_ca_file, "--kubeconfig-ca-file");
  // No certificate given: HTTPS with a CA made now, which the kubeconfig then carries.
  vcluster::GeneratedTls generated;
  if (f.tls_cert_file.empty() && !f.plain_http) {
    generated = vcluster::generate_serving_tls({host, "127.0.0.1", "::1", "localhost"},
                                               static_cast<Time>(std::time(nullptr)));
    kubeconfig_ca = generated.ca_pem;
  }
  // A kubeconfig whose CA cannot verify the server would fail every kubectl call: refuse it now.
  if (!f.kubeconfig_ca_file.empty()) {
    const std::string why = vcluster::verify_against(serving_pem, kubeconfig_ca);
    if (!why.empty()) {
      throw InputError("--kubeconfig-ca-file " + f.kubeconfig_ca_file + ": does not verify " +
                       f.tls_cert_file + " (" + why + ")");
    }
  }
  // The simulated cloud sells every type of the catalog: which ones a pool may use is
  // `fitscale run`'s configuration, and its launches say what their Nodes carry.
  CatalogOptions everything;
  Pool any;
  any.name = "default";
  everything.pools = {any};
  Catalog catalog =
      f.catalog.empty()
          ? build_catalog(parse_catalog_csv(default_catalog_csv(), "embedded catalog"), everything)
          : build_catalog(parse_catalog_csv(read_file_text(f.catalog, "catalog"), f.catalog),
                          everything);
  WallClock clock;
  SimCloudOptions sim_options;
  sim_options.cluster_name = f.cluster_name;
  SimCloud sim(catalog, clock, sim_options);
  // The cloud behind the cluster's nodes. Another CloudProvider (an EC2 endpoint) plugs in here;
  // pass nullptr as `sim` then (no fault injection).
  // --ec2-endpoint (added by the aws developer): an EC2 API such as moto is the cloud; keys from
  // the environment (cli/aws_setup.h).
  std::unique_ptr<aws::AwsStack> ec2 =
      f.ec2_endpoint.empty()
          ? nullptr
          : make_aws_stack(Config{}, f.ec2_endpoint, f.cluster_name, clock, &catalog);
  CloudProvider& cloud = ec2 ? static_cast<CloudProvider&>(ec2->provider()) : sim;
  SimCloud* injectable = ec2 ? nullptr : &sim;

  vcluster::VirtualClusterOptions options;
  options.bridge.region = sim_options.region;
  options.bridge.interruption_grace_s = f.interruption_grace;
  if (f.boot_delay >= 0) {
    const auto delay = static_cast<Seconds>(f.boot_delay + 0.999);
    options.bridge.boot_delay = [delay](const std::string&) { return delay; };
  } else {
    options.bridge.boot_delay = [&sim](const std::string& type) { return sim.boot_delay(type); };
  }
  options.watch_history = f.watch_history;
  options.http.token = random_token();
  options.http.tls = {f.tls_cert_file, f.tls_private_key_file, f.client_ca_file, generated.cert_pem,
                      generated.key_pem};
  auto log = [](const std::string& line) {
    std::fprintf(stderr, "fitscale cluster: %s\n", line.c_str());
    std::fflush(stderr);
  };
  options.log = log;
  if (f.verbose) options.http.log = log;

  // Block the stop signals before any thread starts, so only sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  vcluster::VirtualCluster cluster(catalog, cloud, injectable, clock, options);
  const int bound = cluster.listen(host, port);
  const std::string server =
      (f.plain_http ? "http://" : "https://") + host + ":" + std::to_string(bound);
  write_kubeconfig(f.kubeconfig_out, server, f.cluster_name, options.http.token, kubeconfig_ca);
  std::printf("listening on %s\n", server.c_str());
  std::printf("kubeconfig written to %s\n", f.kubeconfig_out.c_str());
  std::fflush(stdout);

  obs::MetricsRegistry registry;
  const ClusterGauges gauges(registry);
  std::unique_ptr<obs::ObsServer> obs_server;
  if (f.metrics_address != "off") {
    obs_server = std::make_unique<obs::ObsServer>(f.metrics_address, registry, [] { return true; });
    obs_server->start();
    std::printf("metrics on %s/metrics\n", obs_server->url().c_str());
    std::fflush(stdout);
  }

  int sig = 0;
  const timespec refresh{1, 0};
  for (;;) {
    gauges.refresh(cluster.store());
    sig = sigtimedwait(&stop_signals, nullptr, &refresh);
    if (sig == SIGINT || sig == SIGTERM) break;
  }
  std::fprintf(stderr, "fitscale cluster: %s received, stopping\n",
               sig == SIGINT ? "SIGINT" : "SIGTERM");
  cluster.stop();
  return 0;
}

}  // namespace

Runner register_cluster(CLI::App& app) {
  auto flags = std::make_shared<ClusterFlags>();
  auto* cmd = app.add_subcommand(
      "cluster", "Serve a virtual Kubernetes cluster (API on loopback) with a simulated cloud");
  cmd->add_option("--listen", flags->listen, "HOST:PORT to serve on; port 0 picks a free port")
      ->capture_default_str();
  cmd->add_option("--kubeconfig-out", flags->kubeconfig_out,
                  "write a kubeconfig for kubectl and fitscale here")
      ->required();
  cmd->add_option("--catalog", flags->catalog,
                  "instance catalog CSV (default: the embedded AWS us-east-1 catalog)");
  cmd->add_option("--boot-delay", flags->boot_delay,
                  "seconds from launch to Node registration (default: 90 s CPU, 180 s GPU)");
  cmd->add_option("--cluster-name", flags->cluster_name,
                  "cluster name (kubeconfig and instance tags)")
      ->capture_default_str();
  cmd->add_option("--interruption-grace", flags->interruption_grace,
                  "seconds between a spot interruption notice and termination")
      ->capture_default_str();
  cmd->add_option(
         "--watch-history", flags->watch_history,
         "changes kept for watches; a watch from an older resourceVersion gets 410 Expired")
      ->capture_default_str();
  cmd->add_option("--metrics-address", flags->metrics_address,
                  "serve /metrics, /healthz, /readyz here (port 0 = a free port; off = none)")
      ->capture_default_str();
  cmd->add_flag("--verbose", flags->verbose, "log every API request to stderr");
  cmd->add_flag("--plain-http", flags->plain_http,
                "serve plain HTTP (default: HTTPS with a CA generated at start and written into "
                "the kubeconfig)");
  cmd->add_option("--tls-cert-file", flags->tls_cert_file,
                  "serve HTTPS with this PEM certificate (and chain) instead of a generated one; "
                  "needs --tls-private-key-file");
  cmd->add_option("--tls-private-key-file", flags->tls_private_key_file,
                  "PEM private key of --tls-cert-file");
  cmd->add_option("--client-ca-file", flags->client_ca_file,
                  "every request needs a client certificate signed by this CA or the "
                  "kubeconfig's bearer token (401 otherwise)");
  cmd->add_option("--kubeconfig-ca-file", flags->kubeconfig_ca_file,
                  "with --tls-cert-file: CA that signed it, written into the kubeconfig as "
                  "certificate-authority-data (default: none, clients use the system CAs)");
  cmd->add_option(
      "--ec2-endpoint", flags->ec2_endpoint,
      "EC2 API URL (e.g. moto): nodes are its instances tagged fitscale.io/cluster=NAME; "
      "keys from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the AWS profile");
  return [flags] { return run_cluster(*flags); };
}

}  // namespace fitscale::cli
