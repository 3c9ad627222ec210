#include "cost/carried_alert_log.h"

#include <charconv>

#include "model/error.h"

namespace fitscale {

std::vector<AlertKey> CarriedAlertLog::sent_for(std::string_view ns, Time day_start,
                                                Time month_start) const {
  std::vector<AlertKey> out;
  for (const auto& k : known_) {
    if (k.ns != ns) continue;
    if ((k.period == "day" && k.period_start == day_start) ||
        (k.period == "month" && k.period_start == month_start)) {
      out.push_back(k);
    }
  }
  return out;
}

std::string alert_status_entry(const AlertKey& key) {
  const std::string start = format_rfc3339(key.period_start);
  return key.period + "/" + start.substr(0, key.period == "day" ? 10 : 7) + "/" +
         std::to_string(key.threshold);
}

std::optional<AlertKey> parse_alert_status_entry(std::string ns, std::string_view entry) {
  const auto a = entry.find('/');
  const auto b = entry.rfind('/');
  if (a == std::string_view::npos || a == b) return std::nullopt;
  AlertKey k;
  k.ns = std::move(ns);
  k.period = std::string(entry.substr(0, a));
  const std::string_view when = entry.substr(a + 1, b - a - 1);
  const std::string_view pct = entry.substr(b + 1);
  if (k.period == "day" && when.size() == 10) {
    try {
      k.period_start = parse_rfc3339(std::string(when) + "T00:00:00Z");
    } catch (const InputError&) {
      return std::nullopt;
    }
  } else if (k.period == "month" && when.size() == 7) {
    try {
      k.period_start = parse_rfc3339(std::string(when) + "-01T00:00:00Z");
    } catch (const InputError&) {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  const auto [end, ec] = std::from_chars(pct.data(), pct.data() + pct.size(), k.threshold);
  if (ec != std::errc() || end != pct.data() + pct.size() || k.threshold <= 0) return std::nullopt;
  return k;
}

}  // namespace fitscale
