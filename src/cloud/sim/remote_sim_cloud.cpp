#include "cloud/sim/remote_sim_cloud.h"

#include <curl/curl.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cloud/sim/sim_cloud_wire.h"
#include "model/error.h"

namespace fitscale {
namespace {

size_t append(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

}  // namespace

RemoteSimCloud::RemoteSimCloud(RemoteSimCloudOptions options) : options_(std::move(options)) {
  while (!options_.base_url.empty() && options_.base_url.back() == '/')
    options_.base_url.pop_back();
  if (options_.base_url.empty()) throw InputError("sim cloud: the server URL is empty");
}

std::string RemoteSimCloud::request(const std::string& method, const std::string& path,
                                    const std::string& body) const {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) throw std::runtime_error("sim cloud: cannot initialise libcurl");
  const std::string url = options_.base_url + "/fitscale.io/sim-cloud/" + path;
  std::string response;
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Accept: application/json");
  if (!options_.bearer_token.empty()) {
    headers =
        curl_slist_append(headers, ("Authorization: Bearer " + options_.bearer_token).c_str());
  }
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_guard(headers,
                                                                           &curl_slist_free_all);
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, options_.timeout_ms);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  char error[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  if (options_.insecure_skip_tls_verify) {
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  // The PEM strings live in options_, which outlives this request (curl keeps pointers).
  if (!options_.ca_pem.empty()) {
    curl_blob ca{const_cast<char*>(options_.ca_pem.data()), options_.ca_pem.size(),
                 CURL_BLOB_NOCOPY};
    curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
    curl_easy_setopt(c, CURLOPT_CAINFO, nullptr);
    curl_easy_setopt(c, CURLOPT_CAPATH, nullptr);
  }
  if (!options_.client_cert_pem.empty()) {
    curl_blob cert{const_cast<char*>(options_.client_cert_pem.data()),
                   options_.client_cert_pem.size(), CURL_BLOB_NOCOPY};
    curl_blob key{const_cast<char*>(options_.client_key_pem.data()), options_.client_key_pem.size(),
                  CURL_BLOB_NOCOPY};
    curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(c, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
    curl_easy_setopt(c, CURLOPT_SSLKEY_BLOB, &key);
  }
  if (method == "POST") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    throw std::runtime_error("sim cloud: " + method + " " + url + ": " +
                             (error[0] != '\0' ? error : curl_easy_strerror(rc)));
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status >= 300) {
    std::string message = response;
    try {
      auto j = nlohmann::json::parse(response);
      if (j.contains("message")) message = j["message"].get<std::string>();
    } catch (const std::exception&) {
    }
    throw std::runtime_error("sim cloud: " + method + " " + url + ": HTTP " +
                             std::to_string(status) + ": " + message);
  }
  return response;
}

LaunchResult RemoteSimCloud::launch(const LaunchRequest& req) {
  // The server takes at most kMaxLaunchCount machines a request; a burst asks for thousands of
  // one type at once (3,505 t3a.medium for 50,000 pods), which were refused whole. Each part
  // has its own client token derived from the request's, so a retried launch launches nothing
  // twice, and a share of the hourly cap in proportion to its count.
  constexpr int kMaxLaunchCount = 1000;
  LaunchResult out;
  for (int done = 0, part = 0; done < req.count; ++part) {
    LaunchRequest chunk = req;
    chunk.count = std::min(kMaxLaunchCount, req.count - done);
    if (part > 0 && !req.client_token.empty())
      chunk.client_token = req.client_token + "-" + std::to_string(part);
    if (req.max_total_micros_per_hour && chunk.count != req.count)
      chunk.max_total_micros_per_hour = *req.max_total_micros_per_hour * chunk.count / req.count;
    done += chunk.count;
    try {
      LaunchResult r = launch_result_from_json(
          nlohmann::json::parse(request("POST", "launch", launch_request_to_json(chunk).dump())));
      out.launched.insert(out.launched.end(), std::make_move_iterator(r.launched.begin()),
                          std::make_move_iterator(r.launched.end()));
      out.failures.insert(out.failures.end(), std::make_move_iterator(r.failures.begin()),
                          std::make_move_iterator(r.failures.end()));
    } catch (const std::exception& e) {
      out.failures.push_back(
          LaunchFailure{req.instance_type + "/" + req.zone + "/" + to_string(req.capacity_type),
                        chunk.count, "RequestError", e.what(), false});
    }
  }
  return out;
}

void RemoteSimCloud::terminate(const std::vector<std::string>& ids) {
  if (ids.empty()) return;
  request("POST", "terminate", nlohmann::json{{"ids", ids}}.dump());
}

void RemoteSimCloud::refresh() const {
  const std::string path = listing_generation_
                               ? "instances?unchangedSince=" + std::to_string(*listing_generation_)
                               : "instances";
  const std::string body = request("GET", path, "");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(std::string("sim cloud: instances: invalid JSON: ") + e.what());
  }
  if (listing_generation_ && j.value("unchanged", false)) return;
  std::vector<Instance> out;
  for (const auto& i : j.value("instances", nlohmann::json::array()))
    out.push_back(instance_from_json(i));
  listing_ = std::move(out);
  listing_generation_.reset();
  if (j.contains("generation") && j["generation"].is_number_unsigned())
    listing_generation_ = j["generation"].get<std::uint64_t>();
}

std::vector<Instance> RemoteSimCloud::list_instances() {
  refresh();
  return listing_;
}

std::optional<std::uint64_t> RemoteSimCloud::generation() const {
  try {
    refresh();
  } catch (const std::exception&) {
    listing_generation_.reset();
    return std::nullopt;  // the controller lists, and list_instances() throws the reason
  }
  return listing_generation_;
}

const std::vector<Instance>* RemoteSimCloud::lend_instances() const {
  return listing_generation_ ? &listing_ : nullptr;
}

}  // namespace fitscale
