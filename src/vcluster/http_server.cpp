#include "vcluster/http_server.h"

#include <stdexcept>

#include "model/error.h"
#include "vcluster/api_error.h"
#include "vcluster/client_liveness.h"
#include "vcluster/connection_threads.h"
#include "vcluster/discovery.h"
#include "vcluster/openapi.h"
#include "vcluster/request_body.h"
#include "vcluster/selectors.h"
#include "vcluster/watch_stream.h"

namespace fitscale::vcluster {
namespace {

constexpr const char* kJson = "application/json";

void send(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  // A stored string is valid UTF-8 (the parser checks), but a name taken from a URL may not be:
  // replace such bytes rather than fail the answer.
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), kJson);
}

void send_error(httplib::Response& res, const ApiError& e) { send(res, e.code(), status_json(e)); }

std::unique_ptr<httplib::Server> make_server(const TlsFiles& tls) {
  if (!tls.enabled()) return std::make_unique<httplib::Server>();
  // httplib calls the setup back inside its constructor and only reports a bool: keep the
  // reason (which file, what is wrong with it) to throw once it has returned.
  std::string error;
  auto server = std::make_unique<httplib::SSLServer>([&](SSL_CTX& ctx) {
    try {
      configure_tls(ctx, tls);
      return true;
    } catch (const InputError& e) {
      error = e.what();
      return false;
    }
  });
  if (!server->is_valid()) {
    throw InputError(error.empty() ? "cannot set up TLS (OpenSSL)" : error);
  }
  return server;
}

}  // namespace

ApiHttpServer::ApiHttpServer(ObjectStore& store, RestApi& api, CloudBridge& bridge,
                             HttpServerOptions options)
    : store_(store),
      api_(api),
      bridge_(bridge),
      options_(std::move(options)),
      server_(make_server(options_.tls)) {
  const std::size_t threads = options_.worker_threads;
  server_->new_task_queue = [threads] { return new ConnectionThreads(threads); };
  // Without it a response's body waits for the client's delayed ACK of its headers (40 ms per
  // request on Linux). Accepted sockets inherit it from the listening socket.
  server_->set_tcp_nodelay(true);
  // kube-apiserver's limit; httplib stops reading a longer body and answers 413 (Status below).
  server_->set_payload_max_length(kMaxRequestBodyBytes);
  server_->set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
        if (res.status == 413) {
          send_error(res, ApiError(413, "RequestEntityTooLarge",
                                   "the request entity is too large (limit " +
                                       std::to_string(kMaxRequestBodyBytes) + " bytes)"));
          return httplib::Server::HandlerResponse::Handled;
        }
        return httplib::Server::HandlerResponse::Unhandled;
      }));
  auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    dispatch(req, res);
  };
  server_->Get(".*", handler);
  server_->Post(".*", handler);
  server_->Put(".*", handler);
  server_->Patch(".*", handler);
  server_->Delete(".*", handler);
  server_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req)) {
      send_error(res, ApiError(401, "Unauthorized", "Unauthorized"));
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  if (options_.log) {
    server_->set_logger([this](const httplib::Request& req, const httplib::Response& res) {
      std::string q;
      for (const auto& [k, v] : req.params) q += (q.empty() ? "?" : "&") + k + "=" + v;
      options_.log(req.method + " " + req.path + q + " " + std::to_string(res.status));
    });
  }
}

bool ApiHttpServer::authorized(const httplib::Request& req) const {
  const bool has_token = req.has_header("Authorization");
  const bool token_ok = !options_.token.empty() &&
                        req.get_header_value("Authorization") == "Bearer " + options_.token;
  if (options_.tls.client_ca_file.empty()) {
    return options_.token.empty() || !has_token || token_ok;
  }
  // As kube-apiserver: a verified client certificate authenticates before any token is read.
  return peer_certificate_verified(req.ssl) || token_ok;
}

int ApiHttpServer::bind(const std::string& host, int port) {
  int bound = port;
  if (port == 0) {
    bound = server_->bind_to_any_port(host);
    if (bound < 0) throw std::runtime_error("cannot bind " + host + ": no free port");
  } else if (!server_->bind_to_port(host, port)) {
    throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) +
                             " (in use, or not a local address)");
  }
  address_ = host + ":" + std::to_string(bound);
  return bound;
}

void ApiHttpServer::serve() { server_->listen_after_bind(); }

void ApiHttpServer::stop() {
  store_.close();  // ends every watch, so the worker threads can be joined
  server_->stop();
}

