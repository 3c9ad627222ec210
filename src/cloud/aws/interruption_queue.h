#pragma once
// How fitscale learns that AWS is about to take an instance away, the way Karpenter does: an SQS
// queue that EventBridge feeds with "EC2 Spot Instance Interruption Warning", "EC2 Instance
// Rebalance Recommendation" and "EC2 Instance State-change Notification" events. Read with the
// SQS query API (ReceiveMessage / DeleteMessage, SigV4 service "sqs", XML answers).
#include <optional>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/aws/query_client.h"

namespace fitscale::aws {

enum class InterruptionKind { SpotInterruption, RebalanceRecommendation, StateChange };
const char* to_string(InterruptionKind k);  // "spot-interruption", "rebalance", "state-change"

struct InterruptionEvent {
  InterruptionKind kind = InterruptionKind::SpotInterruption;
  std::string instance_id;
  std::string detail;  // the instance-action ("terminate", "stop") or the new state ("stopping")
  std::string time;    // the event's time, as AWS wrote it
};

struct QueueMessage {
  std::string id;
  std::string receipt_handle;
  std::string body;
};

// The messages of one ReceiveMessage answer.
std::vector<QueueMessage> parse_receive_message(const pugi::xml_node& response);

// The event in an EventBridge message body; nullopt for anything fitscale does not act on:
// another event type, a state change to running or pending, a body that is not an event.
std::optional<InterruptionEvent> parse_interruption_event(std::string_view body);

// SQS service for a queue URL ("https://sqs.us-east-1.amazonaws.com/123456789012/name", or
// moto's "http://127.0.0.1:5000/123456789012/name"): requests go to the queue's own URL.
QueryService sqs_service(const std::string& queue_url, const std::string& region);

struct ReceivedNotices {
  std::vector<InterruptionEvent> events;
  std::vector<std::string> receipt_handles;  // every message read, events or not
  int ignored = 0;                           // messages that were not an event fitscale acts on
};

class InterruptionQueue {
 public:
  // `sqs` must be built with sqs_service(url, region).
  InterruptionQueue(QueryClient& sqs, std::string queue_url);

  // What is waiting now, at most `max_batches` x 10 messages: no long poll, the loop must not
  // wait on an empty queue. Throws AwsError.
  ReceivedNotices receive(int max_batches = 10);
  // Deletes read messages, so no other reader acts on them again. Throws AwsError.
  void acknowledge(const std::vector<std::string>& receipt_handles);

  const std::string& url() const { return url_; }

 private:
  QueryClient& sqs_;
  std::string url_;
};

}  // namespace fitscale::aws
