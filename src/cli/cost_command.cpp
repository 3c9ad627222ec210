// `fitscale cost --ledger FILE [--by namespace|job|instance-type|capacity-type] [--since T]
// [--until T] [--top N] [--json]`: what was spent, from the SQLite ledger that `fitscale run` or
// `fitscale simulate --ledger` writes. A table for people, JSON for machines. `--by job` on a
// terminal shows the 20 costliest jobs and one line for the rest unless --top says otherwise
// (--top 0: every row); piped or --json, every row, as scripts expect. T is RFC 3339
// ("2026-01-05T12:00:00Z") or a date ("2026-01-05" = its UTC midnight). Only closed intervals
// are counted: the writer of still-open ones may be gone, so their end is not known.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cost/sqlite_ledger.h"
#include "model/error.h"
#include "model/money.h"
#include "model/time.h"

namespace fitscale::cli {
namespace {

struct CostFlags {
  std::string ledger;
  std::string by = "namespace";
  std::string since;
  std::string until;
  std::optional<std::size_t> top;  // 0 = every row; unset: the default below
  bool json = false;
};

// A person at a terminal asking for jobs gets a screenful; a pipe or --json gets every row.
constexpr std::size_t kTerminalJobRows = 20;
std::size_t rows_to_show(const CostFlags& f) {
  if (f.top) return *f.top;
  const bool terminal = isatty(fileno(stdout)) != 0;
  return f.by == "job" && !f.json && terminal ? kTerminalJobRows : 0;
}

// The costliest `top` rows (rows come sorted by cost), and what the rest add up to, so that
// `--by job` on a trace of 80,000 jobs answers "who spent it" in a screenful.
struct Shown {
  std::vector<cost::CostLine> rows;
  std::size_t rest_count = 0;
  Micros rest_micros = 0;
  Micros rest_idle_micros = 0;
  Micros rest_unused_micros = 0;
};

Shown top_rows(const std::vector<cost::CostLine>& lines, std::size_t top) {
  Shown s;
  const std::size_t n = top == 0 ? lines.size() : std::min(top, lines.size());
  s.rows.assign(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(n));
  for (std::size_t i = n; i < lines.size(); ++i) {
    ++s.rest_count;
    s.rest_micros += lines[i].micros;
    s.rest_idle_micros += lines[i].idle_micros;
    s.rest_unused_micros += lines[i].unused_micros;
  }
  return s;
}

constexpr Time kForever = std::numeric_limits<Time>::max() / 4;

Time parse_when(const std::string& text, const char* flag) {
  const bool is_date = text.size() == 10 && text[4] == '-' && text[7] == '-';
  try {
    return parse_rfc3339(is_date ? text + "T00:00:00Z" : text);
  } catch (const InputError& e) {
    throw InputError(std::string(flag) + ": " + e.what() + " or a date (\"2026-01-05\")");
  }
}

// "$12,345.67": cents, from integer micro-dollars, so columns line up and add up by eye.
std::string dollars(Micros m) {
  const bool neg = m < 0;
  const Micros cents = ((neg ? -m : m) + 5'000) / 10'000;
  char frac[4];
  std::snprintf(frac, sizeof frac, "%02lld", static_cast<long long>(cents % 100));
  return std::string(neg ? "-$" : "$") + format_count(cents / 100) + "." + frac;
}

const std::vector<cost::CostLine>& lines_for(const cost::CostReport& r, const std::string& by) {
  if (by == "job") return r.by_job;
  if (by == "instance-type") return r.by_instance_type;
  if (by == "capacity-type") return r.by_capacity_type;
  return r.by_namespace;
}

std::string window(Time since, Time until) {
  return (since == 0 ? std::string("the beginning") : format_rfc3339(since)) + " to " +
         (until == kForever ? std::string("now") : format_rfc3339(until));
}

int run_cost(const CostFlags& f) {
  const Time since = f.since.empty() ? 0 : parse_when(f.since, "--since");
  const Time until = f.until.empty() ? kForever : parse_when(f.until, "--until");
  if (until <= since) throw InputError("--until must be later than --since");
  const SqliteLedger ledger(f.ledger, SqliteLedger::Mode::ReadOnly);
  const cost::CostReport r = ledger.report(since, until);
  const std::size_t top = rows_to_show(f);
  const Shown shown = top_rows(lines_for(r, f.by), top);
  const auto& lines = shown.rows;

  if (f.json) {
    nlohmann::ordered_json out;
    out["ledger"] = f.ledger;
    out["since"] =
        since == 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(format_rfc3339(since));
    out["until"] = until == kForever ? nlohmann::ordered_json()
                                     : nlohmann::ordered_json(format_rfc3339(until));
    out["by"] = f.by;
    out["total_micros"] = r.total;
    out["total_usd"] = micros_to_dollars(r.total);
    out["idle_micros"] = r.idle;
    out["unused_micros"] = r.unused;
    out["closed_segments"] = r.segments;
    out["open_nodes"] = r.open_segments;
    out["rows"] = nlohmann::ordered_json::array();
    for (const auto& l : lines) {
      out["rows"].push_back({{"key", l.key},
                             {"micros", l.micros},
                             {"usd", micros_to_dollars(l.micros)},
                             {"idle_micros", l.idle_micros},
                             {"unused_micros", l.unused_micros}});
    }
    if (top > 0) {
      out["top"] = top;
      out["rest"] = {{"rows", shown.rest_count},
                     {"micros", shown.rest_micros},
                     {"usd", micros_to_dollars(shown.rest_micros)},
                     {"idle_micros", shown.rest_idle_micros},
                     {"unused_micros", shown.rest_unused_micros}};
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }

  std::printf("%s: spend from %s (%zu closed intervals)\n", f.ledger.c_str(),
              window(since, until).c_str(), r.segments);
  std::size_t width = f.by.size();
  for (const auto& l : lines) width = std::max(width, l.key.size());
  const std::string rest =
      "(" + format_count(static_cast<std::int64_t>(shown.rest_count)) + " more)";
  if (shown.rest_count > 0) width = std::max(width, rest.size());
  std::string header = f.by;
  for (auto& c : header) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::printf("%-*s %16s %16s %16s %7s\n", static_cast<int>(width), header.c_str(), "COST",
              "OF WHICH IDLE", "UNUSED ROOM", "SHARE");
  for (const auto& l : lines) {
    const double share =
        r.total > 0 ? 100.0 * static_cast<double>(l.micros) / static_cast<double>(r.total) : 0;
    std::printf("%-*s %16s %16s %16s %6.1f%%\n", static_cast<int>(width), l.key.c_str(),
                dollars(l.micros).c_str(), dollars(l.idle_micros).c_str(),
                dollars(l.unused_micros).c_str(), share);
  }
  if (shown.rest_count > 0) {
    const double share =
        r.total > 0 ? 100.0 * static_cast<double>(shown.rest_micros) / static_cast<double>(r.total)
                    : 0;
    std::printf("%-*s %16s %16s %16s %6.1f%%\n", static_cast<int>(width), rest.c_str(),
                dollars(shown.rest_micros).c_str(), dollars(shown.rest_idle_micros).c_str(),
                dollars(shown.rest_unused_micros).c_str(), share);
  }
  std::printf("%-*s %16s %16s %16s\n", static_cast<int>(width), "TOTAL", dollars(r.total).c_str(),
              dollars(r.idle).c_str(), dollars(r.unused).c_str());
  if (shown.rest_count > 0 && !f.top)
    std::printf("(the %zu costliest of %zu; --top 0 lists every row)\n", lines.size(),
                lines.size() + shown.rest_count);
  if (r.open_segments > 0) {
    std::printf("(%zu nodes are still open: their current intervals are not counted yet)\n",
                r.open_segments);
  }
  return 0;
}

}  // namespace

Runner register_cost(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "cost", "Report spend from a ledger file, by namespace, job or instance type");
  auto f = std::make_shared<CostFlags>();
  cmd->add_option("--ledger", f->ledger, "SQLite ledger written by run or simulate --ledger")
      ->required();
  cmd->add_option("--by", f->by, "grouping")
      ->check(CLI::IsMember({"namespace", "job", "instance-type", "capacity-type"}));
  cmd->add_option("--since", f->since, "start, RFC 3339 or YYYY-MM-DD (UTC)");
  cmd->add_option("--until", f->until, "end (exclusive), RFC 3339 or YYYY-MM-DD (UTC)");
  cmd->add_option("--top", f->top,
                  "show only the N costliest rows, then one line for the rest (0: every row; "
                  "default: 20 for --by job on a terminal, every row otherwise)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", f->json, "machine-readable output");
  return [f] { return run_cost(*f); };
}

}  // namespace fitscale::cli
