#include "sim/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "model/money.h"

namespace fitscale {

namespace {

using Json = nlohmann::ordered_json;

// Charts stay responsive with a few thousand points; a 3.5-month trace at 5-minute samples has
// 30,000. Every k-th sample is kept (the tables carry the exact totals).
constexpr std::size_t kMaxChartPoints = 1500;
constexpr std::size_t kMaxNamespacesCharted = 8;
constexpr std::size_t kMaxRefusalsListed = 25;

std::string esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string human_duration(double s) {
  if (s < 60) return fmt("%.0fs", s);
  auto total = static_cast<std::int64_t>(std::llround(s));
  if (total < 3600) return std::to_string(total / 60) + "m " + std::to_string(total % 60) + "s";
  if (total < 86400)
    return std::to_string(total / 3600) + "h " + std::to_string((total % 3600) / 60) + "m";
  return std::to_string(total / 86400) + "d " + std::to_string((total % 86400) / 3600) + "h";
}

std::string count(std::int64_t n) { return format_count(n); }

std::string percent(double part, double whole) {
  return whole > 0 ? fmt("%.1f%%", 100.0 * part / whole) : "–";
}

std::string card(const std::string& title, const std::string& value, const std::string& detail) {
  return "<div class=\"card\"><div class=\"card-title\">" + esc(title) +
         "</div><div class=\"card-value\">" + esc(value) + "</div><div class=\"card-detail\">" +
         esc(detail) + "</div></div>\n";
}

std::string chart(const std::string& id, const std::string& title, const std::string& caption) {
  return "<figure class=\"panel\"><figcaption><h2>" + esc(title) + "</h2><p>" + esc(caption) +
         " <span id=\"" + id.substr(6) +
         "-note\"></span></p></figcaption><div class=\"chart\"><canvas id=\"" + id +
         "\" role=\"img\" aria-label=\"" + esc(title) + "\"></canvas></div></figure>\n";
}

std::string cap_text(const std::optional<double>& v) { return v ? format_usd(*v) : "–"; }

// The data the page's script turns into charts. "</" is escaped so no string in it can close
// the <script> element it lives in.
std::string data_json(const SimReport& r, const std::vector<WaitBucket>& waits,
                      const std::vector<std::string>& charted_ns) {
  Json j;
  const std::size_t n = r.series.size();
  const std::size_t stride = n > kMaxChartPoints ? (n + kMaxChartPoints - 1) / kMaxChartPoints : 1;
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < n; i += stride) idx.push_back(i);
  if (n > 0 && idx.back() != n - 1) idx.push_back(n - 1);
  Json t = Json::array(), nodes = Json::array(), gp = Json::array(), gu = Json::array(),
       rate = Json::array(), pending = Json::array(), running = Json::array();
  for (std::size_t i : idx) {
    const auto& s = r.series[i];
    t.push_back(std::round(static_cast<double>(s.t_s) / 36.0) / 100.0);  // hours, 2 decimals
    nodes.push_back(s.nodes);
    gp.push_back(s.gpus_provisioned);
    gu.push_back(s.gpus_used);
    rate.push_back(std::round(s.usd_per_hour * 100) / 100);
    pending.push_back(s.pending_pods);
    running.push_back(s.running_pods);
  }
  j["series"] = {{"t_h", t},
                 {"nodes", nodes},
                 {"gpus_provisioned", gp},
                 {"gpus_used", gu},
                 {"usd_per_hour", rate},
                 {"pending_pods", pending},
                 {"running_pods", running}};
  Json wl = Json::array(), wc = Json::array();
  for (const auto& b : waits) {
    wl.push_back(b.label);
    wc.push_back(b.count);
  }
  j["wait"] = {{"labels", wl}, {"counts", wc}};

