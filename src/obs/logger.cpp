#include "obs/logger.h"

#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <nlohmann/json.hpp>

#include "model/bounded_text.h"
#include "model/error.h"
#include "obs/redact.h"

namespace fitscale::obs {

namespace {

std::shared_ptr<spdlog::logger> make_sink(spdlog::sink_ptr sink) {
  // Constructed directly (not through spdlog's registry): no global state. The pattern is just
  // the message; fitscale formats the whole line itself.
  auto l = std::make_shared<spdlog::logger>("fitscale", std::move(sink));
  l->set_pattern("%v");
  l->set_level(spdlog::level::trace);
  l->flush_on(spdlog::level::trace);
  return l;
}

bool needs_quotes(const std::string& v) {
  if (v.empty()) return true;
  for (char c : v) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
      return true;
  }
  return false;
}

std::string quote(const std::string& v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// One line, always: a multi-line value (a stack of errors, a PEM block) is folded.
std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

}  // namespace

LogFormat parse_log_format(std::string_view s) {
  if (s == "text") return LogFormat::Text;
  if (s == "json") return LogFormat::Json;
  throw InputError("--log-format: '" + std::string(s) + "' is not one of text, json");
}

LogLevel parse_log_level(std::string_view s) {
  if (s == "debug") return LogLevel::Debug;
  if (s == "info") return LogLevel::Info;
  if (s == "warn" || s == "warning") return LogLevel::Warn;
  if (s == "error") return LogLevel::Error;
  throw InputError("--log-level: '" + std::string(s) + "' is not one of debug, info, warn, error");
}

const char* to_string(LogLevel l) {
  switch (l) {
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warn:
      return "warn";
    case LogLevel::Error:
      return "error";
  }
  return "info";
}

Logger::Logger(LoggerOptions options)
    : options_(std::move(options)),
      sink_(make_sink(std::make_shared<spdlog::sinks::stderr_sink_mt>())) {}

Logger::Logger(LoggerOptions options, std::ostream& out)
    : options_(std::move(options)),
      sink_(make_sink(std::make_shared<spdlog::sinks::ostream_sink_mt>(out, true))) {}

Logger::~Logger() = default;

std::string Logger::format(LogLevel level, std::string_view message,
                           const LogFields& fields) const {
  // Redacted first (a secret cut in half would no longer be recognised), then cut.
  const std::string msg = one_line(bounded_text(redact_text(message), kLogValueLimit));
  if (options_.format == LogFormat::Json) {
    nlohmann::ordered_json j;
    if (options_.now) j["ts"] = format_rfc3339(options_.now());
    j["level"] = to_string(level);
    j["msg"] = msg;
    for (const auto& [k, v] : fields) {
      // Fields never overwrite the envelope.
      std::string key = (k == "ts" || k == "level" || k == "msg") ? "field_" + k : k;
      j[key] = bounded_text(redact_field(k, v), kLogValueLimit);
    }
    // Invalid UTF-8 in a pod name must not throw out of a log call.
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  std::string line;
  if (options_.now) line = format_rfc3339(options_.now()) + " ";
  std::string lvl = to_string(level);
  for (auto& c : lvl) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  lvl.resize(5, ' ');
  line += lvl + " " + msg;
  for (const auto& [k, v] : fields) {
    std::string value = one_line(bounded_text(redact_field(k, v), kLogValueLimit));
    line += " " + k + "=" + (needs_quotes(value) ? quote(value) : value);
  }
  return line;
}

void Logger::log(LogLevel level, std::string_view message, const LogFields& fields) const {
  if (!enabled(level)) return;
  const std::string line = format(level, message, fields);
  sink_->log(spdlog::level::info, spdlog::string_view_t(line.data(), line.size()));
}

}  // namespace fitscale::obs
