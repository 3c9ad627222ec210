#pragma once
// What happens to an Event between "the controller wants to say this" and the API server, with
// the semantics of client-go's tools/record EventCorrelator (pkg.go.dev/k8s.io/client-go/tools/
// record), so an operator sees fitscale's events behave as every other controller's do:
//   1. aggregation: more than `aggregate_max_events` events within `aggregate_interval_s` that
//      differ only in their message (same source, object, type, reason) become one event whose
//      message is "(combined from similar events): " + the latest message;
//   2. deduplication: an event equal to one already sent (same source, object, type, reason,
//      message) updates that event (count + 1, lastTimestamp) instead of creating another;
//   3. spam filter: a token bucket per (source, object) drops what a single object would
//      otherwise flood the server with.
// Pure and single-threaded: time is passed in, nothing is sent here (see EventRecorder).
#include <cstddef>
#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>

#include "controller/interfaces.h"
#include "model/time.h"

namespace fitscale {

// A core/v1 Event as fitscale writes it.
struct KubeEvent {
  ObjectRef about;   // involvedObject (apiVersion "v1": fitscale reports on Pods and Nodes)
  std::string type;  // "Normal" or "Warning"
  std::string reason;
  std::string message;
  std::string component;  // source.component and reportingComponent
  std::string instance;   // reportingInstance (the replica's identity)
  std::string ns;         // the Event's own namespace
  std::string name;       // metadata.name; given by the correlator
  std::int64_t count = 1;
  Time first = 0;  // firstTimestamp
  Time last = 0;   // lastTimestamp
};

// client-go's defaults (tools/record/events_cache.go).
struct CorrelatorOptions {
  std::size_t cache_size = 4096;  // per cache (aggregation, dedup, spam buckets), LRU
  std::size_t aggregate_max_events = 10;
  Seconds aggregate_interval_s = 600;
  double spam_burst = 25;
  double spam_qps = 1.0 / 300;  // one more event per object every five minutes after the burst
};

struct Correlated {
  bool skip = false;    // dropped by the spam filter
  bool update = false;  // `event.name` exists on the server: PATCH count, lastTimestamp, message
  KubeEvent event;
};

// A bounded map that forgets the least recently used key first.
template <class V>
class LruMap {
 public:
  explicit LruMap(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}
  V* find(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->second;
  }
  V& put(const std::string& key, V value) {
    if (V* v = find(key)) return *v = std::move(value);
    order_.emplace_front(key, std::move(value));
    index_[key] = order_.begin();
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return order_.front().second;
  }
  void erase(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return;
    order_.erase(it->second);
    index_.erase(it);
  }
  std::size_t size() const { return index_.size(); }

 private:
  std::size_t capacity_;
  std::list<std::pair<std::string, V>> order_;
  std::unordered_map<std::string, typename std::list<std::pair<std::string, V>>::iterator> index_;
};

class EventCorrelator {
 public:
  explicit EventCorrelator(CorrelatorOptions options = {});

  // `event` as asked for (name empty, count 1); what to send, or skip.
  Correlated correlate(KubeEvent event, Time now);
  // The server has `event` (created or patched): later equal events update it.
  void sent(const KubeEvent& event);
  // The server answered that `event` does not exist (events expire after an hour by default):
  // the next equal one is created afresh.
  void forget(const KubeEvent& event);

  static constexpr const char* kCombinedPrefix = "(combined from similar events): ";

 private:
  struct Similar {
    std::list<std::string> messages;  // distinct messages seen in this interval (bounded)
    Time last = 0;
  };
  struct Seen {
    std::string name;
    std::int64_t count = 0;
    Time first = 0;
  };
  struct Bucket {
    double tokens = 0;
    Time refilled = 0;
  };

  std::string new_name(const KubeEvent& e, Time now);

  CorrelatorOptions options_;
  LruMap<Similar> similar_;
  LruMap<Seen> seen_;
  LruMap<Bucket> buckets_;
  std::uint64_t serial_ = 0;
};

// The keys, as client-go builds them (event.go getEventKey, getSpamKey, events_cache.go
// EventAggregatorByReasonFunc). Exposed for tests.
std::string event_key(const KubeEvent& e);      // source, object, type, reason, message
std::string aggregate_key(const KubeEvent& e);  // the same without the message
std::string spam_key(const KubeEvent& e);       // source and object

}  // namespace fitscale
