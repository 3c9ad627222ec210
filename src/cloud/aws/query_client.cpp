#include "cloud/aws/query_client.h"

#include <algorithm>
#include <cmath>

namespace fitscale::aws {

QueryService ec2_service(const std::string& region, const std::string& endpoint) {
  return {endpoint.empty() ? "https://ec2." + region + ".amazonaws.com" : endpoint, region, "ec2",
          "2016-11-15"};
}
QueryService autoscaling_service(const std::string& region, const std::string& endpoint) {
  return {endpoint.empty() ? "https://autoscaling." + region + ".amazonaws.com" : endpoint, region,
          "autoscaling", "2011-01-01"};
}
QueryService iam_service(const std::string& endpoint) {
  // IAM is global and signs in us-east-1.
  return {endpoint.empty() ? "https://iam.amazonaws.com" : endpoint, "us-east-1", "iam",
          "2010-05-08"};
}

long backoff_delay_ms(const RetryPolicy& policy, int retry, double uniform01) {
  const double cap = std::min<double>(
      static_cast<double>(policy.max_delay_ms),
      static_cast<double>(policy.base_delay_ms) * std::pow(2.0, std::min(retry, 30)));
  return static_cast<long>(cap * std::clamp(uniform01, 0.0, 1.0));
}

std::string form_encode(const NameValues& params) {
  std::string out;
  for (const auto& [k, v] : params) {
    if (!out.empty()) out += '&';
    out += uri_encode(k, false) + "=" + uri_encode(v, false);
  }
  return out;
}

std::string text(const pugi::xml_node& node, const char* child) {
  return node.child(child).text().get();
}

QueryClient::QueryClient(HttpTransport& transport, Credentials credentials, QueryService service,
                         const Clock& clock, Sleeper& sleeper, std::function<double()> uniform01,
                         RetryPolicy retry)
    : QueryClient(transport, std::make_shared<StaticCredentials>(std::move(credentials)),
                  std::move(service), clock, sleeper, std::move(uniform01), retry) {}

QueryClient::QueryClient(HttpTransport& transport, std::shared_ptr<CredentialSource> credentials,
                         QueryService service, const Clock& clock, Sleeper& sleeper,
                         std::function<double()> uniform01, RetryPolicy retry)
    : transport_(transport),
      credentials_(std::move(credentials)),
      service_(std::move(service)),
      clock_(clock),
      sleeper_(sleeper),
      uniform01_(std::move(uniform01)),
      retry_(retry) {
  // "scheme://host[:port][/path]": Host is what SigV4 signs, so it must be exactly what is sent.
  auto rest = service_.endpoint;
  if (auto p = rest.find("://"); p != std::string::npos) rest = rest.substr(p + 3);
  auto slash = rest.find('/');
  host_ = rest.substr(0, slash);
  path_ = slash == std::string::npos ? "/" : rest.substr(slash);
}

XmlDocument QueryClient::call(const std::string& action, const NameValues& params) {
  NameValues all = {{"Action", action}, {"Version", service_.version}};
  all.insert(all.end(), params.begin(), params.end());
  const std::string body = form_encode(all);
  for (int attempt = 0;; ++attempt) {
    RequestToSign req;
    req.method = "POST";
    req.path = path_;
    req.payload = body;
    req.headers = {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"},
                   {"Host", host_}};
    const Time now = clock_.now();
    const auto authorization =
        sign(req, credentials_->credentials(now), service_.region, service_.service, now);
    req.headers.emplace_back("Authorization", authorization);
    ++attempts_;
    const HttpResponse resp = transport_.post(service_.endpoint, req.headers, body);
    std::string code, message;
    if (resp.status == 0) {
      code = "RequestError";
      message = resp.transport_error + " (" + service_.endpoint + ")";
    } else if (resp.status >= 200 && resp.status < 300) {
      auto doc = std::make_unique<pugi::xml_document>();
      if (!doc->load_buffer(resp.body.data(), resp.body.size())) {
        throw AwsError(action, "MalformedResponse", "the response is not XML", resp.status);
      }
      return doc;
    } else {
      auto decoded = decode_error(resp.body, resp.status);
      code = decoded.code;
      message = decoded.message;
    }
    if (!is_retryable(code, resp.status) || attempt + 1 >= retry_.max_attempts) {
      if (attempt > 0) message += " (after " + std::to_string(attempt + 1) + " attempts)";
      throw AwsError(action, code, message, resp.status);
    }
    sleeper_.sleep_ms(backoff_delay_ms(retry_, attempt, uniform01_()));
  }
}

void QueryClient::call_paginated(const std::string& action, const NameValues& params,
                                 const std::function<void(const pugi::xml_node&)>& page,
                                 int max_pages) {
  std::string token;
  for (int n = 0; n < max_pages; ++n) {
    NameValues p = params;
    if (!token.empty()) p.emplace_back("NextToken", token);
    auto doc = call(action, p);
    const pugi::xml_node root = doc->document_element();
    page(root);
    // EC2 puts nextToken under the response; Auto Scaling under <ActionResult>.
    token = text(root, "nextToken");
    if (token.empty()) token = text(root.first_child(), "NextToken");
    if (token.empty()) token = text(root, "NextToken");
    if (token.empty()) return;
  }
  throw AwsError(action, "TooManyPages",
                 "pagination did not end after " + std::to_string(max_pages) + " pages", 200);
}

}  // namespace fitscale::aws
