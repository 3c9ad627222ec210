// The text exposition format 0.0.4 as Prometheus parses it: what a scrape shows.
#include "obs/metrics_registry.h"

#include <gtest/gtest.h>

namespace fitscale::obs {
namespace {

TEST(MetricsRegistry, CounterWithLabelsRendersHelpTypeAndSortedSeries) {
  MetricsRegistry reg;
  auto c =
      reg.counter("fitscale_launch_failures_total", "Launch requests the cloud refused.", {"code"});
  c.inc({"Unsupported"});
  c.inc({"InsufficientInstanceCapacity"}, 2);
  c.inc({"InsufficientInstanceCapacity"}, -5);  // counters never go down
  EXPECT_EQ(reg.render(),
            "# HELP fitscale_launch_failures_total Launch requests the cloud refused.\n"
            "# TYPE fitscale_launch_failures_total counter\n"
            "fitscale_launch_failures_total{code=\"InsufficientInstanceCapacity\"} 2\n"
            "fitscale_launch_failures_total{code=\"Unsupported\"} 1\n");
}

TEST(MetricsRegistry, UnlabelledFamilyShowsZeroBeforeFirstUpdate) {
  MetricsRegistry reg;
  reg.gauge("fitscale_pending_pods", "Pending pods.");
  EXPECT_EQ(reg.render(),
            "# HELP fitscale_pending_pods Pending pods.\n# TYPE fitscale_pending_pods "
            "gauge\nfitscale_pending_pods 0\n");
}

TEST(MetricsRegistry, EscapesLabelValuesAndHelp) {
  MetricsRegistry reg;
  auto g = reg.gauge("x_usd", "line one\nback\\slash \"quoted\"", {"namespace"});
  g.set({"a\"b\\c\nd"}, 1.5);
  EXPECT_EQ(reg.render(),
            "# HELP x_usd line one\\nback\\\\slash \"quoted\"\n"
            "# TYPE x_usd gauge\n"
            "x_usd{namespace=\"a\\\"b\\\\c\\nd\"} 1.5\n");
}

TEST(MetricsRegistry, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  MetricsRegistry reg;
  auto h =
      reg.histogram("fitscale_loop_duration_seconds", "Loop phase duration.", {"phase"}, {0.1, 1});
  h.observe({"plan"}, 0.05);
  h.observe({"plan"}, 0.1);  // le is inclusive
  h.observe({"plan"}, 0.5);
  h.observe({"plan"}, 7);
  EXPECT_EQ(reg.render(),
            "# HELP fitscale_loop_duration_seconds Loop phase duration.\n"
            "# TYPE fitscale_loop_duration_seconds histogram\n"
            "fitscale_loop_duration_seconds_bucket{phase=\"plan\",le=\"0.1\"} 2\n"
            "fitscale_loop_duration_seconds_bucket{phase=\"plan\",le=\"1\"} 3\n"
            "fitscale_loop_duration_seconds_bucket{phase=\"plan\",le=\"+Inf\"} 4\n"
            "fitscale_loop_duration_seconds_sum{phase=\"plan\"} 7.65\n"
            "fitscale_loop_duration_seconds_count{phase=\"plan\"} 4\n");
}

TEST(MetricsRegistry, LabelSetsAreBoundedByFoldingIntoOther) {
  MetricsRegistry reg;
  auto c = reg.counter("fitscale_refusals_total", "Refusals.", {"reason"}, 3);
  for (int i = 0; i < 100; ++i) c.inc({"reason-" + std::to_string(i)});
  std::string out = reg.render();
  // Three real series and one overflow series holding the other 97.
  EXPECT_NE(out.find("fitscale_refusals_total{reason=\"reason-0\"} 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("fitscale_refusals_total{reason=\"reason-1\"} 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("fitscale_refusals_total{reason=\"reason-2\"} 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("fitscale_refusals_total{reason=\"_other\"} 97\n"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 6);
  // Further overflow keeps landing in the one "_other" series.
  c.inc({"reason-100"});
  EXPECT_EQ(c.value({"_other"}), 98);
}

// Issue 13: the limit counted the overflow slot, so a family declared for exactly its label
// values (3 loop phases, 2 loop results) folded its last real one into "_other".
TEST(MetricsRegistry, AFamilyAtItsLimitKeepsEveryRealSeries) {
  MetricsRegistry reg;
  auto loops = reg.counter("fitscale_loops_total", "Loops.", {"result"}, 2);
  loops.inc({"planned"});
  loops.inc({"skipped"});
  auto phases = reg.histogram("fitscale_phase_seconds", "Phases.", {"phase"}, {1}, 3);
  for (const char* p : {"observe", "plan", "act"}) phases.observe({p}, 0.5);
  auto gauge = reg.gauge("fitscale_one", "One.", {"k"}, 1);
  gauge.set({"a"}, 2);
  const std::string out = reg.render();
  EXPECT_EQ(out.find("_other"), std::string::npos) << out;
  EXPECT_EQ(loops.value({"skipped"}), 1);
  EXPECT_EQ(phases.value({"act"}), 1);
  EXPECT_EQ(gauge.value({"a"}), 2);
}

TEST(MetricsRegistry, ClearDropsSeriesOfAVanishedState) {
  MetricsRegistry reg;
  auto g = reg.gauge("fitscale_nodes", "Nodes.", {"state"});
  g.set({"in-flight"}, 3);
  g.clear();
  g.set({"ready"}, 3);
  std::string out = reg.render();
  EXPECT_EQ(out.find("in-flight"), std::string::npos);
  EXPECT_NE(out.find("fitscale_nodes{state=\"ready\"} 3\n"), std::string::npos);
}

TEST(MetricsRegistry, RejectsBadDeclarations) {
  MetricsRegistry reg;
  EXPECT_THROW(reg.counter("9lives", "x"), std::invalid_argument);
  EXPECT_THROW(reg.counter("a-b", "x"), std::invalid_argument);
  EXPECT_THROW(reg.gauge("ok", "x", {"__reserved"}), std::invalid_argument);
  EXPECT_THROW(reg.histogram("h", "x", {"le"}, {1}), std::invalid_argument);
  EXPECT_THROW(reg.histogram("h", "x", {}, {2, 1}), std::invalid_argument);
  reg.gauge("dup", "x");
  EXPECT_THROW(reg.gauge("dup", "x"), std::invalid_argument);
  auto g = reg.gauge("two", "x", {"a", "b"});
  EXPECT_THROW(g.set({"only-one"}, 1), std::invalid_argument);
}

TEST(MetricsRegistry, SampleValuesUsePrometheusSpellings) {
  EXPECT_EQ(format_sample_value(1.0 / 0.0), "+Inf");
  EXPECT_EQ(format_sample_value(-1.0 / 0.0), "-Inf");
  EXPECT_EQ(format_sample_value(0.0 / 0.0), "NaN");
  EXPECT_EQ(format_sample_value(3.06), "3.06");
  EXPECT_EQ(format_sample_value(12), "12");
}

}  // namespace
}  // namespace fitscale::obs
