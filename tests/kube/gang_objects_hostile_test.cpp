// Hostile input to the readers of gang and provisioning objects (JobSet, LeaderWorkerSet pods,
// Volcano and coscheduling PodGroups, ProvisioningRequests): huge, deeply nested, repeated and
// wrong-typed objects. Each is a clear error naming the object (never a crash or another
// exception), and the other objects of the same page or dump still read.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "kube/decode.h"
#include "kube/jobset_codec.h"
#include "kube/kube_provisioning_store.h"
#include "kube/pod_group_codec.h"
#include "model/error.h"

namespace fitscale {
namespace {

using json = nlohmann::json;

std::string nested(int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += R"({"a":)";
  s += "1";
  for (int i = 0; i < depth; ++i) s += "}";
  return s;
}

std::string named(const std::string& name, const std::string& rest) {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"ml"})" + rest + "}";
}

struct Page {
  std::vector<std::pair<std::string, PodGroupView>> items;
  std::vector<std::pair<std::string, std::string>> bad;
  std::map<std::string, std::string> bad_by_key() const { return {bad.begin(), bad.end()}; }
};

Page read_page(const ResourceCodec<PodGroupView>& codec, const std::vector<std::string>& items) {
  std::string page = R"({"kind":"List","items":[)";
  for (std::size_t i = 0; i < items.size(); ++i) page += (i ? "," : "") + items[i];
  page += "]}";
  Page p;
  codec.decode_list(page, p.items, p.bad);
  return p;
}

// What every PodGroup-like codec must survive; `good` is a valid object named "good-N".
void expect_survives_hostile_items(const ResourceCodec<PodGroupView>& codec,
                                   const std::function<std::string(const std::string&)>& good,
                                   const std::string& what) {
  SCOPED_TRACE(what);
  const Page p = read_page(
      codec, {good("good-1"),
              "7",                                                         // not an object
              R"({"metadata":[]})",                                        // metadata not a map
              R"({"metadata":{"name":5,"namespace":{}}})",                 // wrong-typed name
              named("deep", R"(,"spec":)" + nested(400)),                  // deeply nested spec
              named("wrong-spec", R"(,"spec":"everything")"),              // spec not a map
              R"({"metadata":{"name":"no-ns","namespace":7},"spec":[]})",  // wrong namespace
              good("good-2")});
  // The deeply nested spec is only unknown fields: read, as the API server would keep it.
  ASSERT_EQ(p.items.size(), 3u) << testing::PrintToString(p.bad);
  EXPECT_EQ(p.items[0].first, "ml/good-1");
  EXPECT_EQ(p.items[1].first, "ml/deep");
  EXPECT_EQ(p.items[2].first, "ml/good-2");
  ASSERT_EQ(p.bad.size(), 5u);
  const auto bad = p.bad_by_key();
  EXPECT_EQ(p.bad[0].first, "?");  // 7 and metadata:[] have no name to give
  EXPECT_EQ(p.bad[1].first, "?");
  EXPECT_EQ(bad.count("ml/wrong-spec"), 1u) << testing::PrintToString(p.bad);
  EXPECT_EQ(bad.count("/no-ns"), 1u) << testing::PrintToString(p.bad);
  for (const auto& [key, message] : p.bad) EXPECT_FALSE(message.empty()) << key;

  // A page that is not a list is one error naming the resource, not a crash.
  std::vector<std::pair<std::string, PodGroupView>> items;
  std::vector<std::pair<std::string, std::string>> errors;
  for (const char* page :
       {"[]", "5", R"({"items":{}})", R"({"items":"x"})", "{\"items\":[", "\"\\ud800\""}) {
    try {
      codec.decode_list(page, items, errors);
      ADD_FAILURE() << page << " was read";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(codec.resource + ": ", 0), 0u) << e.what();
    }
  }
  // No items at all is an empty page.
  EXPECT_NO_THROW(codec.decode_list(R"({"items":null})", items, errors));
  EXPECT_NO_THROW(codec.decode_list("{}", items, errors));
  EXPECT_TRUE(items.empty());
  // A watch event's object: the same errors, as InputError.
  for (const char* object : {"7", "{\"metadata\":[]}", "[", R"({"metadata":{"name":5}})"})
    EXPECT_THROW(codec.decode_object(object), InputError) << object;
}

TEST(GangObjectsHostile, PodGroupsOfBothKindsSurviveHostileItems) {
  auto good = [](const std::string& n) { return named(n, R"(,"spec":{"minMember":2})"); };
  expect_survives_hostile_items(pod_group_codec(), good, "coscheduling");
  expect_survives_hostile_items(volcano_pod_group_codec(), good, "volcano");
}

