#include "cloud/aws/curl_transport.h"

#include <curl/curl.h>

#include <chrono>
#include <memory>
#include <string_view>
#include <thread>

namespace fitscale::aws {
namespace {

size_t append_body(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

// One header line ("Name: value\r\n"); the status line and the blank line have no colon.
size_t append_header(char* data, size_t size, size_t count, void* user) {
  const std::string_view line(data, size * count);
  const auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    for (char& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
      value.remove_suffix(1);
    static_cast<NameValues*>(user)->emplace_back(std::move(name), std::string(value));
  }
  return size * count;
}

}  // namespace

void ThreadSleeper::sleep_ms(long ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

HttpExchange CurlTransport::exchange(const std::string& method, const std::string& url,
                                     const NameValues& headers, const std::string& body) {
  HttpExchange exchanged;
  HttpResponse& out = exchanged.response;
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) {
    out.transport_error = "curl_easy_init failed";
    return exchanged;
  }
  curl_slist* list = nullptr;
  for (const auto& [name, value] : headers)
    list = curl_slist_append(list, (name + ": " + value).c_str());
  // libcurl would add "Expect: 100-continue" and its own Accept; neither is signed, both harmless,
  // but Expect delays small posts, so drop it.
  list = curl_slist_append(list, "Expect:");
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_list(list,
                                                                          curl_slist_free_all);
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  if (method == "GET") {
    curl_easy_setopt(curl.get(), CURLOPT_HTTPGET, 1L);
  } else {
    // PUT (the instance metadata token) and POST both send `body`, possibly empty.
    curl_easy_setopt(curl.get(), CURLOPT_POST, 1L);
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    if (method != "POST") curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, header_list.get());
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &out.body);
  curl_easy_setopt(curl.get(), CURLOPT_HEADERFUNCTION, append_header);
  curl_easy_setopt(curl.get(), CURLOPT_HEADERDATA, &exchanged.headers);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, timeout_ms_);
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms_);
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, error);
  const CURLcode rc = curl_easy_perform(curl.get());
  if (rc != CURLE_OK) {
    out.transport_error = error[0] ? error : curl_easy_strerror(rc);
    out.body.clear();
    return exchanged;
  }
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &out.status);
  return exchanged;
}

}  // namespace fitscale::aws