  std::vector<std::pair<std::string, double>> by_ns(r.cost_usd.by_namespace.begin(),
                                                    r.cost_usd.by_namespace.end());
  std::sort(by_ns.begin(), by_ns.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  Json nl = Json::array(), nc = Json::array();
  for (const auto& [ns, v] : by_ns) {
    nl.push_back(ns);
    nc.push_back(std::round(v * 100) / 100);
  }
  j["namespaces"] = {{"labels", nl}, {"cost", nc}};

  Json budget = Json::array();
  for (const auto& ns : charted_ns) {
    const auto& sn = r.namespaces.at(ns);
    Json cum = Json::array();
    for (std::size_t i : idx) {
      cum.push_back(i < sn.cumulative_usd.size() ? std::round(sn.cumulative_usd[i] * 100) / 100
                                                 : 0.0);
    }
    Json caps = Json::object();
    if (sn.usd_per_day) caps["day"] = *sn.usd_per_day;
    if (sn.usd_per_month) caps["month"] = *sn.usd_per_month;
    budget.push_back({{"namespace", ns}, {"cumulative_usd", cum}, {"caps", caps}});
  }
  j["budget"] = budget;

  std::string out = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string safe;
  safe.reserve(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '<' && i + 1 < out.size() && out[i + 1] == '/')
      safe += "<\\";
    else
      safe += out[i];
  }
  return safe;
}

const char* kStyle = R"CSS(
:root { --ink:#0f172a; --muted:#64748b; --line:#e2e8f0; --bg:#f8fafc; --accent:#2563eb; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
       color:var(--ink); background:var(--bg); }
header { background:#0f172a; color:#f8fafc; padding:20px 32px; }
header h1 { margin:0; font-size:22px; font-weight:650; letter-spacing:-0.01em; }
header p { margin:4px 0 0; color:#cbd5e1; }
main { padding:20px 32px 40px; max-width:1400px; margin:0 auto; }
.cards { display:grid; grid-template-columns:repeat(auto-fill,minmax(200px,1fr)); gap:12px; margin-bottom:20px; }
.card { background:#fff; border:1px solid var(--line); border-radius:10px; padding:12px 14px; }
.card-title { color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:0.04em; }
.card-value { font-size:24px; font-weight:650; margin:2px 0; font-variant-numeric:tabular-nums; }
.card-detail { color:var(--muted); font-size:12.5px; }
.grid { display:grid; grid-template-columns:repeat(auto-fit,minmax(560px,1fr)); gap:16px; }
.panel { background:#fff; border:1px solid var(--line); border-radius:10px; padding:14px 16px; margin:0; }
.panel h2 { font-size:15px; margin:0; }
.note { color:var(--muted); font-size:12.5px; margin:10px 0 0; max-width:70ch; }
.panel figcaption p { margin:2px 0 8px; color:var(--muted); font-size:12.5px; }
.chart { position:relative; height:280px; }
section.tables .wide { grid-column: span 2; }
@media (max-width: 900px) { section.tables .wide { grid-column: auto; } }
section.tables { display:grid; grid-template-columns:repeat(auto-fit,minmax(420px,1fr)); gap:16px; margin-top:20px; }
table { border-collapse:collapse; width:100%; font-variant-numeric:tabular-nums; }
th, td { text-align:left; padding:5px 8px; border-bottom:1px solid var(--line); font-size:13px; }
th { color:var(--muted); font-weight:600; font-size:12px; text-transform:uppercase; letter-spacing:0.03em; }
td.num, th.num { text-align:right; }
footer { color:var(--muted); font-size:12px; padding:0 32px 24px; max-width:1400px; margin:0 auto; }
)CSS";

// Builds every chart from the JSON data block. Animation is off so each chart is complete when
// its constructor returns; the canvas then gets data-drawn="true" (checked by the e2e test).
const char* kScript = R"JS(
(function () {
  var data = JSON.parse(document.getElementById('fitscale-data').textContent);
  var palette = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777', '#4b5563'];
  Chart.defaults.animation = false;
  Chart.defaults.responsive = true;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif';
  Chart.defaults.color = '#334155';
  Chart.defaults.plugins.legend.labels.boxWidth = 12;
  var hours = data.series.t_h;
  function pts(ys) { return hours.map(function (x, i) { return { x: x, y: ys[i] }; }); }
  function series(label, ys, color, extra) {
    var d = { label: label, data: pts(ys), borderColor: color, backgroundColor: color + '33', borderWidth: 1.6,
              pointRadius: 0, tension: 0, stepped: true };
    for (var k in (extra || {})) d[k] = extra[k];
    return d;
  }
  function timeAxes(ytitle, money) {
    return {
      x: { type: 'linear', title: { display: true, text: 'hours since trace start' }, grid: { color: '#eef2f7' } },
      y: { beginAtZero: true, title: { display: true, text: ytitle }, grid: { color: '#eef2f7' },
           ticks: money ? { callback: function (v) { return '$' + Number(v).toLocaleString(); } } : {} }
    };
  }
  function make(id, config) {
    var canvas = document.getElementById(id);
    if (!canvas) return;
    try {
      new Chart(canvas, config);
      canvas.setAttribute('data-drawn', 'true');
      canvas.setAttribute('data-png-length', String(canvas.toDataURL('image/png').length));
    } catch (e) {
      canvas.setAttribute('data-error', String(e));
    }
  }
  var s = data.series;
  make('chart-nodes', { type: 'line', data: { datasets: [
      series('nodes', s.nodes, palette[0]),
      series('GPUs provisioned', s.gpus_provisioned, palette[3], { fill: false }),
      series('GPUs used', s.gpus_used, palette[1], { fill: true })] },
    options: { scales: timeAxes('count'), interaction: { mode: 'nearest', intersect: false } } });
  make('chart-cost-rate', { type: 'line', data: { datasets: [
      series('$ per hour', s.usd_per_hour, palette[4], { fill: true })] },
    options: { scales: timeAxes('$ / hour', true), plugins: { legend: { display: false } } } });
  make('chart-pending', { type: 'line', data: { datasets: [
      series('pending pods', s.pending_pods, palette[2], { fill: true }),
      series('running pods', s.running_pods, palette[5])] },
    options: { scales: timeAxes('pods') } });
  make('chart-wait', { type: 'bar', data: { labels: data.wait.labels, datasets: [
      { label: 'jobs', data: data.wait.counts, backgroundColor: palette[0] + 'cc', borderRadius: 3 }] },
    options: { plugins: { legend: { display: false } },
               scales: { x: { title: { display: true, text: 'wait from submit to all replicas running' } },
                         y: { beginAtZero: true, title: { display: true, text: 'jobs' } } } } });
  make('chart-namespaces', { type: 'bar', data: { labels: data.namespaces.labels, datasets: [
      { label: 'cost', data: data.namespaces.cost,
        backgroundColor: data.namespaces.labels.map(function (_, i) { return palette[i % palette.length] + 'cc'; }),
        borderRadius: 3 }] },
    options: { indexAxis: 'y', plugins: { legend: { display: false } },
               scales: { x: { beginAtZero: true, ticks: { callback: function (v) { return '$' + Number(v).toLocaleString(); } } } } } });
  var budgetSets = [], maxSpent = 0, caps = {};
  data.budget.forEach(function (b, i) {
    budgetSets.push(series(b.namespace, b.cumulative_usd, palette[i % palette.length], { stepped: false }));
    b.cumulative_usd.forEach(function (v) { if (v > maxSpent) maxSpent = v; });
    if (b.caps.month !== undefined) caps[b.caps.month] = (caps[b.caps.month] || 0) + 1;
  });
  // One dashed line per distinct monthly cap, drawn only when it is on the chart's scale: a cap
  // 100x above the spend would flatten every line (the caption and the table still say it).
  var offScale = [];
  Object.keys(caps).forEach(function (cap) {
    var v = Number(cap);
    if (v <= maxSpent * 3 || maxSpent === 0) {
      budgetSets.push(series('monthly cap $' + v.toLocaleString() + ' (' + caps[cap] + ' ns)',
                             hours.map(function () { return v; }), '#0f172a',
                             { borderDash: [6, 4], borderWidth: 1.2, stepped: false }));
    } else {
      offScale.push('$' + v.toLocaleString());
    }
  });
  var note = document.getElementById('budget-note');
  if (note && offScale.length) note.textContent = 'Monthly caps above the scale of this chart: ' + offScale.join(', ') + '.';
  make('chart-budget', { type: 'line', data: { datasets: budgetSets },
    options: { scales: timeAxes('$ spent (cumulative)', true) } });
  document.body.setAttribute('data-charts-drawn',
      String(document.querySelectorAll('canvas[data-drawn="true"]').length));
})();
)JS";

// The bound, explained in the page itself: a person comparing runs must know that no autoscaler
// can reach it, and why.
const char* kBoundExplained =
    "<p class=\"note\" id=\"bound-explained\">The <b>fluid lower bound</b> is what the served "
    "jobs would cost if every pod paid, for exactly its run time, only its dominant share "
    "(the largest of its CPU, memory and GPU fractions) of the cheapest offering it fits, with "
    "no boot time, no idle node, no interruption, no eviction and no unused room. No real "
    "placement reaches it; the parts over it say where the difference goes. <b>Idle</b> is node "
    "time with no pod on it (boot included), the same figure <code>fitscale cost</code> shows "
    "as idle.</p>\n";

std::string peak_vs_cap(const SimNamespace& sn) {
  return format_usd(sn.peak_committed_usd_per_hour) +
         (sn.usd_per_hour ? " of " + format_usd(*sn.usd_per_hour) : std::string(" (no cap)"));
}

// Each team (namespace): what it cost, how long its jobs waited, what was refused, and its
// peak committed $/h against its hourly cap.
std::string team_table(const SimReport& r) {
  std::string h =
      "<div class=\"panel wide\" id=\"teams\"><h2>Teams</h2><table><thead><tr><th>namespace</th>"
      "<th class=\"num\">cost</th><th class=\"num\">share</th><th class=\"num\">jobs</th>"
      "<th class=\"num\">refused</th><th class=\"num\">wait p50</th><th class=\"num\">wait "
      "p90</th><th class=\"num\">wait max</th><th class=\"num\">peak $/h vs cap</th>"
      "<th class=\"num\">cap $/day</th><th class=\"num\">most in a month vs cap</th></tr>"
      "</thead><tbody>\n";
  std::vector<std::pair<double, std::string>> by_cost;
  for (const auto& [ns, v] : r.namespaces) by_cost.emplace_back(-v.cost_usd, ns);
  std::sort(by_cost.begin(), by_cost.end());
  for (const auto& [neg, ns] : by_cost) {
    const SimNamespace& sn = r.namespaces.at(ns);
    h += "<tr><td>" + esc(ns) + "</td><td class=\"num\">" + esc(format_usd(-neg)) +
         "</td><td class=\"num\">" + percent(-neg, r.cost_usd.total) + "</td><td class=\"num\">" +
         count(sn.jobs) + "</td><td class=\"num\">" + count(sn.refused) +
         "</td><td class=\"num\">" + esc(human_duration(sn.wait_s.p50)) +
         "</td><td class=\"num\">" + esc(human_duration(sn.wait_s.p90)) +
         "</td><td class=\"num\">" + esc(human_duration(sn.wait_s.max)) +
         "</td><td class=\"num\">" + esc(peak_vs_cap(sn)) + "</td><td class=\"num\">" +
         esc(cap_text(sn.usd_per_day)) + "</td><td class=\"num\">" +
         esc(format_usd(sn.max_month_usd)) +
         (sn.usd_per_month ? " of " + esc(format_usd(*sn.usd_per_month)) : std::string()) +
         "</td></tr>\n";
  }
  return h + "</tbody></table></div>\n";
}

std::string costliest_table(const SimReport& r) {
  std::string h =
      "<div class=\"panel\" id=\"costliest\"><h2>Costliest jobs</h2><table><thead><tr><th>job"
      "</th><th class=\"num\">cost</th><th class=\"num\">of which idle</th><th class=\"num\">"
      "share</th></tr></thead><tbody>\n";
  for (const auto& j : r.costliest_jobs) {
    h += "<tr><td>" + esc(j.job) + "</td><td class=\"num\">" + esc(format_usd(j.cost_usd)) +
         "</td><td class=\"num\">" + esc(format_usd(j.idle_usd)) + "</td><td class=\"num\">" +
         percent(j.cost_usd, r.cost_usd.total) + "</td></tr>\n";
  }
  if (r.costliest_jobs.empty()) h += "<tr><td colspan=\"4\">none</td></tr>\n";
  return h + "</tbody></table></div>\n";
}

std::string evictions_text(const SimEvictions& e) {
  return count(e.nodes) + " nodes drained, " + count(e.jobs) + " job runs cut short, " +
         fmt("%.1f", e.lost_job_hours) + " job-hours (" + fmt("%.1f", e.lost_gpu_hours) +
         " GPU-hours) lost";
}

std::string escape_script(const std::string& out) {
  std::string safe;
  safe.reserve(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '<' && i + 1 < out.size() && out[i + 1] == '/')
      safe += "<\\";
    else
      safe += out[i];
  }
  return safe;
}

std::vector<std::size_t> chart_points(std::size_t n) {
  const std::size_t stride = n > kMaxChartPoints ? (n + kMaxChartPoints - 1) / kMaxChartPoints : 1;
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < n; i += stride) idx.push_back(i);
  if (n > 0 && idx.back() != n - 1) idx.push_back(n - 1);
  return idx;
}

}  // namespace

