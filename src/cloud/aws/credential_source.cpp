#include "cloud/aws/credential_source.h"

#include "cloud/aws/aws_error.h"
#include "model/error.h"

namespace fitscale::aws {

RefreshingCredentials::RefreshingCredentials(std::string description, Fetch fetch,
                                             TemporaryCredentials first)
    : description_(std::move(description)), fetch_(std::move(fetch)), current_(std::move(first)) {}

Credentials RefreshingCredentials::credentials(Time now) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!current_.expiration || now < *current_.expiration - kCredentialRefreshBefore) {
    return current_.credentials;
  }
  if (now < retry_after_ && now < *current_.expiration) return current_.credentials;
  try {
    auto next = fetch_();
    ++fetches_;
    if (next.credentials.empty()) {
      throw AwsError("RefreshCredentials", "NoCredentials", description_ + " returned no keys", 0);
    }
    current_ = std::move(next);
  } catch (const std::exception& e) {
    // Still valid: keep signing with them, and ask again a little later.
    if (now < *current_.expiration) {
      retry_after_ = now + kCredentialRetryAfter;
      return current_.credentials;
    }
    throw AwsError("RefreshCredentials", "ExpiredToken",
                   "the credentials from " + description_ + " expired at " +
                       format_rfc3339(*current_.expiration) +
                       " and could not be refreshed: " + e.what(),
                   0);
  }
  return current_.credentials;
}

int RefreshingCredentials::fetches() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fetches_;
}

std::optional<Time> RefreshingCredentials::expiration() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return current_.expiration;
}

}  // namespace fitscale::aws