TEST(GangObjectsHostile, JobSetsSurviveHostileItems) {
  auto good = [](const std::string& n) {
    return named(
        n,
        R"(,"spec":{"replicatedJobs":[{"name":"w","replicas":2,"template":{"spec":{"parallelism":2,"completions":2}}}]})");
  };
  expect_survives_hostile_items(jobset_codec(), good, "jobset");
}

TEST(GangObjectsHostile, AJobSetOfAbsurdSizeOrWrongTypesIsRefusedNamingItsField) {
  const ResourceCodec<PodGroupView> codec = jobset_codec();
  std::string many = R"(,"spec":{"replicatedJobs":[)";
  for (int i = 0; i < 5000; ++i)
    many += (i ? "," : "") + std::string(R"({"name":"r)") + std::to_string(i) +
            R"(","replicas":1000000,"template":{"spec":{"parallelism":1000000}}})";
  many += "]}";
  const Page p = read_page(
      codec, {named("huge", many),
              named("neg", R"(,"spec":{"replicatedJobs":[{"name":"w","replicas":-1}]})"),
              named("float", R"(,"spec":{"replicatedJobs":[{"name":"w","replicas":1.5}]})"),
              named("string", R"(,"spec":{"replicatedJobs":[{"name":"w","replicas":"2"}]})"),
              named("jobs-map", R"(,"spec":{"replicatedJobs":{"w":1}})"),
              named("job-list", R"(,"spec":{"replicatedJobs":[[1]]})"),
              named("ok", R"(,"spec":{"replicatedJobs":[{"name":"w","replicas":3}]})")});
  ASSERT_EQ(p.items.size() + p.bad.size(), 7u) << testing::PrintToString(p.bad);
  const auto bad = p.bad_by_key();
  for (const char* k : {"ml/neg", "ml/float", "ml/string", "ml/jobs-map", "ml/job-list"})
    EXPECT_EQ(bad.count(k), 1u) << k << ": " << testing::PrintToString(p.bad);
  // 5000 x 10^6 x 10^6 pods overflows int64 if multiplied blindly: refused or held, never UB.
  if (!bad.count("ml/huge")) {
    for (const auto& [key, g] : p.items)
      if (key == "ml/huge") {
        EXPECT_GT(g.min_member, 0);
      }
  }
  bool ok = false;
  for (const auto& [key, g] : p.items) ok |= key == "ml/ok" && g.min_member == 3;
  EXPECT_TRUE(ok) << "the good JobSet after the bad ones was not read";
  // A number no JSON reader holds makes the page unreadable: one error naming the resource.
  std::vector<std::pair<std::string, PodGroupView>> items;
  std::vector<std::pair<std::string, std::string>> errors;
  try {
    codec.decode_list(R"({"items":[{"spec":{"replicatedJobs":[{"replicas":1e400}]}}]})", items,
                      errors);
    ADD_FAILURE() << "1e400 was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("jobsets: not JSON: ", 0), 0u) << e.what();
  }
}

TEST(GangObjectsHostile, RepeatedObjectsAreEachReadUnderTheSameKey) {
  // The informer's cache keeps the last; the reader neither merges nor refuses duplicates.
  const Page p = read_page(pod_group_codec(), {named("g", R"(,"spec":{"minMember":2})"),
                                               named("g", R"(,"spec":{"minMember":5})")});
  ASSERT_EQ(p.items.size(), 2u);
  EXPECT_EQ(p.items[1].second.min_member, 5);
  // A key repeated inside one object: the JSON reader keeps one value, no crash.
  const Page q = read_page(pod_group_codec(),
                           {R"({"metadata":{"name":"a","name":"b","namespace":"ml"},"spec":{}})"});
  EXPECT_EQ(q.items.size() + q.bad.size(), 1u);
}

std::string pod(const std::string& name, const std::string& labels,
                const std::string& annotations = "") {
  return R"({"kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"ml","labels":{)" +
         labels + R"(},"annotations":{)" + annotations + R"(}},"spec":{"containers":[]}})";
}

