#include "obs/metrics_registry.h"

#include <charconv>
#include <cmath>
#include <set>
#include <stdexcept>

namespace fitscale::obs {

namespace {

bool name_char(char c, bool first, bool allow_colon) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return true;
  if (allow_colon && c == ':') return true;
  return !first && c >= '0' && c <= '9';
}

void append_labels(std::string& out, const std::vector<std::string>& names,
                   const LabelValues& values, const std::string* le) {
  if (names.empty() && le == nullptr) return;
  out += '{';
  bool first = true;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!first) out += ',';
    first = false;
    out += names[i];
    out += "=\"";
    out += escape_label_value(values[i]);
    out += '"';
  }
  if (le != nullptr) {
    if (!first) out += ',';
    out += "le=\"";
    out += *le;
    out += '"';
  }
  out += '}';
}

const char* type_name(MetricType t) {
  switch (t) {
    case MetricType::Counter:
      return "counter";
    case MetricType::Gauge:
      return "gauge";
    case MetricType::Histogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace

bool valid_metric_name(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (!name_char(name[i], i == 0, true)) return false;
  }
  return true;
}

bool valid_label_name(std::string_view name) {
  if (name.empty() || name.substr(0, 2) == "__") return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (!name_char(name[i], i == 0, false)) return false;
  }
  return true;
}

