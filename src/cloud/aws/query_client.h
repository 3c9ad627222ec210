#pragma once
// The AWS query protocol (EC2, Auto Scaling, IAM): a form POST of Action=...&Version=... signed
// with SigV4, answered with XML. Retries throttling and 5xx with jittered exponential backoff,
// follows NextToken pagination, and turns error bodies into AwsError with the AWS code.
#include <functional>
#include <memory>
#include <pugixml.hpp>
#include <string>

#include "cloud/aws/aws_error.h"
#include "cloud/aws/credential_source.h"
#include "cloud/aws/http_transport.h"
#include "cloud/aws/sigv4.h"
#include "controller/interfaces.h"

namespace fitscale::aws {

struct QueryService {
  std::string endpoint;  // "https://ec2.us-east-1.amazonaws.com" or "http://127.0.0.1:5000"
  std::string region = "us-east-1";
  std::string service;  // signing name: "ec2", "autoscaling", "iam"
  std::string version;  // API version: "2016-11-15", "2011-01-01", "2010-05-08"
};

QueryService ec2_service(const std::string& region, const std::string& endpoint = "");
QueryService autoscaling_service(const std::string& region, const std::string& endpoint = "");
QueryService iam_service(const std::string& endpoint = "");

struct RetryPolicy {
  int max_attempts = 6;  // first try included
  long base_delay_ms = 100;
  long max_delay_ms = 10000;
};

// Full jitter: a uniform draw in [0, min(max, base * 2^retry)).
long backoff_delay_ms(const RetryPolicy& policy, int retry, double uniform01);

using XmlDocument = std::unique_ptr<pugi::xml_document>;

class QueryClient {
 public:
  // `uniform01` draws from [0, 1) for the jitter (injected: no global RNG).
  QueryClient(HttpTransport& transport, Credentials credentials, QueryService service,
              const Clock& clock, Sleeper& sleeper, std::function<double()> uniform01,
              RetryPolicy retry = {});
  // Keys asked of `credentials` for every attempt (temporary ones are refreshed there).
  QueryClient(HttpTransport& transport, std::shared_ptr<CredentialSource> credentials,
              QueryService service, const Clock& clock, Sleeper& sleeper,
              std::function<double()> uniform01, RetryPolicy retry = {});

  // One action; the returned document's root is "<Action>Response". Throws AwsError.
  XmlDocument call(const std::string& action, const NameValues& params);

  // Every page of a paginated action: `page` is called with each response's root element;
  // NextToken (EC2: nextToken, Auto Scaling: NextToken) is followed until absent.
  void call_paginated(const std::string& action, const NameValues& params,
                      const std::function<void(const pugi::xml_node&)>& page,
                      int max_pages = 10000);

  const QueryService& service() const { return service_; }
  int attempts() const { return attempts_; }  // HTTP requests sent so far (retries included)

 private:
  HttpTransport& transport_;
  std::shared_ptr<CredentialSource> credentials_;
  QueryService service_;
  const Clock& clock_;
  Sleeper& sleeper_;
  std::function<double()> uniform01_;
  RetryPolicy retry_;
  std::string host_, path_;
  int attempts_ = 0;
};

// Form encoding of the query protocol (SigV4's percent-encoding, so what is signed is what is
// sent).
std::string form_encode(const NameValues& params);

// Child element text, "" when absent.
std::string text(const pugi::xml_node& node, const char* child);

}  // namespace fitscale::aws
