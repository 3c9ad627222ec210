#include <gtest/gtest.h>

#include "vcluster/api_error.h"
#include "vcluster/object_store.h"
#include "vcluster/watch_stream.h"

namespace fitscale::vcluster {
namespace {

class FixedClock final : public Clock {
 public:
  Time now() const override { return 1'800'000'000; }
};

nlohmann::json obj(const std::string& name,
                   const nlohmann::json& labels = nlohmann::json::object()) {
  return {
      {"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}, {"labels", labels}}}};
}

std::uint64_t rv_of(const nlohmann::json& o) {
  return std::stoull(o["metadata"]["resourceVersion"].get<std::string>());
}

TEST(VclusterStore, ResourceVersionIsOneGlobalCounter) {
  FixedClock clock;
  ObjectStore store(clock, 100);
  auto a = store.create("pods", "default", obj("a"));
  auto n = store.create("nodes", "", obj("n"));
  auto b = store.create("pods", "default", obj("b"));
  EXPECT_LT(rv_of(a), rv_of(n));
  EXPECT_LT(rv_of(n), rv_of(b));
  EXPECT_EQ(store.resource_version(), rv_of(b));
  EXPECT_FALSE(a["metadata"]["uid"].get<std::string>().empty());
  EXPECT_NE(a["metadata"]["uid"], b["metadata"]["uid"]);
  EXPECT_EQ(a["metadata"]["creationTimestamp"], "2027-01-15T08:00:00Z");
}

TEST(VclusterStore, ConflictsAndNotFound) {
  FixedClock clock;
  ObjectStore store(clock, 100);
  auto a = store.create("pods", "default", obj("a"));
  try {
    store.create("pods", "default", obj("a"));
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), "AlreadyExists");
  }
  auto updated = a;
  updated["metadata"]["labels"]["x"] = "1";
  auto stored = store.replace("pods", "default", "a", updated);
  EXPECT_GT(rv_of(stored), rv_of(a));
  // `updated` still carries the old version: a second PUT with it is a Conflict.
  updated["metadata"]["labels"]["x"] = "2";
  try {
    store.replace("pods", "default", "a", updated);
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 409);
    EXPECT_EQ(e.reason(), "Conflict");
  }
  EXPECT_THROW(store.get("pods", "default", "zzz"), ApiError);
  EXPECT_THROW(store.remove("pods", "other-ns", "a"), ApiError);
}

TEST(VclusterStore, UnchangedMutationMakesNoEvent) {
  FixedClock clock;
  ObjectStore store(clock, 100);
  auto a = store.create("pods", "default", obj("a"));
  auto same = store.mutate("pods", "default", "a", [](nlohmann::json&) {});
  EXPECT_EQ(rv_of(same), rv_of(a));
  EXPECT_TRUE(store.wait_for_events("pods", rv_of(a), std::chrono::milliseconds(0)).empty());
}

TEST(VclusterStore, EventsAfterAVersionInOrder) {
  FixedClock clock;
  ObjectStore store(clock, 100);
  auto a = store.create("pods", "default", obj("a"));
  store.create("nodes", "", obj("n"));
  store.mutate("pods", "default", "a",
               [](nlohmann::json& o) { o["metadata"]["labels"]["k"] = "v"; });
  store.remove("pods", "default", "a");
  auto events = store.wait_for_events("pods", rv_of(a), std::chrono::milliseconds(0));
  ASSERT_EQ(events.size(), 2u);  // the node's event is another resource's
  EXPECT_EQ(events[0].type, "MODIFIED");
  EXPECT_EQ(events[0].previous["metadata"]["labels"].size(), 0u);
  EXPECT_EQ(events[1].type, "DELETED");
  EXPECT_LT(events[0].resource_version, events[1].resource_version);
}

TEST(VclusterStore, TooOldVersionIsExpired) {
  FixedClock clock;
  ObjectStore store(clock, 3);
  auto first = store.create("pods", "default", obj("a"));
  for (int i = 0; i < 5; ++i) {
    store.mutate("pods", "default", "a",
                 [i](nlohmann::json& o) { o["metadata"]["labels"]["i"] = std::to_string(i); });
  }
  try {
    store.wait_for_events("pods", rv_of(first), std::chrono::milliseconds(0));
    FAIL() << "a version older than the 3 kept changes must be expired";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 410);
    EXPECT_EQ(e.reason(), "Expired");
  }
  // The newest versions are still served.
  EXPECT_EQ(
      store.wait_for_events("pods", store.resource_version() - 2, std::chrono::milliseconds(0))
          .size(),
      2u);
}

TEST(VclusterWatchStream, SelectorTransitionsAndExpiredError) {
  FixedClock clock;
  ObjectStore store(clock, 100);
  auto a = store.create("pods", "default", obj("a", {{"app", "web"}}));
  store.mutate("pods", "default", "a",
               [](nlohmann::json& o) { o["metadata"]["labels"]["app"] = "db"; });
  store.mutate("pods", "default", "a",
               [](nlohmann::json& o) { o["metadata"]["labels"]["app"] = "web"; });
  store.close();  // the stream ends after what is already stored
  WatchRequest w;
  w.resource = &resource_by_plural("pods");
  w.labels = parse_label_selector("app=web");
  w.resource_version = std::to_string(rv_of(a));
  std::vector<std::string> types;
  stream_watch(store, w, [&](const std::string& line) {
    types.push_back(nlohmann::json::parse(line)["type"]);
    return true;
  });
  // Leaving the selector reads as DELETED, coming back as ADDED.
  EXPECT_EQ(types, (std::vector<std::string>{"DELETED", "ADDED"}));

  ObjectStore small(clock, 1);
  auto b = small.create("pods", "default", obj("b"));
  small.create("pods", "default", obj("c"));
  small.create("pods", "default", obj("d"));
  small.close();
  w.labels.clear();
  w.resource_version = std::to_string(rv_of(b));
  std::vector<nlohmann::json> lines;
  stream_watch(small, w, [&](const std::string& line) {
    lines.push_back(nlohmann::json::parse(line));
    return true;
  });
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["type"], "ERROR");
  EXPECT_EQ(lines[0]["object"]["code"], 410);
}

TEST(VclusterWatchStream, NoVersionStartsWithCurrentObjects) {
  FixedClock clock;
  ObjectStore store(clock, 100);
  store.create("pods", "default", obj("a"));
  store.create("pods", "other", obj("b"));
  store.close();
  WatchRequest w;
  w.resource = &resource_by_plural("pods");
  w.ns = "default";
  std::vector<std::string> names;
  stream_watch(store, w, [&](const std::string& line) {
    auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["type"], "ADDED");
    names.push_back(j["object"]["metadata"]["name"]);
    return true;
  });
  EXPECT_EQ(names, (std::vector<std::string>{"a"}));
}

}  // namespace
}  // namespace fitscale::vcluster
