#pragma once
// Where a signer gets its keys each time it signs. Static keys never change; temporary ones
// (web identity, container credentials, instance metadata) expire, so they are fetched again
// before they do. Nothing here reads a clock: the caller passes `now` (the injected Clock's).
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "cloud/aws/sigv4.h"
#include "model/time.h"

namespace fitscale::aws {

class CredentialSource {
 public:
  virtual ~CredentialSource() = default;
  // Keys to sign a request made at `now`. Throws AwsError when they cannot be had.
  virtual Credentials credentials(Time now) = 0;
  // "environment", "web identity (arn:aws:iam::1:role/x)", ...: for messages, never a secret.
  virtual std::string describe() const = 0;
};

class StaticCredentials final : public CredentialSource {
 public:
  explicit StaticCredentials(Credentials c) : credentials_(std::move(c)) {}
  Credentials credentials(Time) override { return credentials_; }
  std::string describe() const override { return credentials_.source; }

 private:
  Credentials credentials_;
};

// What one fetch of temporary credentials returned.
struct TemporaryCredentials {
  Credentials credentials;
  std::optional<Time> expiration;  // nullopt: they do not expire (never fetched again)
};

// The AWS SDKs refresh temporary credentials some minutes before their Expiration, so that no
// request is signed with keys that lapse in flight.
inline constexpr Seconds kCredentialRefreshBefore = 300;  // 5 minutes

// After a failed refresh, the old (still valid) keys are used this long before asking again, so
// an unreachable endpoint does not slow every request by its timeout.
inline constexpr Seconds kCredentialRetryAfter = 30;

// Holds the last fetched credentials and fetches again once `now` is within
// kCredentialRefreshBefore of their expiration. A failed refresh keeps the old keys while they
// are still valid (asking again kCredentialRetryAfter later); once they have expired every
// request asks, and throws if the fetch fails. Thread-safe: the EC2, Auto Scaling and SQS
// clients share one.
class RefreshingCredentials final : public CredentialSource {
 public:
  using Fetch = std::function<TemporaryCredentials()>;
  // `first` is what the chain already fetched at start (so it is not asked twice).
  RefreshingCredentials(std::string description, Fetch fetch, TemporaryCredentials first);
  Credentials credentials(Time now) override;
  std::string describe() const override { return description_; }
  int fetches() const;  // refreshes after the first fetch, for tests and logs
  std::optional<Time> expiration() const;

 private:
  std::string description_;
  Fetch fetch_;
  mutable std::mutex mutex_;
  TemporaryCredentials current_;
  int fetches_ = 0;
  Time retry_after_ = 0;  // no refresh before this after a failed one
};

}  // namespace fitscale::aws
