#include "kube/event_correlator.h"

#include <algorithm>
#include <cstdio>

namespace fitscale {

namespace {

// The object as client-go names it in its keys: kind, namespace, name, uid, apiVersion.
std::string object_key(const KubeEvent& e) {
  std::string k;
  k.reserve(e.about.kind.size() + e.about.ns.size() + e.about.name.size() + e.about.uid.size() + 8);
  k += e.about.kind;
  k += '\x1f';
  k += e.about.ns;
  k += '\x1f';
  k += e.about.name;
  k += '\x1f';
  k += e.about.uid;
  k += '\x1f';
  k += "v1";
  return k;
}

}  // namespace

std::string spam_key(const KubeEvent& e) { return e.component + '\x1f' + object_key(e); }

std::string aggregate_key(const KubeEvent& e) {
  return spam_key(e) + '\x1f' + e.type + '\x1f' + e.reason + '\x1f' + e.instance;
}

std::string event_key(const KubeEvent& e) { return aggregate_key(e) + '\x1f' + e.message; }

EventCorrelator::EventCorrelator(CorrelatorOptions options)
    : options_(options),
      similar_(options.cache_size),
      seen_(options.cache_size),
      buckets_(options.cache_size) {}

std::string EventCorrelator::new_name(const KubeEvent& e, Time now) {
  // client-go names an event "<object>.<hex nanoseconds>"; with whole seconds a serial keeps
  // two events of one second apart. Cut so the name stays a valid 253-byte DNS subdomain.
  char suffix[40];
  std::snprintf(suffix, sizeof suffix, ".%llx%04llx", static_cast<unsigned long long>(now),
                static_cast<unsigned long long>(++serial_ & 0xffff));
  std::string name = e.about.name.substr(0, 253 - std::char_traits<char>::length(suffix));
  while (!name.empty() && (name.back() == '.' || name.back() == '-')) name.pop_back();
  return name + suffix;
}

Correlated EventCorrelator::correlate(KubeEvent event, Time now) {
  Correlated out;
  event.first = event.last = now;
  event.count = 1;

  // 1. Aggregation of similar events (same everything but the message).
  std::string key = event_key(event);
  {
    const std::string agg = aggregate_key(event);
    Similar* s = similar_.find(agg);
    if (s == nullptr || s->last < now - options_.aggregate_interval_s) {
      s = &similar_.put(agg, Similar{});
    }
    s->last = now;
    if (std::find(s->messages.begin(), s->messages.end(), event.message) == s->messages.end()) {
      s->messages.push_back(event.message);
    }
    if (s->messages.size() >= options_.aggregate_max_events) {
      s->messages.pop_front();  // the set never grows past the limit
      event.message = kCombinedPrefix + event.message;
      key = agg;  // one event for all of them from now on
    }
  }

  // 2. Deduplication: an event we already sent is updated, not created again.
  if (Seen* seen = seen_.find(key)) {
    event.name = seen->name;
    event.count = seen->count + 1;
    event.first = seen->first;
    out.update = true;
    seen->count = event.count;
  } else {
    event.name = new_name(event, now);
    seen_.put(key, Seen{event.name, 1, now});
  }

  // 3. Spam filter: a token bucket per source and object, full at first sight.
  {
    const std::string sk = spam_key(event);
    Bucket* b = buckets_.find(sk);
    if (b == nullptr) b = &buckets_.put(sk, Bucket{options_.spam_burst, now});
    if (now > b->refilled) {
      b->tokens = std::min(options_.spam_burst,
                           b->tokens + static_cast<double>(now - b->refilled) * options_.spam_qps);
      b->refilled = now;
    }
    if (b->tokens < 1) {
      out.skip = true;
    } else {
      b->tokens -= 1;
    }
  }
  out.event = std::move(event);
  return out;
}

void EventCorrelator::sent(const KubeEvent& event) {
  const bool combined = event.message.rfind(kCombinedPrefix, 0) == 0;
  std::string key = combined ? aggregate_key(event) : event_key(event);
  Seen* seen = seen_.find(key);
  if (seen == nullptr) seen = &seen_.put(key, Seen{event.name, event.count, event.first});
  seen->name = event.name;
  seen->count = std::max(seen->count, event.count);
}

void EventCorrelator::forget(const KubeEvent& event) {
  const bool combined = event.message.rfind(kCombinedPrefix, 0) == 0;
  seen_.erase(combined ? aggregate_key(event) : event_key(event));
}

}  // namespace fitscale
