#include "sim/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

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
                format_usd(x.lost_to_interruptions) + " · packing " + format_usd(x.packing));
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
  h += "<div class=\"panel wide\"><h2>Cost by "
       "namespace</h2><table><thead><tr><th>namespace</th><th class=\"num\">cost</th>"
       "<th class=\"num\">share</th><th class=\"num\">cap $/h</th><th class=\"num\">cap $/day</th>"
       "<th class=\"num\">cap $/month</th></tr></thead><tbody>\n";
  std::vector<std::pair<double, std::string>> by_cost;
  for (const auto& [ns, v] : c.by_namespace) by_cost.emplace_back(-v, ns);
  std::sort(by_cost.begin(), by_cost.end());
  for (const auto& [neg, ns] : by_cost) {
    auto it = r.namespaces.find(ns);
    SimNamespace sn = it != r.namespaces.end() ? it->second : SimNamespace{};
    h += "<tr><td>" + esc(ns) + "</td><td class=\"num\">" + esc(format_usd(-neg)) +
         "</td><td class=\"num\">" + percent(-neg, c.total) + "</td><td class=\"num\">" +
         esc(cap_text(sn.usd_per_hour)) + "</td><td class=\"num\">" +
         esc(cap_text(sn.usd_per_day)) + "</td><td class=\"num\">" +
         esc(cap_text(sn.usd_per_month)) + "</td></tr>\n";
  }
  h += "</tbody></table></div>\n";

  h += "<div class=\"panel\" id=\"excess\"><h2>Cost over the lower bound</h2><table><thead><tr>"
       "<th>part</th><th class=\"num\">cost</th><th class=\"num\">share</th></tr></thead>"
       "<tbody>\n";
  const std::pair<const char*, double> parts[] = {
      {"boot (before the node registered)", x.boot},
      {"idle (registered, no pod)", x.idle},
      {"work lost to interruptions", x.lost_to_interruptions},
      {"packing (unused share of busy nodes)", x.packing}};
  for (const auto& [what, usd] : parts) {
    h += "<tr><td>" + esc(what) + "</td><td class=\"num\">" + esc(format_usd(usd)) +
         "</td><td class=\"num\">" + percent(usd, excess) + "</td></tr>\n";
  }
  h += "<tr><td>total over " + esc(format_usd(r.lower_bound_usd)) + "</td><td class=\"num\">" +
       esc(format_usd(excess)) + "</td><td class=\"num\">" + percent(excess, r.lower_bound_usd) +
       " of the bound</td></tr>\n";
  h += "</tbody></table>\n";
  // What the bound is, in the page itself: a person comparing two runs must know that no
  // autoscaler can reach it, and why.
  h += "<p class=\"note\" id=\"bound-explained\">The <b>fluid lower bound</b> is what the served "
       "jobs would cost if every pod paid, for exactly its run time, only its dominant share "
       "(the largest of its CPU, memory and GPU fractions) of the cheapest offering it fits, with "
       "no boot time, no idle node, no interruption and no unused room. No real placement reaches "
       "it; the table above says where the difference goes.</p>\n";
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

}  // namespace fitscale
