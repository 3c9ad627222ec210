// A pending pod's PersistentVolumeClaim bound to a zonal PersistentVolume confines it to that
// zone; unbound (WaitForFirstConsumer) claims, unknown volumes and volumes without a zone leave
// it free; a bad claim or volume is an error naming it, and the others still read.
#include "kube/volume_topology.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kube/decode.h"
#include "model/error.h"

namespace fitscale {
namespace {

using nlohmann::json;

json volume(const std::string& name, const std::string& key, const json& zones) {
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolume"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"nodeAffinity",
             {{"required",
               {{"nodeSelectorTerms",
                 {{{"matchExpressions",
                    {{{"key", key}, {"operator", "In"}, {"values", zones}}}}}}}}}}}}}};
}

json claim(const std::string& name, const std::string& volume_name) {
  json c = {{"apiVersion", "v1"},
            {"kind", "PersistentVolumeClaim"},
            {"metadata", {{"name", name}, {"namespace", "ml"}}},
            {"spec", {{"storageClassName", "gp3"}}}};
  if (!volume_name.empty()) c["spec"]["volumeName"] = volume_name;
  return c;
}

Pod pending_with_claims(const std::vector<std::string>& claims) {
  json volumes = json::array();
  for (const auto& c : claims)
    volumes.push_back({{"name", c}, {"persistentVolumeClaim", {{"claimName", c}}}});
  volumes.push_back({{"name", "scratch"}, {"emptyDir", json::object()}});
  const json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "trainer"}, {"namespace", "ml"}}},
      {"spec",
       {{"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "1"}}}}}}}},
        {"volumes", volumes}}},
      {"status", {{"phase", "Pending"}}}};
  return decode_pod_json(pod.dump(), {});
}

TEST(VolumeTopology, DecoderReadsTheClaimsAPodMounts) {
  EXPECT_EQ(pending_with_claims({"data", "ckpt"}).volume_claims,
            (std::vector<std::string>{"data", "ckpt"}));
}

TEST(VolumeTopology, BoundClaimConfinesThePodToItsVolumesZone) {
  std::vector<Pod> pods = {pending_with_claims({"data"})};
  apply_volume_zones(
      pods, {decode_claim(claim("data", "pv-1"))},
      {decode_volume(volume("pv-1", "topology.kubernetes.io/zone", {"us-east-1b"}))});
  EXPECT_EQ(pods[0].constraints.volume_zones, (std::vector<std::string>{"us-east-1b"}));
}

TEST(VolumeTopology, EbsCsiZoneKeyIsReadAndTwoClaimsIntersect) {
  std::vector<Pod> pods = {pending_with_claims({"data", "ckpt"})};
  apply_volume_zones(
      pods, {decode_claim(claim("data", "pv-1")), decode_claim(claim("ckpt", "pv-2"))},
      {decode_volume(volume("pv-1", "topology.ebs.csi.aws.com/zone", {"us-east-1a", "us-east-1c"})),
       decode_volume(volume("pv-2", "topology.kubernetes.io/zone", {"us-east-1c"}))});
  EXPECT_EQ(pods[0].constraints.volume_zones, (std::vector<std::string>{"us-east-1c"}));
}

TEST(VolumeTopology, UnboundClaimUnknownVolumeAndZonelessVolumeLeaveThePodFree) {
  json zoneless = volume("pv-3", "kubernetes.io/hostname", {"n1"});
  std::vector<Pod> pods = {pending_with_claims({"waiting"}), pending_with_claims({"lost"}),
                           pending_with_claims({"local"})};
  apply_volume_zones(pods,
                     {decode_claim(claim("waiting", "")), decode_claim(claim("lost", "pv-gone")),
                      decode_claim(claim("local", "pv-3"))},
                     {decode_volume(zoneless)});
  for (const Pod& p : pods) EXPECT_TRUE(p.constraints.volume_zones.empty());
}

TEST(VolumeTopology, BadObjectsAreErrorsNamingThemAndTheOthersStillRead) {
  json bad = volume("pv-bad", "topology.kubernetes.io/zone", "us-east-1a");  // not an array
  try {
    decode_volume(bad);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("PersistentVolume pv-bad"), std::string::npos) << e.what();
  }
  const json page = {{"items", {bad, volume("pv-ok", "topology.kubernetes.io/zone", {"z"})}}};
  std::vector<std::pair<std::string, VolumeView>> items;
  std::vector<std::pair<std::string, std::string>> errors;
  volume_codec().decode_list(page.dump(), items, errors);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].second.name, "pv-ok");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].first, "/pv-bad");
  json bad_claim = claim("c", "");
  bad_claim["spec"]["volumeName"] = 7;
  EXPECT_THROW(decode_claim(bad_claim), InputError);
}

}  // namespace
}  // namespace fitscale
