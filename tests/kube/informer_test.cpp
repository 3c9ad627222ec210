#include "kube/informer.h"

#include <gtest/gtest.h>

#include "fake_api_server.h"
#include "test_support.h"

namespace fitscale {
namespace {

using testing::eventually;
using testing::FakeApiServer;

std::vector<std::string> names(const std::vector<Pod>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p.key());
  return out;
}

struct InformerTest : ::testing::Test {
  FakeApiServer server;
  testing::TestLog log;
  std::unique_ptr<Informer<Pod>> informer;

  void start() {
    informer = std::make_unique<Informer<Pod>>(testing::config_for(server.url()),
                                               testing::simple_codecs().pods, log.logger,
                                               testing::fast_informer_options());
    informer->start();
    ASSERT_TRUE(eventually([&] { return informer->cache().synced(); }));
  }
  bool has(const std::string& key) {
    for (const auto& k : names(informer->cache().items()))
      if (k == key) return true;
    return false;
  }
};

TEST_F(InformerTest, ListsEveryPageThenFollowsTheWatch) {
  for (int i = 0; i < 5; ++i) server.put("pods", testing::pod_json("a", "p" + std::to_string(i)));
  start();
  // 5 pods in pages of 2: three list requests, nothing lost between pages.
  EXPECT_EQ(informer->cache().size(), 5u);
  EXPECT_EQ(server.count_exact("GET", "/api/v1/pods"), 3);

  auto gen = informer->cache().generation();
  server.put("pods", testing::pod_json("a", "p9", "node-1"));
  ASSERT_TRUE(eventually([&] { return has("a/p9"); }));
  EXPECT_GT(informer->cache().generation(), gen);
  server.remove("pods", "a/p0");
  ASSERT_TRUE(eventually([&] { return !has("a/p0"); }));
  server.put("pods", testing::pod_json("a", "p1", "node-2"));  // MODIFIED
  ASSERT_TRUE(eventually([&] {
    for (const auto& p : informer->cache().items())
      if (p.name == "p1") return p.node_name == "node-2";
    return false;
  }));
  // Every request carried the bearer token.
  for (const auto& r : server.received()) EXPECT_EQ(r.authorization, "Bearer s3cret-token");
}

TEST_F(InformerTest, SurvivesTheServerClosingTheWatch) {
  server.put("pods", testing::pod_json("a", "p0"));
  start();
  ASSERT_TRUE(eventually([&] { return informer->stats().watches.load() >= 1; }));
  int lists = informer->stats().lists.load();
  server.close_watches();
  server.put("pods", testing::pod_json("a", "after-close"));
  ASSERT_TRUE(eventually([&] { return has("a/after-close"); }));
  EXPECT_GE(informer->stats().watches.load(), 2);
  EXPECT_EQ(informer->stats().lists.load(), lists);  // a closed watch resumes, no relist
  EXPECT_TRUE(informer->cache().current());
}

TEST_F(InformerTest, RelistsOnGoneErrorEvent) {
  server.put("pods", testing::pod_json("a", "p0"));
  start();
  ASSERT_TRUE(eventually([&] { return informer->stats().watches.load() >= 1; }));
  server.expire_history();  // open watch gets {"type":"ERROR","object":{"code":410}}
  ASSERT_TRUE(eventually([&] { return informer->stats().relists_gone.load() >= 1; }));
  ASSERT_TRUE(eventually([&] { return informer->stats().lists.load() >= 2; }));
  server.put("pods", testing::pod_json("a", "after-gone"));
  ASSERT_TRUE(eventually([&] { return has("a/after-gone"); }));
  EXPECT_TRUE(has("a/p0"));
}

TEST_F(InformerTest, RelistsOnHttpGone) {
  server.put("pods", testing::pod_json("a", "p0"));
  start();
  ASSERT_TRUE(eventually([&] { return informer->stats().watches.load() >= 1; }));
  server.remove("pods", "a/p0");
  ASSERT_TRUE(eventually([&] { return !has("a/p0"); }));
  server.put("pods", testing::pod_json("a", "p1"));
  server.expire_history(/*as_http_status=*/true);  // the re-watch is answered 410
  ASSERT_TRUE(eventually([&] { return informer->stats().relists_gone.load() >= 1; }));
  server.put("pods", testing::pod_json("a", "p2"));
  ASSERT_TRUE(eventually([&] { return has("a/p2") && has("a/p1"); }));
}

TEST_F(InformerTest, BadPodIsSkippedAndReportedNotFatal) {
  server.put("pods", testing::pod_json("a", "good"));
  server.put("pods", testing::pod_json("a", "broken", "", /*bad=*/true));
  start();
  EXPECT_EQ(names(informer->cache().items()), std::vector<std::string>{"a/good"});
  auto bad = informer->cache().bad();
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].key, "a/broken");
  EXPECT_NE(bad[0].error.find("bad quantity"), std::string::npos);
  // The version that failed, so it is reported once per (uid, resourceVersion).
  EXPECT_EQ(bad[0].uid, "uid-a-broken");
  EXPECT_EQ(bad[0].resource_version,
            server.object("pods", "a/broken")["metadata"]["resourceVersion"]);
  // Fixed by its owner: it comes back; a new bad one arriving on the watch is reported too.
  server.put("pods", testing::pod_json("a", "broken"));
  server.put("pods", testing::pod_json("a", "late-bad", "", true));
  ASSERT_TRUE(eventually([&] { return has("a/broken") && informer->cache().bad().size() == 1; }));
  EXPECT_EQ(informer->cache().bad()[0].key, "a/late-bad");
  EXPECT_EQ(informer->cache().bad()[0].uid, "uid-a-late-bad");
  EXPECT_EQ(informer->cache().bad()[0].resource_version,
            server.object("pods", "a/late-bad")["metadata"]["resourceVersion"]);
}

TEST_F(InformerTest, MalformedEventReconnectsAndRelists) {
  server.put("pods", testing::pod_json("a", "p0"));
  start();
  ASSERT_TRUE(eventually([&] { return informer->stats().watches.load() >= 1; }));
  server.push_raw("pods", "{this is not json");
  server.put("pods", testing::pod_json("a", "p1"));
  ASSERT_TRUE(eventually([&] { return has("a/p1"); }));
  EXPECT_GE(informer->stats().lists.load(), 2);
}

TEST(InformerNoServer, BacksOffWithoutSyncingAndSyncsWhenTheServerAppears) {
  // A port nobody listens on: the informer keeps retrying, never claims to be synced.
  testing::TestLog log;
  Informer<Pod> informer(testing::config_for("http://127.0.0.1:1"), testing::simple_codecs().pods,
                         log.logger, testing::fast_informer_options());
  informer.start();
  ASSERT_TRUE(eventually([&] { return informer.stats().failures.load() >= 3; }));
  EXPECT_FALSE(informer.cache().synced());
  informer.stop();
}

}  // namespace
}  // namespace fitscale
