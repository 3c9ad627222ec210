#include "cloud/aws/interruption_queue.h"

#include <nlohmann/json.hpp>

namespace fitscale::aws {
namespace {

std::string string_field(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

const char* to_string(InterruptionKind k) {
  switch (k) {
    case InterruptionKind::SpotInterruption:
      return "spot-interruption";
    case InterruptionKind::RebalanceRecommendation:
      return "rebalance";
    case InterruptionKind::StateChange:
      return "state-change";
  }
  return "?";
}

std::vector<QueueMessage> parse_receive_message(const pugi::xml_node& response) {
  std::vector<QueueMessage> out;
  for (auto m : response.child("ReceiveMessageResult").children("Message")) {
    out.push_back({text(m, "MessageId"), text(m, "ReceiptHandle"), text(m, "Body")});
  }
  return out;
}

std::optional<InterruptionEvent> parse_interruption_event(std::string_view body) {
  const auto j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  auto detail = j.find("detail");
  if (detail == j.end() || !detail->is_object()) return std::nullopt;
  InterruptionEvent e;
  e.instance_id = string_field(*detail, "instance-id");
  e.time = string_field(j, "time");
  if (e.instance_id.empty()) return std::nullopt;
  const std::string type = string_field(j, "detail-type");
  if (type == "EC2 Spot Instance Interruption Warning") {
    e.kind = InterruptionKind::SpotInterruption;
    e.detail = string_field(*detail, "instance-action");
  } else if (type == "EC2 Instance Rebalance Recommendation") {
    e.kind = InterruptionKind::RebalanceRecommendation;
  } else if (type == "EC2 Instance State-change Notification") {
    e.kind = InterruptionKind::StateChange;
    e.detail = string_field(*detail, "state");
    // Only the way out: an instance that is starting is not being taken away.
    if (e.detail != "stopping" && e.detail != "stopped" && e.detail != "shutting-down" &&
        e.detail != "terminated") {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  return e;
}

QueryService sqs_service(const std::string& queue_url, const std::string& region) {
  return {queue_url, region, "sqs", "2012-11-05"};
}

InterruptionQueue::InterruptionQueue(QueryClient& sqs, std::string queue_url)
    : sqs_(sqs), url_(std::move(queue_url)) {}

ReceivedNotices InterruptionQueue::receive(int max_batches) {
  ReceivedNotices out;
  for (int batch = 0; batch < max_batches; ++batch) {
    auto doc =
        sqs_.call("ReceiveMessage",
                  {{"QueueUrl", url_}, {"MaxNumberOfMessages", "10"}, {"WaitTimeSeconds", "0"}});
    const auto messages = parse_receive_message(doc->document_element());
    for (const auto& m : messages) {
      out.receipt_handles.push_back(m.receipt_handle);
      if (auto e = parse_interruption_event(m.body)) {
        out.events.push_back(std::move(*e));
      } else {
        ++out.ignored;
      }
    }
    if (messages.size() < 10) break;
  }
  return out;
}

void InterruptionQueue::acknowledge(const std::vector<std::string>& receipt_handles) {
  for (const auto& h : receipt_handles) {
    try {
      sqs_.call("DeleteMessage", {{"QueueUrl", url_}, {"ReceiptHandle", h}});
    } catch (const AwsError& e) {
      // Already deleted or its visibility ran out: it comes back and is handled again, which
      // is harmless (marking an instance twice changes nothing).
      if (e.code() != "ReceiptHandleIsInvalid") throw;
    }
  }
}

}  // namespace fitscale::aws
