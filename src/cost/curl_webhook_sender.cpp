#include <curl/curl.h>

#include <memory>

#include "cost/webhook_sender.h"

namespace fitscale {
namespace {

// The response body is not needed; swallow it instead of letting curl print it to stdout.
size_t discard(char*, size_t size, size_t n, void*) { return size * n; }

}  // namespace

std::optional<std::string> CurlWebhookSender::post_json(const std::string& url,
                                                        const std::string& json) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return "cannot initialise libcurl";
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(
      curl_slist_append(nullptr, "Content-Type: application/json"), curl_slist_free_all);
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_POST, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, json.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE, static_cast<long>(json.size()));
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, timeout_s_);
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT, timeout_s_);
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, discard);
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, error);
  const CURLcode rc = curl_easy_perform(curl.get());
  if (rc != CURLE_OK) return std::string(error[0] != 0 ? error : curl_easy_strerror(rc));
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status >= 300) return "HTTP " + std::to_string(status);
  return std::nullopt;
}

}  // namespace fitscale
