#include "vcluster/selectors.h"

#include <gtest/gtest.h>

#include "vcluster/api_error.h"

namespace fitscale::vcluster {
namespace {

nlohmann::json pod(const nlohmann::json& labels, const std::string& node = "",
                   const std::string& phase = "Running") {
  nlohmann::json p = {{"metadata", {{"name", "p"}, {"namespace", "default"}, {"labels", labels}}},
                      {"status", {{"phase", phase}}}};
  if (!node.empty()) p["spec"]["nodeName"] = node;
  return p;
}

bool sel(const std::string& s, const nlohmann::json& obj) {
  return matches_labels(parse_label_selector(s), obj);
}

TEST(VclusterLabelSelector, EqualityAndInequality) {
  auto p = pod({{"app", "web"}, {"tier", "front"}});
  EXPECT_TRUE(sel("app=web", p));
  EXPECT_TRUE(sel("app==web", p));
  EXPECT_FALSE(sel("app=db", p));
  EXPECT_TRUE(sel("app!=db", p));
  EXPECT_FALSE(sel("app!=web", p));
  // != also selects objects without the key, as in Kubernetes.
  EXPECT_TRUE(sel("missing!=x", p));
  EXPECT_TRUE(sel("app=web,tier=front", p));
  EXPECT_FALSE(sel("app=web,tier=back", p));
  EXPECT_TRUE(sel("", p));
}

TEST(VclusterLabelSelector, SetBasedAndExistence) {
  auto p = pod({{"app", "web"}});
  EXPECT_TRUE(sel("app in (db, web)", p));
  EXPECT_FALSE(sel("app in (db)", p));
  EXPECT_TRUE(sel("app notin (db,cache)", p));
  EXPECT_FALSE(sel("app notin (web)", p));
  EXPECT_TRUE(sel("app", p));
  EXPECT_FALSE(sel("!app", p));
  EXPECT_TRUE(sel("!other", p));
  EXPECT_TRUE(sel("app in (web),!other,app!=db", p));
}

TEST(VclusterLabelSelector, MalformedIsBadRequest) {
  EXPECT_THROW(parse_label_selector("app in (web"), ApiError);
  EXPECT_THROW(parse_label_selector("app within (web)"), ApiError);
  try {
    parse_label_selector("a b c");
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 400);
  }
}

TEST(VclusterFieldSelector, NodeNamePhaseAndMissingFields) {
  auto bound = pod({}, "node-1", "Running");
  auto pending = pod({}, "", "Pending");
  auto f = [](const std::string& s, const nlohmann::json& o) {
    return matches_fields(parse_field_selector(s), o);
  };
  EXPECT_TRUE(f("spec.nodeName=node-1", bound));
  EXPECT_FALSE(f("spec.nodeName=node-2", bound));
  EXPECT_TRUE(f("spec.nodeName=", pending));  // unscheduled pods, as the autoscaler asks
  EXPECT_FALSE(f("spec.nodeName=", bound));
  EXPECT_TRUE(f("status.phase!=Succeeded,status.phase!=Failed", bound));
  EXPECT_TRUE(f("metadata.namespace==default,metadata.name=p", bound));
  nlohmann::json ev = {{"involvedObject", {{"kind", "Pod"}, {"name", "p"}}}};
  EXPECT_TRUE(f("involvedObject.kind=Pod,involvedObject.name=p", ev));
  EXPECT_THROW(parse_field_selector("spec.nodeName"), ApiError);
}

TEST(VclusterLabelSelector, FromJsonMatchesExpressions) {
  auto s = label_selector_from_json(nlohmann::json::parse(
      R"({"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"NotIn","values":["db"]}]})"));
  EXPECT_TRUE(matches(s, labels_of(pod({{"app", "web"}, {"tier", "front"}}))));
  EXPECT_FALSE(matches(s, labels_of(pod({{"app", "web"}, {"tier", "db"}}))));
  EXPECT_FALSE(matches(s, labels_of(pod({{"app", "db"}}))));
}

// `kubectl describe pod` lists a pod's events with these four; kube-apiserver refuses a field
// label events do not have, and `source` means source.component.
TEST(VclusterFieldSelector, EventsTakeTheFieldsKubeApiserverSupports) {
  nlohmann::json ev = {{"metadata", {{"name", "p.1"}, {"namespace", "ns"}}},
                       {"involvedObject",
                        {{"kind", "Pod"},
                         {"namespace", "ns"},
                         {"name", "p"},
                         {"uid", "u-1"},
                         {"apiVersion", "v1"},
                         {"resourceVersion", "9"}}},
                       {"reason", "FailedDecode"},
                       {"type", "Warning"},
                       {"source", {{"component", "fitscale"}}},
                       {"reportingComponent", "fitscale"}};
  auto f = [&](const std::string& s) {
    return matches_fields(parse_field_selector_for("events", s), ev);
  };
  EXPECT_TRUE(
      f("involvedObject.name=p,involvedObject.namespace=ns,involvedObject.kind=Pod,"
        "involvedObject.uid=u-1"));
  EXPECT_FALSE(f("involvedObject.uid=u-2"));
  EXPECT_TRUE(f("reason=FailedDecode,type=Warning,source=fitscale,reportingComponent=fitscale"));
  EXPECT_TRUE(f("involvedObject.resourceVersion=9,involvedObject.apiVersion=v1"));
  EXPECT_FALSE(f("source=kubelet"));
  try {
    parse_field_selector_for("events", "spec.nodeName=x");
    ADD_FAILURE() << "accepted a field label events do not have";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 400);
    EXPECT_NE(std::string(e.what()).find("field label not supported: spec.nodeName"),
              std::string::npos);
  }
  // Other resources keep any dotted path.
  EXPECT_NO_THROW(parse_field_selector_for("pods", "spec.nodeName=x"));
}

}  // namespace
}  // namespace fitscale::vcluster
