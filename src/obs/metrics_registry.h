#pragma once
// A small thread-safe metrics registry rendering the Prometheus text exposition format 0.0.4.
//
// Families are declared once with fixed label names. Label sets are bounded by construction:
// each family holds at most `max_series` label sets; a new one beyond that is folded into one
// more series whose label values are all "_other", so a misbehaving input (thousands of namespaces,
// free-form error codes) cannot grow the scrape without bound.
//
// The controller thread writes, the HTTP thread renders; one mutex guards everything (a scrape
// every 15 s and a few hundred updates per loop do not contend).
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace fitscale::obs {

enum class MetricType { Counter, Gauge, Histogram };

using LabelValues = std::vector<std::string>;

struct HistogramData {
  std::vector<std::uint64_t> bucket_counts;  // per bucket (not cumulative), same size as bounds
  std::uint64_t count = 0;
  double sum = 0;
};

class MetricsRegistry;

// A handle to one declared family. Cheap to copy; valid as long as the registry lives.
class Family {
 public:
  // Counters: add a non-negative amount (a negative one is ignored: counters never go down).
  void inc(const LabelValues& labels = {}, double by = 1) const;
  // Gauges: set the value.
  void set(const LabelValues& labels, double value) const;
  void set(double value) const { set({}, value); }
  // Histograms: record one observation.
  void observe(const LabelValues& labels, double value) const;
  // Drop every series (gauges describing "the current view" are rebuilt each loop, so a state
  // that disappeared does not linger at its last value).
  void clear() const;
  // clear() and set() of every series in one step: a scrape in between would read the family
  // empty (no nodes, no spend) while the loop rebuilds it.
  void replace(const std::map<LabelValues, double>& series) const;
  // Current value of one series (tests, and callers that need read-modify-write); 0 if absent.
  double value(const LabelValues& labels = {}) const;

 private:
  friend class MetricsRegistry;
  Family(MetricsRegistry* registry, std::size_t index) : registry_(registry), index_(index) {}
  void set_locked(const LabelValues& labels, double value) const;  // the registry's mutex held
  MetricsRegistry* registry_;
  std::size_t index_;
};

class MetricsRegistry {
 public:
  static constexpr std::size_t kDefaultMaxSeries = 500;

  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Throws std::invalid_argument for an invalid or duplicate name, an invalid label name, or
  // histogram bounds that are empty or not strictly increasing.
  Family counter(std::string name, std::string help, std::vector<std::string> label_names = {},
                 std::size_t max_series = kDefaultMaxSeries);
  Family gauge(std::string name, std::string help, std::vector<std::string> label_names = {},
               std::size_t max_series = kDefaultMaxSeries);
  Family histogram(std::string name, std::string help, std::vector<std::string> label_names,
                   std::vector<double> bounds, std::size_t max_series = kDefaultMaxSeries);

  // A gauge under a name fixed by another project (OpenCost's node_gpu_count, ...). These are
  // served apart, on /metrics/opencost, because such names may break Prometheus's naming
  // rules (promtool flags a gauge ending in _count) and /metrics must lint clean.
  Family compat_gauge(std::string name, std::string help, std::vector<std::string> label_names = {},
                      std::size_t max_series = kDefaultMaxSeries);

  // Text format 0.0.4, families in declaration order, series sorted by label values:
  // fitscale's own families (/metrics), or the compatibility ones (/metrics/opencost).
  std::string render() const { return render_part(false); }
  std::string render_compat() const { return render_part(true); }

  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

 private:
  friend class Family;
  struct Series {
    double value = 0;
    HistogramData histogram;
  };
  struct FamilyData {
    std::string name, help;
    MetricType type = MetricType::Gauge;
    std::vector<std::string> label_names;
    std::vector<double> bounds;  // histograms only, without +Inf
    std::size_t max_series = kDefaultMaxSeries;
    std::map<LabelValues, Series> series;
    bool compat = false;
  };
  std::string render_part(bool compat) const;
  Family declare(FamilyData data);
  // Finds or creates the series (folding into "_other" past the bound). Caller holds mutex_.
  Series& series_locked(FamilyData& f, const LabelValues& labels);

  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<FamilyData>> families_;
};

// Text-format helpers, exposed for tests.
std::string escape_label_value(std::string_view v);  // backslash, double quote, newline
std::string escape_help(std::string_view v);         // backslash, newline
std::string format_sample_value(double v);           // "+Inf", "-Inf", "NaN", shortest round trip
bool valid_metric_name(std::string_view name);
bool valid_label_name(std::string_view name);

}  // namespace fitscale::obs
