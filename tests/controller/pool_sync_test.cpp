// Which pools `fitscale run` plans with when Pool objects exist, what a bad one does, and the
// status the leader writes (issue 15 item 1), through a fake PoolStore.
#include "controller/pool_sync.h"

#include <gtest/gtest.h>

#include <map>

namespace fitscale {
namespace {

class FakePoolStore final : public PoolStore {
 public:
  bool synced() const override { return true; }
  std::uint64_t generation() const override { return generation_; }
  std::vector<PoolObject> objects() const override { return objects_; }
  std::vector<BadObject> bad_objects() const override { return bad_; }
  std::string write_status(const PoolObject& of, const PoolStatus& status) override {
    if (!fail_.empty()) return fail_;
    written[of.name] = status;
    ++writes;
    return "";
  }
  void set(std::vector<PoolObject> objects, std::vector<BadObject> bad = {}) {
    objects_ = std::move(objects);
    bad_ = std::move(bad);
    ++generation_;
  }
  std::map<std::string, PoolStatus> written;
  int writes = 0;
  std::string fail_;

 private:
  std::uint64_t generation_ = 1;
  std::vector<PoolObject> objects_;
  std::vector<BadObject> bad_;
};

PoolObject object(const std::string& name, std::int64_t weight = 0) {
  PoolObject o;
  o.name = name;
  o.uid = "uid-" + name;
  o.pool.name = name;
  o.pool.weight = weight;
  return o;
}

std::vector<std::string> names(const std::vector<Pool>& pools) {
  std::vector<std::string> out;
  out.reserve(pools.size());
  for (const Pool& p : pools) out.push_back(p.name);
  return out;
}

TEST(PoolSync, WithoutObjectsTheFilesPoolsApplyWithObjectsOnlyTheObjects) {
  FakePoolStore store;
  PoolSync sync(store, {default_pool("default")});
  bool changed = false;
  EXPECT_EQ(names(sync.pools(changed)), std::vector<std::string>{"default"});
  EXPECT_TRUE(changed);
  EXPECT_EQ(sync.source(), "the config file");
  sync.pools(changed);
  EXPECT_FALSE(changed);
  store.set({object("zeta", 10), object("alpha", 90)});
  EXPECT_EQ(names(sync.pools(changed)), (std::vector<std::string>{"alpha", "zeta"}));
  EXPECT_TRUE(changed) << "the next loop plans with the objects";
  EXPECT_EQ(sync.source(), "Pool objects");
}

TEST(PoolSync, ABadObjectKeepsItsLastGoodSpecOrIsLeftOutAndIsReportedOnce) {
  FakePoolStore store;
  PoolSync sync(store, {default_pool("default")});
  std::vector<PoolProblem> problems;
  sync.on_problem([&](const PoolProblem& p) { problems.push_back(p); });
  store.set({object("gpu", 50), object("cpu")});
  bool changed = false;
  sync.pools(changed);
  // gpu becomes unreadable: its last good spec stays; "typo" was never good: left out.
  store.set({object("cpu")},
            {{"gpu", "Pool gpu: spec.weight: ...", "uid-gpu", "9"},
             {"typo", "Pool typo: spec.requirements[0].values: ...", "uid-t", "1"}});
  const auto& pools = sync.pools(changed);
  EXPECT_EQ(names(pools), (std::vector<std::string>{"cpu", "gpu"}));
  EXPECT_EQ(pools[1].weight, 50);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].name, "gpu");
  EXPECT_EQ(problems[0].uid, "uid-gpu");
  EXPECT_NE(problems[0].consequence.find("last valid spec"), std::string::npos);
  EXPECT_NE(problems[1].consequence.find("not used"), std::string::npos);
  EXPECT_NE(problems[1].consequence.find("removed when empty"), std::string::npos);
  store.set({object("cpu")},
            {{"gpu", "Pool gpu: spec.weight: ...", "uid-gpu", "9"},
             {"typo", "Pool typo: spec.requirements[0].values: ...", "uid-t", "1"}});
  sync.pools(changed);
  EXPECT_EQ(problems.size(), 2u) << "each error once";
}

TEST(PoolSync, WhenNoObjectCanBeUsedTheFilesPoolsApply) {
  FakePoolStore store;
  PoolSync sync(store, {default_pool("default")});
  std::vector<PoolProblem> problems;
  sync.on_problem([&](const PoolProblem& p) { problems.push_back(p); });
  store.set({}, {{"typo", "Pool typo: ...", "u", "1"}});
  bool changed = false;
  EXPECT_EQ(names(sync.pools(changed)), std::vector<std::string>{"default"});
  EXPECT_EQ(sync.source(), "the config file");
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[1].consequence, "the config file's pools apply until one can");
}

TEST(PoolSync, StatusIsWrittenWhereItChangedAndRetriedAfterAFailure) {
  FakePoolStore store;
  PoolSync sync(store, {});
  store.set({object("gpu"), object("cpu")});
  std::map<std::string, PoolStatus> usage{
      {"gpu", PoolStatus{2, 16, 192000, 1LL << 40, 48'960'000}}};
  store.fail_ = "HTTP 500";
  sync.write_statuses(usage);
  EXPECT_EQ(store.writes, 0);
  store.fail_.clear();
  sync.write_statuses(usage);
  EXPECT_EQ(store.writes, 2) << "both pools, cpu with zeros, so kubectl shows 0 rather than blank";
  EXPECT_EQ(store.written["gpu"].gpus, 16);
  EXPECT_EQ(store.written["cpu"].nodes, 0);
  sync.write_statuses(usage);
  EXPECT_EQ(store.writes, 2) << "nothing changed, nothing written";
  usage["cpu"] = PoolStatus{1, 0, 4000, 16LL << 30, 192'000};
  sync.write_statuses(usage);
  EXPECT_EQ(store.writes, 3);
}

}  // namespace
}  // namespace fitscale
