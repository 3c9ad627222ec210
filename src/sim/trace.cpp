#include "sim/trace.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <unordered_set>

#include "model/error.h"
#include "model/quantity.h"

namespace fitscale {

namespace {

enum Column {
  kSubmit,
  kJob,
  kNamespace,
  kReplicas,
  kCpu,
  kMemory,
  kGpu,
  kGpuModel,
  kDuration,
  kCapacityType,
  kCheckpoint,
  kMaxRuntime,
  kColumnCount
};
constexpr std::array<std::string_view, kColumnCount> kNames = {"submit_s",
                                                               "job",
                                                               "namespace",
                                                               "replicas",
                                                               "cpu",
                                                               "memory",
                                                               "gpu",
                                                               "gpu_model",
                                                               "duration_s",
                                                               "capacity_type",
                                                               "checkpoint_interval_s",
                                                               "max_runtime_s"};
constexpr std::array<bool, kColumnCount> kRequired = {true, true,  true, true,  true,  true,
                                                      true, false, true, false, false, false};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Plain comma separation: the format has no quoted fields (ids and quantities hold no commas).
void split(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t start = 0;
  while (true) {
    std::size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      out.push_back(trim(line.substr(start)));
      return;
    }
    out.push_back(trim(line.substr(start, comma - start)));
    start = comma + 1;
  }
}

class RowError {
 public:
  RowError(std::string_view source, std::int64_t line) : source_(source), line_(line) {}
  [[noreturn]] void fail(std::string_view column, const std::string& why) const {
    throw InputError(std::string(source_) + ":" + std::to_string(line_) + ": column " +
                     std::string(column) + ": " + why);
  }

 private:
  std::string_view source_;
  std::int64_t line_;
};

// Far beyond any real job (the largest research jobs run thousands of pods with at most 16 GPUs
// each), and small enough that the simulator's per-pod work and sums cannot run away on a typo.
constexpr std::int64_t kMaxReplicas = 100'000;
constexpr std::int64_t kMaxGpusPerPod = 1'000;

std::int64_t integer(std::string_view v, std::string_view column, std::int64_t min,
                     std::int64_t max, const RowError& err) {
  std::int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (v.empty() || ec != std::errc() || ptr != v.data() + v.size()) {
    err.fail(column, "\"" + std::string(v) + "\" is not a whole number");
  }
  if (out < min)
    err.fail(column, "must be at least " + std::to_string(min) + ", got " + std::string(v));
  if (out > max)
    err.fail(column, "must be at most " + std::to_string(max) + ", got " + std::string(v));
  return out;
}

// Seconds may be written with a fraction; they are rounded up to whole seconds (the virtual clock's
// unit) so that a positive duration never becomes zero.
Seconds seconds(std::string_view v, std::string_view column, bool positive, const RowError& err) {
  double out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (v.empty() || ec != std::errc() || ptr != v.data() + v.size() || !std::isfinite(out)) {
    err.fail(column, "\"" + std::string(v) + "\" is not a number of seconds");
  }
  if (out < 0 || (positive && out <= 0)) {
    err.fail(column,
             std::string(positive ? "must be > 0" : "must be >= 0") + ", got " + std::string(v));
  }
  if (out > 1e12) err.fail(column, "\"" + std::string(v) + "\" is too large");
  return static_cast<Seconds>(std::ceil(out));
}

std::int64_t quantity_milli(std::string_view v, std::string_view column, const RowError& err) {
  if (v.empty()) err.fail(column, "is empty");
  try {
    std::int64_t m = Quantity::parse(v).milli();
    if (m < 0) err.fail(column, "must not be negative, got " + std::string(v));
    return m;
  } catch (const InputError& e) {
    err.fail(column, e.what());
  }
}

}  // namespace

std::vector<TraceJob> parse_trace(std::string_view text, std::string_view source) {
  std::vector<TraceJob> jobs;
  std::array<int, kColumnCount> at;
  at.fill(-1);
  std::vector<std::string_view> fields;
  std::unordered_set<std::string_view> ids;
  std::int64_t line_no = 0;
  std::size_t width = 0;
  bool header = true;
  std::size_t pos = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") pos = 3;  // a UTF-8 byte-order mark from spreadsheets
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (trim(line).empty()) continue;
    split(line, fields);
    RowError err(source, line_no);
    if (header) {
      header = false;
      width = fields.size();
      for (std::size_t i = 0; i < fields.size(); ++i) {
        auto it = std::find(kNames.begin(), kNames.end(), fields[i]);
        if (it == kNames.end())
          err.fail(
              fields[i],
              "unknown column (expected some of submit_s, job, namespace, replicas, cpu, memory, "
              "gpu, gpu_model, duration_s, capacity_type, checkpoint_interval_s, max_runtime_s)");
        auto c = static_cast<std::size_t>(it - kNames.begin());
        if (at[c] >= 0) err.fail(fields[i], "appears twice in the header");
        at[c] = static_cast<int>(i);
      }
      for (std::size_t c = 0; c < kColumnCount; ++c) {
        if (kRequired[c] && at[c] < 0)
          err.fail(kNames[c], "required column is missing from the header");
      }
      continue;
    }
    if (fields.size() != width) {
      throw InputError(std::string(source) + ":" + std::to_string(line_no) + ": row has " +
                       std::to_string(fields.size()) + " fields, the header has " +
                       std::to_string(width));
    }
    auto get = [&](Column c) -> std::string_view {
      return at[c] < 0 ? std::string_view() : fields[at[c]];
    };
    TraceJob j;
    j.line = line_no;
    j.submit_s = seconds(get(kSubmit), kNames[kSubmit], false, err);
    std::string_view id = get(kJob);
    if (id.empty()) err.fail(kNames[kJob], "is empty");
    if (!ids.insert(id).second)
      err.fail(kNames[kJob], "job id \"" + std::string(id) + "\" appears twice");
    j.job = std::string(id);
    if (get(kNamespace).empty()) err.fail(kNames[kNamespace], "is empty");
    j.ns = std::string(get(kNamespace));
    j.replicas = integer(get(kReplicas), kNames[kReplicas], 1, kMaxReplicas, err);
    j.requests.cpu_milli = quantity_milli(get(kCpu), kNames[kCpu], err);
    // Whole bytes, rounded up; written so that the largest quantity does not overflow.
    const std::int64_t memory_milli = quantity_milli(get(kMemory), kNames[kMemory], err);
    j.requests.memory_bytes = memory_milli / 1000 + (memory_milli % 1000 != 0 ? 1 : 0);
    j.requests.gpus = integer(get(kGpu), kNames[kGpu], 0, kMaxGpusPerPod, err);
    j.requests.pods = 1;
    j.gpu_model = std::string(get(kGpuModel));
    j.duration_s = seconds(get(kDuration), kNames[kDuration], true, err);
    std::string_view ct = get(kCapacityType);
    if (ct == "on-demand") {
      j.on_demand = true;
    } else if (!ct.empty() && ct != "spot") {
      err.fail(kNames[kCapacityType],
               "must be on-demand, spot or empty, got \"" + std::string(ct) + "\"");
    }
    if (!get(kCheckpoint).empty())
      j.checkpoint_interval_s = seconds(get(kCheckpoint), kNames[kCheckpoint], true, err);
    if (!get(kMaxRuntime).empty())
      j.max_runtime_s = seconds(get(kMaxRuntime), kNames[kMaxRuntime], true, err);
    jobs.push_back(std::move(j));
  }
  if (header) throw InputError(std::string(source) + ": empty trace (no header row)");
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.submit_s < b.submit_s; });
  return jobs;
}

}  // namespace fitscale