std::vector<WaitBucket> wait_histogram(const std::vector<double>& waits_s) {
  std::vector<WaitBucket> b = {{"< 1m", 60, 0},      {"1–2m", 120, 0},     {"2–3m", 180, 0},
                               {"3–5m", 300, 0},     {"5–10m", 600, 0},    {"10–30m", 1800, 0},
                               {"30m–1h", 3600, 0},  {"1–3h", 10800, 0},   {"3–12h", 43200, 0},
                               {"12h–1d", 86400, 0}, {"> 1d", INFINITY, 0}};
  for (double w : waits_s) {
    for (auto& x : b) {
      if (w < x.upper_s) {
        ++x.count;
        break;
      }
    }
  }
  return b;
}

std::string report_html(const SimReport& r) {
  const auto waits = wait_histogram(r.wait_samples_s);

  // Spend-vs-budget lines for the namespaces that spent the most (a chart with 40 lines is a
  // rainbow, not a chart); all of them are in the table.
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [ns, v] : r.namespaces) ranked.emplace_back(-v.cost_usd, ns);
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> charted;
  for (const auto& [_, ns] : ranked) {
    if (charted.size() == kMaxNamespacesCharted) break;
    charted.push_back(ns);
  }

  const auto& c = r.cost_usd;
  std::string h;
  h.reserve(embedded::chart_js.size() + std::size_t{64} * 1024);
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<title>fitscale simulation: " + esc(format_usd(c.total)) + ", " + count(r.jobs.submitted) +
       " jobs</title>\n";
  h += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  h += "<header><h1>fitscale simulation report</h1><p>" + count(r.jobs.submitted) + " jobs over " +
       esc(human_duration(r.sim.virtual_s)) + " of virtual time" +
       (r.sim.start.empty() ? std::string() : " from " + esc(r.sim.start)) +
       " · controller every " + std::to_string(r.sim.interval_s) + "s · seed " +
       std::to_string(r.sim.seed) + "</p></header>\n<main>\n";

  // Headline numbers: text, readable without scripts.
  h += "<section class=\"cards\" id=\"headline\">\n";
  h += card("Total cost", format_usd(c.total),
            "spot " + format_usd(c.spot) + " · on-demand " + format_usd(c.on_demand));
  h += card("Versus lower bound",
            r.lower_bound_usd > 0 ? fmt("%.2f×", c.total / r.lower_bound_usd) : "–",
            "fluid lower bound " + format_usd(r.lower_bound_usd));
  h += card("Idle cost", format_usd(c.idle), percent(c.idle, c.total) + " of the total");
  const SimExcess& x = r.excess_usd;
  const double excess = c.total - r.lower_bound_usd;
  h += card("Over the bound", format_usd(excess),
            "boot " + format_usd(x.boot) + " · idle " + format_usd(x.idle) + " · interruptions " +
                format_usd(x.lost_to_interruptions) +
                (x.lost_to_evictions > 0 ? " · evictions " + format_usd(x.lost_to_evictions)
                                         : std::string()) +
                " · packing " + format_usd(x.packing));
  h += card("Jobs", count(r.jobs.completed) + " / " + count(r.jobs.submitted),
            "completed of submitted · " + count(r.jobs.refused) + " refused");
  h += card("Median wait", human_duration(r.wait_s.p50),
            "p90 " + human_duration(r.wait_s.p90) + " · p99 " + human_duration(r.wait_s.p99) +
                " · max " + human_duration(r.wait_s.max));
  h += card("Nodes launched", count(r.nodes.launched),
            "peak " + count(r.nodes.peak) + " · interrupted " + count(r.nodes.interrupted) +
                " · never registered " + count(r.nodes.never_registered));
  h += card("GPU hours", count(std::llround(r.gpu_hours.used)) + " used",
            "of " + count(std::llround(r.gpu_hours.provisioned)) + " provisioned (" +
                percent(r.gpu_hours.used, r.gpu_hours.provisioned) + " busy)");
  h += card("Simulation", count(r.sim.loops) + " loops",
            count(r.sim.loops_planned) + " planned · " + count(r.sim.restarts) + " restarts" +
                (r.sim.wall_s > 0 ? " · " + fmt("%.2fs", r.sim.wall_s) + " wall" : ""));
  if (r.evictions.nodes > 0)
    h += card("Lost to evictions", format_usd(r.evictions.lost_usd), evictions_text(r.evictions));
  h += "</section>\n";

  h += "<section class=\"grid\">\n";
  h += chart(
      "chart-nodes", "Nodes and GPUs, provisioned vs used",
      "Alive nodes (in flight included), GPUs they carry, and GPUs requested by running pods.");
  h += chart("chart-cost-rate", "Cost rate", "Hourly price of every alive instance.");
  h += chart("chart-pending", "Pending pods", "Pods waiting for capacity, and pods running.");
  h += chart("chart-wait", "Wait-time distribution",
             "Jobs by time from submission until all their replicas ran.");
  h += chart("chart-namespaces", "Cost by namespace",
             "Attributed by dominant share; idle time to the namespace that caused the launch.");
  h += chart("chart-budget", "Spend against budget",
             "Cumulative spend of the biggest namespaces; dashed: monthly caps.");
  h += "</section>\n";

  // Tables: the exact numbers, and the page's content without JavaScript.
  h += "<section class=\"tables\">\n";
  h += team_table(r);
  h += "<div class=\"panel\" id=\"excess\"><h2>Cost over the lower bound</h2><table><thead><tr>"
       "<th>part</th><th class=\"num\">cost</th><th class=\"num\">share</th></tr></thead>"
       "<tbody>\n";
  const std::pair<const char*, double> parts[] = {
      {"boot (before the node registered)", x.boot},
      {"idle (registered, no pod)", x.idle},
      {"work lost to interruptions", x.lost_to_interruptions},
      {"work lost to evictions", x.lost_to_evictions},
      {"packing (unused share of busy nodes)", x.packing}};
  for (const auto& [what, usd] : parts) {
    h += "<tr><td>" + esc(what) + "</td><td class=\"num\">" + esc(format_usd(usd)) +
         "</td><td class=\"num\">" + percent(usd, excess) + "</td></tr>\n";
  }
  h += "<tr><td>total over " + esc(format_usd(r.lower_bound_usd)) + "</td><td class=\"num\">" +
       esc(format_usd(excess)) + "</td><td class=\"num\">" + percent(excess, r.lower_bound_usd) +
       " of the bound</td></tr>\n";
  h += "</tbody></table>\n";
  h += kBoundExplained;
  h += "</div>\n";

  h += "<div class=\"panel\"><h2>Wait times</h2><table><thead><tr><th>wait</th><th "
       "class=\"num\">jobs</th>"
       "<th class=\"num\">share</th></tr></thead><tbody>\n";
  for (const auto& b : waits) {
    h += "<tr><td>" + esc(b.label) + "</td><td class=\"num\">" + count(b.count) +
         "</td><td class=\"num\">" +
         percent(static_cast<double>(b.count), static_cast<double>(r.wait_samples_s.size())) +
         "</td></tr>\n";
  }
  h += "<tr><td>mean</td><td class=\"num\" colspan=\"2\">" + esc(human_duration(r.wait_s.mean)) +
       "</td></tr>\n";
  h += "</tbody></table></div>\n";

  h += costliest_table(r);

  h += "<div class=\"panel\"><h2>Launches by instance type</h2><table><thead><tr><th>instance "
       "type</th>"
       "<th class=\"num\">launches</th></tr></thead><tbody>\n";
  std::vector<std::pair<std::int64_t, std::string>> types;
  for (const auto& [t, n] : r.nodes.by_instance_type) types.emplace_back(-n, t);
  std::sort(types.begin(), types.end());
  for (const auto& [n, t] : types) {
    h += "<tr><td>" + esc(t) + "</td><td class=\"num\">" + count(-n) + "</td></tr>\n";
  }
  h += "</tbody></table></div>\n";

  h +=
      "<div class=\"panel\"><h2>Refusals (" + count(static_cast<std::int64_t>(r.refusals.size())) +
      ")</h2><table><thead><tr><th>job</th><th>namespace</th><th>reason</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < r.refusals.size() && i < kMaxRefusalsListed; ++i) {
    const auto& x = r.refusals[i];
    h += "<tr><td>" + esc(x.job) + "</td><td>" + esc(x.ns) + "</td><td>" + esc(x.reason) +
         "</td></tr>\n";
  }
  if (r.refusals.empty()) h += "<tr><td colspan=\"3\">none</td></tr>\n";
  if (r.refusals.size() > kMaxRefusalsListed) {
    h += "<tr><td colspan=\"3\">… and " +
         count(static_cast<std::int64_t>(r.refusals.size() - kMaxRefusalsListed)) +
         " more in the JSON report</td></tr>\n";
  }
  h += "</tbody></table></div>\n";
  h += "</section>\n</main>\n";
  h += "<footer>Generated by fitscale simulate. Charts drawn with Chart.js (MIT), embedded in this "
       "file.</footer>\n";

  h += "<script type=\"application/json\" id=\"fitscale-data\">" + data_json(r, waits, charted) +
       "</script>\n";
  h += "<script>\n";
  h += embedded::chart_js;
  h += "\n</script>\n<script>" + std::string(kScript) + "</script>\n</body>\n</html>\n";
  return h;
}