bool ApiHttpServer::discovery(const std::string& path, httplib::Response& res) {
  if (path == "/version" || path == "/version/") {
    send(res, 200, version_info());
    return true;
  }
  if (path == "/healthz" || path == "/livez" || path == "/readyz") {
    res.set_content("ok", "text/plain");
    return true;
  }
  auto seg = split_path(path);
  if (seg.size() == 1 && seg[0] == "api") {
    send(res, 200, core_api_versions(address_));
    return true;
  }
  if (seg.size() == 2 && seg[0] == "api") {
    if (auto l = api_resource_list(api_.registry(), "", seg[1])) {
      send(res, 200, *l);
    } else {
      send_error(res,
                 ApiError(404, "NotFound", "the server could not find the requested resource"));
    }
    return true;
  }
  if (seg.size() == 1 && seg[0] == "apis") {
    send(res, 200, api_group_list(api_.registry()));
    return true;
  }
  if (seg.size() == 2 && seg[0] == "apis") {
    if (auto g = api_group(api_.registry(), seg[1])) {
      send(res, 200, *g);
    } else {
      send_error(res,
                 ApiError(404, "NotFound", "the server could not find the requested resource"));
    }
    return true;
  }
  if (seg.size() == 3 && seg[0] == "apis") {
    if (auto l = api_resource_list(api_.registry(), seg[1], seg[2])) {
      send(res, 200, *l);
    } else {
      send_error(res,
                 ApiError(404, "NotFound", "the server could not find the requested resource"));
    }
    return true;
  }
  return false;
}

void ApiHttpServer::dispatch(const httplib::Request& req, httplib::Response& res) {
  const std::string prefix = "/fitscale.io/sim-cloud/";
  if (req.path.rfind(prefix, 0) == 0) {
    sim_cloud(req.path.substr(prefix.size()), req, res);
    return;
  }
  if (req.method == "GET" && req.path.rfind("/openapi/", 0) == 0) {
    const OpenApiAnswer doc =
        openapi_answer(api_.registry(), req.path, req.get_header_value("Accept"));
    res.status = doc.status;
    res.set_content(doc.body, doc.content_type);
    return;
  }
  if (req.method == "GET" && discovery(req.path, res)) return;
  std::optional<ApiPath> path;
  try {
    path = parse_api_path(api_.registry(), req.path);
  } catch (const ApiError& e) {
    send_error(res, e);
    return;
  }
  if (!path) {
    send_error(res, ApiError(404, "NotFound", "the server could not find the requested resource"));
    return;
  }
  ApiRequest ar;
  ar.shared_items_ok = true;  // send() below serializes shared list items
  ar.method = req.method;
  ar.path = *path;
  for (const auto& [k, v] : req.params) ar.query[k] = v;
  ar.body = req.body;
  ar.content_type = req.get_header_value("Content-Type");
  ar.accept = req.get_header_value("Accept");

  if (req.method == "GET" && (path->legacy_watch || query_flag(ar.query, "watch"))) {
    auto w = std::make_shared<WatchRequest>();
    try {
      w->resource = path->resource;
      w->ns = path->ns;
      w->name = path->name;
      w->labels = parse_label_selector(ar.query["labelSelector"]);
      w->fields = parse_field_selector_for(path->resource ? path->resource->plural : "",
                                           ar.query["fieldSelector"]);
      read_watch_options(ar.query, *w);
      w->present = api_.presenter(*path->resource);
    } catch (const ApiError& e) {
      send_error(res, e);
      return;
    }
    auto liveness =
        std::make_shared<ClientLiveness>(req.remote_addr, req.remote_port, req.local_port);
    res.status = 200;
    // The stream=watch parameter (the API server's own watch media type) also keeps httplib from
    // gzip-compressing the stream: its compressor would hold events back until the watch ends.
    res.set_chunked_content_provider(
        "application/json;stream=watch", [this, w, liveness](size_t, httplib::DataSink& sink) {
          stream_watch(
              store_, *w,
              [&sink](const std::string& line) {
                return sink.is_writable() && sink.write(line.data(), line.size());
              },
              [liveness] { return liveness->alive(); });
          sink.done();
          return true;
        });
    return;
  }
  if (req.method == "GET" && ar.query.count("sendInitialEvents")) {
    send_error(res, ApiError(422, "Invalid",
                             "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: "
                             "Forbidden: sendInitialEvents is forbidden for list")
                        .with_cause("FieldValueForbidden", "sendInitialEvents",
                                    "Forbidden: sendInitialEvents is forbidden for list"));
    return;
  }
  ApiResponse out = api_.handle(ar);
  for (const auto& w : out.warnings) {
    res.headers.emplace("Warning", "299 - " + nlohmann::json(w).dump());
  }
  if (out.text) {
    res.status = out.status;
    res.set_content(*out.text, "text/plain");
    return;
  }
  if (out.shared_items) {
    // The list envelope, then its items serialized straight from the store's objects.
    std::string text = out.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text.pop_back();  // the envelope's closing brace
    text += R"(,"items":[)";
    bool first = true;
    for (const auto& obj : *out.shared_items) {
      if (!first) text += ',';
      first = false;
      text += obj->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    text += "]}";
    res.status = out.status;
    // Moved in, not copied (set_content takes a const reference): a full list is tens of MB.
    res.body = std::move(text);
    res.set_header("Content-Type", kJson);
    return;
  }
  send(res, out.status, out.body);
}

}  // namespace fitscale::vcluster