std::string escape_label_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string escape_help(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string format_sample_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

// ---------------------------------------------------------------------------------------------

Family MetricsRegistry::declare(FamilyData data) {
  if (!valid_metric_name(data.name))
    throw std::invalid_argument("invalid metric name: " + data.name);
  std::set<std::string> seen;
  for (const auto& l : data.label_names) {
    if (!valid_label_name(l) || (data.type == MetricType::Histogram && l == "le") ||
        !seen.insert(l).second) {
      throw std::invalid_argument("invalid label name '" + l + "' on " + data.name);
    }
  }
  if (data.type == MetricType::Histogram) {
    if (data.bounds.empty()) throw std::invalid_argument("histogram without buckets: " + data.name);
    for (std::size_t i = 0; i < data.bounds.size(); ++i) {
      if (!std::isfinite(data.bounds[i]) || (i > 0 && data.bounds[i] <= data.bounds[i - 1])) {
        throw std::invalid_argument("histogram buckets must be finite and increasing: " +
                                    data.name);
      }
    }
  }
  if (data.max_series == 0) data.max_series = 1;
  std::lock_guard lock(mutex_);
  for (const auto& f : families_) {
    if (f->name == data.name) throw std::invalid_argument("metric declared twice: " + data.name);
  }
  families_.push_back(std::make_unique<FamilyData>(std::move(data)));
  return Family(this, families_.size() - 1);
}

Family MetricsRegistry::counter(std::string name, std::string help,
                                std::vector<std::string> label_names, std::size_t max_series) {
  return declare({std::move(name),
                  std::move(help),
                  MetricType::Counter,
                  std::move(label_names),
                  {},
                  max_series,
                  {}});
}

Family MetricsRegistry::gauge(std::string name, std::string help,
                              std::vector<std::string> label_names, std::size_t max_series) {
  return declare({std::move(name),
                  std::move(help),
                  MetricType::Gauge,
                  std::move(label_names),
                  {},
                  max_series,
                  {}});
}

Family MetricsRegistry::histogram(std::string name, std::string help,
                                  std::vector<std::string> label_names, std::vector<double> bounds,
                                  std::size_t max_series) {
  return declare({std::move(name),
                  std::move(help),
                  MetricType::Histogram,
                  std::move(label_names),
                  std::move(bounds),
                  max_series,
                  {}});
}

Family MetricsRegistry::compat_gauge(std::string name, std::string help,
                                     std::vector<std::string> label_names, std::size_t max_series) {
  return declare({std::move(name),
                  std::move(help),
                  MetricType::Gauge,
                  std::move(label_names),
                  {},
                  max_series,
                  {},
                  true});
}

MetricsRegistry::Series& MetricsRegistry::series_locked(FamilyData& f, const LabelValues& labels) {
  if (labels.size() != f.label_names.size()) {
    throw std::invalid_argument("metric " + f.name + " takes " +
                                std::to_string(f.label_names.size()) + " label values, got " +
                                std::to_string(labels.size()));
  }
  auto it = f.series.find(labels);
  if (it == f.series.end()) {
    LabelValues key = labels;
    // max_series real label sets, then one "_other" slot beside them: the overflow slot is not
    // one of the max_series (counting it folded the last real series, e.g. the third of three
    // loop phases, into "_other" in normal operation).
    const LabelValues other(labels.size(), "_other");
    const std::size_t real = f.series.size() - f.series.count(other);
    if (!labels.empty() && real >= f.max_series && labels != other) key = other;
    it = f.series.try_emplace(std::move(key)).first;
    if (f.type == MetricType::Histogram)
      it->second.histogram.bucket_counts.assign(f.bounds.size(), 0);
  }
  return it->second;
}

std::string MetricsRegistry::render_part(bool compat) const {
  std::lock_guard lock(mutex_);
  std::string out;
  for (const auto& f : families_) {
    if (f->compat != compat) continue;
    out += "# HELP " + f->name + " " + escape_help(f->help) + "\n";
    out += "# TYPE " + f->name + " " + type_name(f->type) + "\n";
    // A family without labels always shows its one series, at 0 until set: absent and zero
    // mean different things to alerting rules.
    if (f->series.empty() && f->label_names.empty()) {
      if (f->type == MetricType::Histogram) {
        for (double b : f->bounds) {
          std::string le = format_sample_value(b);
          out += f->name + "_bucket{le=\"" + le + "\"} 0\n";
        }
        out += f->name + "_bucket{le=\"+Inf\"} 0\n" + f->name + "_sum 0\n" + f->name + "_count 0\n";
      } else {
        out += f->name + " 0\n";
      }
      continue;
    }
    for (const auto& [labels, s] : f->series) {
      if (f->type != MetricType::Histogram) {
        out += f->name;
        append_labels(out, f->label_names, labels, nullptr);
        out += ' ' + format_sample_value(s.value) + '\n';
        continue;
      }
      std::uint64_t cumulative = 0;
      for (std::size_t i = 0; i < f->bounds.size(); ++i) {
        cumulative += s.histogram.bucket_counts[i];
        std::string le = format_sample_value(f->bounds[i]);
        out += f->name + "_bucket";
        append_labels(out, f->label_names, labels, &le);
        out += ' ' + std::to_string(cumulative) + '\n';
      }
      const std::string inf = "+Inf";
      out += f->name + "_bucket";
      append_labels(out, f->label_names, labels, &inf);
      out += ' ' + std::to_string(s.histogram.count) + '\n';
      out += f->name + "_sum";
      append_labels(out, f->label_names, labels, nullptr);
      out += ' ' + format_sample_value(s.histogram.sum) + '\n';
      out += f->name + "_count";
      append_labels(out, f->label_names, labels, nullptr);
      out += ' ' + std::to_string(s.histogram.count) + '\n';
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

void Family::inc(const LabelValues& labels, double by) const {
  if (!(by >= 0)) return;  // also drops NaN
  std::lock_guard lock(registry_->mutex_);
  auto& f = *registry_->families_[index_];
  if (f.type != MetricType::Counter) throw std::logic_error("inc() on non-counter " + f.name);
  registry_->series_locked(f, labels).value += by;
}

void Family::set(const LabelValues& labels, double value) const {
  std::lock_guard lock(registry_->mutex_);
  set_locked(labels, value);
}

void Family::replace(const std::map<LabelValues, double>& series) const {
  std::lock_guard lock(registry_->mutex_);
  registry_->families_[index_]->series.clear();
  for (const auto& [labels, value] : series) set_locked(labels, value);
}

void Family::set_locked(const LabelValues& labels, double value) const {
  auto& f = *registry_->families_[index_];
  if (f.type != MetricType::Gauge) throw std::logic_error("set() on non-gauge " + f.name);
  auto& s = registry_->series_locked(f, labels);
  // Folded series accumulate: several overflowing label sets share one "_other" slot.
  const LabelValues other(labels.size(), "_other");
  if (!labels.empty() && labels != other && f.series.count(labels) == 0) {
    s.value += value;
  } else {
    s.value = value;
  }
}

void Family::observe(const LabelValues& labels, double value) const {
  if (std::isnan(value)) return;
  std::lock_guard lock(registry_->mutex_);
  auto& f = *registry_->families_[index_];
  if (f.type != MetricType::Histogram)
    throw std::logic_error("observe() on non-histogram " + f.name);
  auto& s = registry_->series_locked(f, labels);
  for (std::size_t i = 0; i < f.bounds.size(); ++i) {
    if (value <= f.bounds[i]) {
      ++s.histogram.bucket_counts[i];
      break;
    }
  }
  ++s.histogram.count;
  s.histogram.sum += value;
}

void Family::clear() const {
  std::lock_guard lock(registry_->mutex_);
  registry_->families_[index_]->series.clear();
}

double Family::value(const LabelValues& labels) const {
  std::lock_guard lock(registry_->mutex_);
  const auto& f = *registry_->families_[index_];
  auto it = f.series.find(labels);
  if (it == f.series.end()) return 0;
  return f.type == MetricType::Histogram ? static_cast<double>(it->second.histogram.count)
                                         : it->second.value;
}

}  // namespace fitscale::obs