namespace {

// The comparison page's charts: one line (or bar group) per run on each.
const char* kCompareScript = R"JS(
(function () {
  var data = JSON.parse(document.getElementById('fitscale-data').textContent);
  var palette = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777'];
  Chart.defaults.animation = false;
  Chart.defaults.responsive = true;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.color = '#334155';
  Chart.defaults.plugins.legend.labels.boxWidth = 12;
  function lines(key, extra) {
    return data.runs.map(function (run, i) {
      var d = { label: run.name, data: run.t_h.map(function (x, k) { return { x: x, y: run[key][k] }; }),
                borderColor: palette[i % palette.length], backgroundColor: palette[i % palette.length] + '33',
                borderWidth: 1.6, pointRadius: 0, tension: 0, stepped: !(extra && extra.smooth) };
      return d;
    });
  }
  function timeAxes(ytitle, money) {
    return {
      x: { type: 'linear', title: { display: true, text: 'hours since trace start' }, grid: { color: '#eef2f7' } },
      y: { beginAtZero: true, title: { display: true, text: ytitle }, grid: { color: '#eef2f7' },
           ticks: money ? { callback: function (v) { return '$' + Number(v).toLocaleString(); } } : {} }
    };
  }
  function make(id, config) {
    var canvas = document.getElementById(id);
    if (!canvas) return;
    try {
      new Chart(canvas, config);
      canvas.setAttribute('data-drawn', 'true');
      canvas.setAttribute('data-datasets', String(config.data.datasets.length));
      canvas.setAttribute('data-png-length', String(canvas.toDataURL('image/png').length));
    } catch (e) {
      canvas.setAttribute('data-error', String(e));
    }
  }
  make('chart-cumulative', { type: 'line', data: { datasets: lines('cumulative_usd', { smooth: true }) },
    options: { scales: timeAxes('$ spent (cumulative)', true) } });
  make('chart-cost-rate', { type: 'line', data: { datasets: lines('usd_per_hour') },
    options: { scales: timeAxes('$ / hour', true) } });
  make('chart-nodes', { type: 'line', data: { datasets: lines('nodes') },
    options: { scales: timeAxes('nodes') } });
  make('chart-pending', { type: 'line', data: { datasets: lines('pending_pods') },
    options: { scales: timeAxes('pending pods') } });
  make('chart-wait', { type: 'bar', data: { labels: data.wait_labels, datasets: data.runs.map(function (run, i) {
      return { label: run.name, data: run.wait_counts, backgroundColor: palette[i % palette.length] + 'cc', borderRadius: 3 };
    }) },
    options: { scales: { x: { title: { display: true, text: 'wait from submit to all replicas running' } },
                         y: { beginAtZero: true, title: { display: true, text: 'jobs' } } } } });
  make('chart-excess', { type: 'bar', data: { labels: data.runs.map(function (r) { return r.name; }),
      datasets: data.parts.map(function (part, i) {
        return { label: part, data: data.runs.map(function (r) { return r.parts[i]; }),
                 backgroundColor: palette[(i + 2) % palette.length] + 'cc' };
      }) },
    options: { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true,
               ticks: { callback: function (v) { return '$' + Number(v).toLocaleString(); } } } } } });
  document.body.setAttribute('data-charts-drawn',
      String(document.querySelectorAll('canvas[data-drawn="true"]').length));
})();
)JS";

