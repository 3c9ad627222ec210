#include "kube/api_client.h"

#include <curl/curl.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace fitscale {

std::string describe_failure(const HttpResponse& r) {
  if (!r.error.empty()) return r.error;
  std::string msg = "HTTP " + std::to_string(r.status);
  try {
    const nlohmann::json body = nlohmann::json::parse(r.body);
    if (body.contains("message") && body["message"].is_string())
      msg += ": " + body["message"].get<std::string>();
  } catch (const nlohmann::json::exception&) {
  }
  return msg;
}

struct ApiClient::Handle {
  CURL* curl = nullptr;
  // curl's own account of a failure ("SSL certificate problem: unable to get local issuer
  // certificate"), which says far more than curl_easy_strerror's fixed text.
  char error[CURL_ERROR_SIZE] = {};
  ~Handle() {
    if (curl) curl_easy_cleanup(curl);
  }
};

namespace {

struct CurlHeaders {
  curl_slist* list = nullptr;
  ~CurlHeaders() { curl_slist_free_all(list); }
  void add(const std::string& h) { list = curl_slist_append(list, h.c_str()); }
};

size_t append_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

struct StreamState {
  const std::function<bool(std::string_view)>* on_line;
  const std::atomic<bool>* stop;
  std::string pending;
  std::string error_body;  // the body of a non-2xx answer, kept for the caller
  long status = 0;
  CURL* curl = nullptr;
  bool aborted = false;
};

size_t stream_body(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<StreamState*>(user);
  size_t len = size * n;
  if (st->status == 0) curl_easy_getinfo(st->curl, CURLINFO_RESPONSE_CODE, &st->status);
  if (st->status < 200 || st->status >= 300) {
    st->error_body.append(data, len);
    return len;
  }
  st->pending.append(data, len);
  size_t start = 0;
  for (size_t nl; (nl = st->pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string_view line(st->pending.data() + start, nl - start);
    if (line.empty()) continue;
    if (!(*st->on_line)(line)) {
      st->aborted = true;
      return 0;  // makes curl fail the transfer with CURLE_WRITE_ERROR
    }
  }
  st->pending.erase(0, start);
  return len;
}

bool is_tls_error(CURLcode rc) {
  switch (rc) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_USE_SSL_FAILED:
      return true;
    default:
      return false;
  }
}

int stream_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* st = static_cast<StreamState*>(user);
  return st->stop->load() ? 1 : 0;
}

}  // namespace

std::string url_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

ApiClient::ApiClient(KubeConfig config, ApiClientOptions options)
    : config_(std::move(config)),
      options_(std::move(options)),
      handle_(std::make_unique<Handle>()) {
  handle_->curl = curl_easy_init();
  if (!handle_->curl) throw std::runtime_error("cannot create a libcurl handle");
}

ApiClient::~ApiClient() = default;

std::string ApiClient::describe(int rc) const {
  if (handle_->error[0] != '\0') return handle_->error;
  return curl_easy_strerror(static_cast<CURLcode>(rc));
}

namespace {

// Everything every request shares: TLS, credentials, timeouts. Reset per request because
// curl_easy_reset keeps the connection cache but forgets the options.
void common_options(CURL* curl, char* error, const KubeConfig& c, const ApiClientOptions& o,
                    const std::string& url, CurlHeaders& headers) {
  curl_easy_reset(curl);
  error[0] = '\0';
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, o.connect_timeout_s);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, o.user_agent.c_str());
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  if (c.insecure_skip_tls_verify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!c.ca_pem.empty()) {
    // curl keeps a pointer to the PEM (NOCOPY): the config outlives the handle. Only this CA is
    // trusted, as kubectl does: no system bundle next to it.
    curl_blob blob{const_cast<char*>(c.ca_pem.data()), c.ca_pem.size(), CURL_BLOB_NOCOPY};
    curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &blob);
    curl_easy_setopt(curl, CURLOPT_CAINFO, nullptr);
    curl_easy_setopt(curl, CURLOPT_CAPATH, nullptr);
  }
  if (!c.client_cert_pem.empty()) {
    curl_blob cert{const_cast<char*>(c.client_cert_pem.data()), c.client_cert_pem.size(),
                   CURL_BLOB_NOCOPY};
    curl_blob key{const_cast<char*>(c.client_key_pem.data()), c.client_key_pem.size(),
                  CURL_BLOB_NOCOPY};
    curl_easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
    curl_easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &key);
  }
  headers.add("Accept: application/json");
  if (!c.token.empty()) headers.add("Authorization: Bearer " + c.token);
}

}  // namespace

HttpResponse ApiClient::get(const std::string& path) { return send("GET", path, ""); }

HttpResponse ApiClient::send(const std::string& method, const std::string& path,
                             const std::string& body, const std::string& content_type) {
  CURL* curl = handle_->curl;
  CurlHeaders headers;
  common_options(curl, handle_->error, config_, options_, config_.server + path, headers);
  HttpResponse r;
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, options_.request_timeout_s);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
  if (method == "GET") {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
    if (!body.empty() || method != "DELETE") {
      headers.add("Content-Type: " + content_type);
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    }
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list);
  CURLcode rc = curl_easy_perform(curl);
  if (rc != CURLE_OK) {
    r.error = method + " " + path + ": " + describe(rc);
    r.tls_failure = is_tls_error(rc);
    r.status = 0;
    return r;
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
  return r;
}

StreamEnd ApiClient::stream(const std::string& path,
                            const std::function<bool(std::string_view)>& on_line,
                            const std::atomic<bool>& stop, HttpResponse* failure) {
  CURL* curl = handle_->curl;
  CurlHeaders headers;
  common_options(curl, handle_->error, config_, options_, config_.server + path, headers);
  StreamState st{&on_line, &stop, {}, {}, 0, curl, false};
  curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, stream_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &st);
  // The progress callback runs about once a second even on an idle stream: that is how a stop
  // request interrupts a watch that has nothing to say.
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, stream_progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &st);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, options_.watch_idle_timeout_s);
  CURLcode rc = curl_easy_perform(curl);
  if (stop.load()) return StreamEnd::Stopped;
  if (st.aborted) return StreamEnd::Aborted;
  if (st.status == 0) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &st.status);
  if (rc != CURLE_OK || st.status < 200 || st.status >= 300) {
    if (failure) {
      failure->status = rc == CURLE_OK ? st.status : 0;
      failure->body = std::move(st.error_body);
      failure->error = rc == CURLE_OK ? "" : "GET " + path + ": " + describe(rc);
      failure->tls_failure = rc != CURLE_OK && is_tls_error(rc);
    }
    return StreamEnd::Failed;
  }
  // A last line without a newline is still an event.
  if (!st.pending.empty() && !on_line(st.pending)) return StreamEnd::Aborted;
  return StreamEnd::Closed;
}

}  // namespace fitscale
