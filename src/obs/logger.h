#pragma once
// fitscale's log: one line per event, human-readable text by default or JSON lines
// (`--log-format json`) for a log pipeline. Every message and field value is redacted
// (obs/redact.h) and then cut to kLogValueLimit bytes before it is written, so a line stays short
// whatever a tenant wrote into an annotation. There is no global logger: the CLI builds one and
// passes it to whatever logs.
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/time.h"

namespace spdlog {
class logger;
}

namespace fitscale::obs {

enum class LogFormat { Text, Json };
enum class LogLevel { Debug, Info, Warn, Error };

// "text" | "json"; "debug" | "info" | "warn" | "error". Throw InputError naming the flag.
LogFormat parse_log_format(std::string_view s);
LogLevel parse_log_level(std::string_view s);
const char* to_string(LogLevel l);

// The message and each field value: longer ones end in "…(N bytes)" (model/bounded_text.h).
inline constexpr std::size_t kLogValueLimit = 1024;

using LogFields = std::vector<std::pair<std::string, std::string>>;  // printed in this order

struct LoggerOptions {
  LogFormat format = LogFormat::Text;
  LogLevel level = LogLevel::Info;
  std::function<Time()> now;  // timestamps; none printed when empty (the CLI passes the wall clock)
};

class Logger {
 public:
  // Writes to stderr.
  explicit Logger(LoggerOptions options);
  // Writes to `out` (tests, files); `out` must outlive the logger.
  Logger(LoggerOptions options, std::ostream& out);
  ~Logger();
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  bool enabled(LogLevel level) const { return level >= options_.level; }
  void log(LogLevel level, std::string_view message, const LogFields& fields = {}) const;
  void debug(std::string_view m, const LogFields& f = {}) const { log(LogLevel::Debug, m, f); }
  void info(std::string_view m, const LogFields& f = {}) const { log(LogLevel::Info, m, f); }
  void warn(std::string_view m, const LogFields& f = {}) const { log(LogLevel::Warn, m, f); }
  void error(std::string_view m, const LogFields& f = {}) const { log(LogLevel::Error, m, f); }

  // The line that log() would write, without the newline (exposed for tests).
  std::string format(LogLevel level, std::string_view message, const LogFields& fields) const;

 private:
  LoggerOptions options_;
  std::shared_ptr<spdlog::logger> sink_;  // thread-safe line writer, not registered globally
};

}  // namespace fitscale::obs