TEST(GangObjectsHostile, LeaderWorkerSetAndVolcanoPodsWithHostileLabelsAreEachNamedAndSkipped) {
  const std::string lws =
      R"("leaderworkerset.sigs.k8s.io/name":"l","leaderworkerset.sigs.k8s.io/group-index":"0")";
  const std::vector<std::pair<std::string, std::string>> bad_pods = {
      {pod("lws-word", lws, R"("leaderworkerset.sigs.k8s.io/size":"four")"), "ml/lws-word"},
      {pod("lws-zero", lws, R"("leaderworkerset.sigs.k8s.io/size":"0")"), "ml/lws-zero"},
      {pod("lws-huge", lws, R"("leaderworkerset.sigs.k8s.io/size":"99999999999999999999999")"),
       "ml/lws-huge"},
      {pod("lws-typed", lws, R"("leaderworkerset.sigs.k8s.io/size":4)"), "ml/lws-typed"},
      {pod("vc-word", R"("volcano.sh/job-name":"v")",
           R"("scheduling.k8s.io/group-name":"v-1","volcano.sh/min-available":"-3")"),
       "ml/vc-word"},
      {pod("cs-nested", R"("scheduling.x-k8s.io/pod-group":)" + nested(300)), "ml/cs-nested"},
  };
  std::string items = pod("first", "");
  for (const auto& [p, key] : bad_pods) items += "," + p;
  items +=
      "," + pod("lws-ok", lws, R"("leaderworkerset.sigs.k8s.io/size":"2")") + "," + pod("last", "");
  const DecodedObjects d =
      decode_objects(R"({"kind":"List","items":[)" + items + "]}", "cluster.json", {}, true);
  std::map<std::string, std::string> bad(d.bad_pods.begin(), d.bad_pods.end());
  for (const auto& [p, key] : bad_pods) {
    if (key == "ml/vc-word" && !bad.count(key))
      continue;  // Volcano's own size annotation is
                 // not read: the PodGroup sizes it
    ASSERT_EQ(bad.count(key), 1u) << key << ": " << testing::PrintToString(d.bad_pods);
    EXPECT_FALSE(bad[key].empty());
  }
  std::vector<std::string> read;
  for (const Pod& p : d.pods) read.push_back(p.name);
  EXPECT_NE(std::find(read.begin(), read.end(), "first"), read.end());
  EXPECT_NE(std::find(read.begin(), read.end(), "last"), read.end());
  EXPECT_NE(std::find(read.begin(), read.end(), "lws-ok"), read.end());
}

TEST(GangObjectsHostile, AProvisioningRequestOfWrongTypesOrAbsurdSizeIsAnInputError) {
  const json good = json::parse(R"({"metadata":{"name":"r","namespace":"ml"},
    "spec":{"provisioningClassName":"check-capacity.autoscaling.x-k8s.io",
            "podSets":[{"podTemplateRef":{"name":"t"},"count":2}]}})");
  EXPECT_EQ(decode_provisioning_request(good).pod_sets.at(0).count, 2);
  std::vector<json> hostile = {json(7), json::array(), json::parse(R"({"metadata":[]})")};
  auto with = [&](const char* pointer, json v) {
    json j = good;
    j[json::json_pointer(pointer)] = std::move(v);
    hostile.push_back(std::move(j));
  };
  with("/metadata/name", 5);
  with("/metadata/generation", "one");
  with("/metadata/creationTimestamp", "yesterday");
  with("/spec", "x");
  with("/spec/podSets", json::object());
  with("/spec/podSets", json::array());
  with("/spec/podSets/0", 3);
  with("/spec/podSets/0/count", 1e300);
  with("/spec/podSets/0/count", 100001);
  with("/spec/podSets/0/count", "2");
  with("/spec/podSets/0/podTemplateRef", json::array({1}));
  with("/spec/parameters", json::parse(R"({"a":{"b":1}})"));
  with("/status", json::parse(R"({"conditions":[5]})"));
  with("/status", json::parse(R"({"conditions":[{"type":{"x":1}}]})"));
  with("/status", json::parse(R"({"conditions":[{"lastTransitionTime":"soon"}]})"));
  json deep = 1;
  for (int i = 0; i < 500; ++i) deep = json{{"a", std::move(deep)}};
  with("/spec/parameters", deep);
  json many = good;
  for (int i = 0; i < 20000; ++i) many["spec"]["podSets"].push_back({{"count", 1}});
  hostile.push_back(many);  // the 2nd set has no template: refused, after reading 20,001 sets
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    const std::string shown = hostile[i].dump().substr(0, 160);
    try {
      (void)decode_provisioning_request(hostile[i]);
      // metadata.generation of another type is ignored (the API server always writes a number).
      if (i == 4) continue;
      ADD_FAILURE() << shown << " was read";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()), "") << shown;
    } catch (const std::exception& e) {
      ADD_FAILURE() << shown << " threw a " << typeid(e).name() << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace fitscale