std::string compare_data(const std::vector<NamedReport>& runs) {
  Json j;
  Json out = Json::array();
  Json labels = Json::array();
  for (const auto& b : wait_histogram({})) labels.push_back(b.label);
  for (const auto& run : runs) {
    const SimReport& r = *run.report;
    Json t = Json::array(), nodes = Json::array(), rate = Json::array(), pending = Json::array(),
         cum = Json::array(), waits = Json::array();
    for (std::size_t i : chart_points(r.series.size())) {
      const auto& x = r.series[i];
      t.push_back(std::round(static_cast<double>(x.t_s) / 36.0) / 100.0);
      nodes.push_back(x.nodes);
      rate.push_back(std::round(x.usd_per_hour * 100) / 100);
      pending.push_back(x.pending_pods);
      double spent = 0;
      for (const auto& [ns, v] : r.namespaces)
        if (i < v.cumulative_usd.size()) spent += v.cumulative_usd[i];
      cum.push_back(std::round(spent * 100) / 100);
    }
    for (const auto& b : wait_histogram(r.wait_samples_s)) waits.push_back(b.count);
    const SimExcess& x = r.excess_usd;
    Json parts = Json::array();
    for (double v : {r.lower_bound_usd, x.boot, x.idle, x.lost_to_interruptions,
                     x.lost_to_evictions, x.packing})
      parts.push_back(std::round(v * 100) / 100);
    out.push_back({{"name", run.name},
                   {"t_h", t},
                   {"nodes", nodes},
                   {"usd_per_hour", rate},
                   {"pending_pods", pending},
                   {"cumulative_usd", cum},
                   {"wait_counts", waits},
                   {"parts", parts}});
  }
  j["runs"] = out;
  j["wait_labels"] = labels;
  j["parts"] = {"lower bound", "boot", "idle", "interruptions", "evictions", "packing"};
  return escape_script(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace

std::string report_html(const std::vector<NamedReport>& runs) {
  if (runs.size() == 1) return report_html(*runs.front().report);
  std::string h;
  h.reserve(embedded::chart_js.size() + std::size_t{64} * 1024);
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  std::string names;
  for (const auto& run : runs) names += (names.empty() ? "" : " vs ") + run.name;
  h += "<title>fitscale simulate --compare: " + esc(names) + "</title>\n";
  h += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  const SimReport& first = *runs.front().report;
  h += "<header><h1>fitscale simulation: " + esc(names) + "</h1><p>" + count(first.jobs.submitted) +
       " jobs, the same trace and catalog in every run" +
       (first.sim.start.empty() ? std::string() : ", virtual time from " + esc(first.sim.start)) +
       " · seed " + std::to_string(first.sim.seed) + "</p></header>\n<main>\n";

  // The comparison: one row per figure, one column per run.
  h += "<section class=\"tables\"><div class=\"panel wide\" id=\"compare\"><h2>Runs side by "
       "side</h2><table><thead><tr><th></th>";
  for (const auto& run : runs) h += "<th class=\"num run\">" + esc(run.name) + "</th>";
  h += "</tr></thead><tbody>\n";
  auto row = [&](const std::string& what, auto&& cell) {
    h += "<tr><td>" + esc(what) + "</td>";
    for (const auto& run : runs) h += "<td class=\"num\">" + esc(cell(*run.report)) + "</td>";
    h += "</tr>\n";
  };
  row("policy", [](const SimReport& r) { return r.sim.policy; });
  row("total cost", [](const SimReport& r) { return format_usd(r.cost_usd.total); });
  row("versus the lower bound", [](const SimReport& r) {
    return r.lower_bound_usd > 0 ? fmt("%.2f×", r.cost_usd.total / r.lower_bound_usd) : "–";
  });
  row("lower bound", [](const SimReport& r) { return format_usd(r.lower_bound_usd); });
  row("over it: boot", [](const SimReport& r) { return format_usd(r.excess_usd.boot); });
  row("over it: idle (registered, no pod)",
      [](const SimReport& r) { return format_usd(r.excess_usd.idle); });
  row("over it: work lost to interruptions",
      [](const SimReport& r) { return format_usd(r.excess_usd.lost_to_interruptions); });
  row("over it: work lost to evictions",
      [](const SimReport& r) { return format_usd(r.excess_usd.lost_to_evictions); });
  row("over it: packing", [](const SimReport& r) { return format_usd(r.excess_usd.packing); });
  row("idle (node time with no pod, boot included)",
      [](const SimReport& r) { return format_usd(r.cost_usd.idle); });
  row("spot / on-demand", [](const SimReport& r) {
    return format_usd(r.cost_usd.spot) + " / " + format_usd(r.cost_usd.on_demand);
  });
  row("jobs completed / refused",
      [](const SimReport& r) { return count(r.jobs.completed) + " / " + count(r.jobs.refused); });
  row("wait p50", [](const SimReport& r) { return human_duration(r.wait_s.p50); });
  row("wait p90", [](const SimReport& r) { return human_duration(r.wait_s.p90); });
  row("wait p99", [](const SimReport& r) { return human_duration(r.wait_s.p99); });
  row("wait max", [](const SimReport& r) { return human_duration(r.wait_s.max); });
  row("nodes launched / peak",
      [](const SimReport& r) { return count(r.nodes.launched) + " / " + count(r.nodes.peak); });
  row("spot interruptions", [](const SimReport& r) { return count(r.nodes.interrupted); });
  row("nodes drained by evictions", [](const SimReport& r) { return count(r.evictions.nodes); });
  row("job runs evicted", [](const SimReport& r) { return count(r.evictions.jobs); });
  row("job-hours lost to evictions",
      [](const SimReport& r) { return fmt("%.1f", r.evictions.lost_job_hours); });
  row("GPU-hours lost to evictions",
      [](const SimReport& r) { return fmt("%.1f", r.evictions.lost_gpu_hours); });
  row("GPU-hours used / provisioned", [](const SimReport& r) {
    return count(std::llround(r.gpu_hours.used)) + " / " +
           count(std::llround(r.gpu_hours.provisioned));
  });
  row("restarts", [](const SimReport& r) { return count(r.sim.restarts); });
  h += "</tbody></table>\n";
  h += kBoundExplained;
  h += "</div></section>\n";

  h += "<section class=\"grid\" style=\"margin-top:20px\">\n";
  h += chart("chart-cumulative", "Spend over time", "Cumulative cost of every run.");
  h += chart("chart-excess", "Cost, part by part",
             "The lower bound and each part over it, per run.");
  h += chart("chart-cost-rate", "Cost rate", "Hourly price of every alive instance.");
  h += chart("chart-nodes", "Nodes", "Alive nodes (in flight included).");
  h += chart("chart-pending", "Pending pods", "Pods waiting for capacity.");
  h += chart("chart-wait", "Wait-time distribution",
             "Jobs by time from submission until all their replicas ran.");
  h += "</section>\n";

  // Teams: one row per namespace, one column group per run.
  std::set<std::string> all_ns;
  for (const auto& run : runs)
    for (const auto& [ns, v] : run.report->namespaces) all_ns.insert(ns);
  h += "<section class=\"tables\"><div class=\"panel wide\" id=\"teams\"><h2>Teams</h2><table>"
       "<thead><tr><th>namespace</th>";
  for (const auto& run : runs) h += "<th class=\"num\" colspan=\"4\">" + esc(run.name) + "</th>";
  h += "</tr><tr><th></th>";
  for (std::size_t i = 0; i < runs.size(); ++i)
    h += "<th class=\"num\">cost</th><th class=\"num\">wait p90</th><th class=\"num\">refused"
         "</th><th class=\"num\">peak $/h vs cap</th>";
  h += "</tr></thead><tbody>\n";
  for (const auto& ns : all_ns) {
    h += "<tr><td>" + esc(ns) + "</td>";
    for (const auto& run : runs) {
      auto it = run.report->namespaces.find(ns);
      if (it == run.report->namespaces.end()) {
        h += "<td colspan=\"4\">–</td>";
        continue;
      }
      const SimNamespace& sn = it->second;
      h += "<td class=\"num\">" + esc(format_usd(sn.cost_usd)) + "</td><td class=\"num\">" +
           esc(human_duration(sn.wait_s.p90)) + "</td><td class=\"num\">" + count(sn.refused) +
           "</td><td class=\"num\">" + esc(peak_vs_cap(sn)) + "</td>";
    }
    h += "</tr>\n";
  }
  h += "</tbody></table></div>\n";
  for (const auto& run : runs) {
    std::string t = costliest_table(*run.report);
    const std::string from = "<h2>Costliest jobs</h2>";
    t.replace(t.find(from), from.size(), "<h2>Costliest jobs: " + esc(run.name) + "</h2>");
    t.replace(t.find("id=\"costliest\""), 14, "");
    h += t;
  }
  h += "</section>\n</main>\n";
  h += "<footer>Generated by fitscale simulate --compare. cluster-autoscaler and karpenter runs "
       "are approximations of those systems (docs/simulator.md, \"Baselines\"). Charts drawn "
       "with Chart.js (MIT), embedded in this file.</footer>\n";
  h += "<script type=\"application/json\" id=\"fitscale-data\">" + compare_data(runs) +
       "</script>\n<script>\n";
  h += embedded::chart_js;
  h += "\n</script>\n<script>" + std::string(kCompareScript) + "</script>\n</body>\n</html>\n";
  return h;
}

}  // namespace fitscale
