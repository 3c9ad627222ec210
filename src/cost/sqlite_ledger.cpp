#include "cost/sqlite_ledger.h"

#include <filesystem>
#include <map>
#include <stdexcept>

#include "cost/sqlite_db.h"
#include "model/error.h"

namespace fitscale {

using cost::SqliteStmt;
using cost::SqliteTransaction;

namespace {

constexpr std::string_view kSchemaVersion = "1";

// Closed segments never change once written; the open_* tables hold each open node's current
// segment (since when, which pods) and are rewritten at every change of that node.
constexpr std::string_view kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS nodes(
  node_id TEXT PRIMARY KEY,
  instance_type TEXT NOT NULL,
  capacity_type TEXT NOT NULL,
  micros_per_hour INTEGER NOT NULL,
  cpu_milli INTEGER NOT NULL,
  memory_bytes INTEGER NOT NULL,
  gpus INTEGER NOT NULL,
  owner_namespace TEXT NOT NULL,
  owner_job TEXT NOT NULL,
  pool TEXT NOT NULL,
  worst_case_end INTEGER NOT NULL,
  launched_at INTEGER NOT NULL,
  stopped_at INTEGER);
CREATE TABLE IF NOT EXISTS segments(
  id INTEGER PRIMARY KEY,
  node_id TEXT NOT NULL REFERENCES nodes(node_id),
  start_at INTEGER NOT NULL,
  end_at INTEGER NOT NULL,
  day_start INTEGER NOT NULL,
  node_micros INTEGER NOT NULL,
  idle_weight INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS segments_by_time ON segments(start_at);
CREATE TABLE IF NOT EXISTS segment_pods(
  segment_id INTEGER NOT NULL REFERENCES segments(id),
  pod TEXT NOT NULL, namespace TEXT NOT NULL, job TEXT NOT NULL, weight INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS segment_pods_by_segment ON segment_pods(segment_id);
CREATE TABLE IF NOT EXISTS charges(
  segment_id INTEGER NOT NULL REFERENCES segments(id),
  namespace TEXT NOT NULL, job TEXT NOT NULL, pod TEXT NOT NULL,
  idle INTEGER NOT NULL, micros INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS charges_by_segment ON charges(segment_id);
CREATE TABLE IF NOT EXISTS open_segments(
  node_id TEXT PRIMARY KEY REFERENCES nodes(node_id),
  since INTEGER NOT NULL,
  idle_weight INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS open_pods(
  node_id TEXT NOT NULL REFERENCES nodes(node_id),
  pod TEXT NOT NULL, namespace TEXT NOT NULL, job TEXT NOT NULL, weight INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS open_pods_by_node ON open_pods(node_id);
CREATE TABLE IF NOT EXISTS alerts(
  namespace TEXT NOT NULL, period TEXT NOT NULL, period_start INTEGER NOT NULL,
  threshold INTEGER NOT NULL, sent_at INTEGER NOT NULL, text TEXT NOT NULL,
  PRIMARY KEY(namespace, period, period_start, threshold));
)sql";

CapacityType capacity_from(const std::string& s) {
  if (s == "reserved") return CapacityType::Reserved;
  return s == "on-demand" ? CapacityType::OnDemand : CapacityType::Spot;
}

}  // namespace

namespace {
// Runs before the database is opened (which would create the file).
const std::string& refuse_existing(const std::string& path, SqliteLedger::Mode mode) {
  std::error_code ec;
  if (mode == SqliteLedger::Mode::CreateNew && std::filesystem::exists(path, ec)) {
    throw InputError(
        path +
        ": already exists; a simulation writes a new ledger (remove the file or choose another)");
  }
  return path;
}
}  // namespace

// The statements every change runs, prepared once (preparing them per change was a large share
// of a simulation's ledger time).
struct SqliteLedger::Statements {
  explicit Statements(cost::SqliteDb& db)
      : segment(db,
                "INSERT INTO segments(node_id, start_at, end_at, day_start, node_micros, "
                "idle_weight) VALUES(?, ?, ?, ?, ?, ?)"),
        segment_pod(db,
                    "INSERT INTO segment_pods(segment_id, pod, namespace, job, weight) VALUES(?, "
                    "?, ?, ?, ?)"),
        charge(db,
               "INSERT INTO charges(segment_id, namespace, job, pod, idle, micros) VALUES(?, ?, "
               "?, ?, ?, ?)"),
        clear_open_pods(db, "DELETE FROM open_pods WHERE node_id = ?"),
        close_open(db, "DELETE FROM open_segments WHERE node_id = ?"),
        stop_node(db, "UPDATE nodes SET stopped_at = ? WHERE node_id = ?"),
        put_open(db,
                 "INSERT OR REPLACE INTO open_segments(node_id, since, idle_weight) VALUES(?, ?, "
                 "?)"),
        open_pod(db,
                 "INSERT INTO open_pods(node_id, pod, namespace, job, weight) VALUES(?, ?, ?, ?, "
                 "?)"),
        node(db,
             "INSERT INTO nodes(node_id, instance_type, capacity_type, micros_per_hour, "
             "cpu_milli, memory_bytes, gpus, owner_namespace, owner_job, pool, worst_case_end, "
             "launched_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)") {}
  // After a failed step a statement must be reset before it is bound again.
  void reset_all() {
    for (SqliteStmt* q : {&segment, &segment_pod, &charge, &clear_open_pods, &close_open,
                          &stop_node, &put_open, &open_pod, &node})
      q->reset();
  }
  SqliteStmt segment, segment_pod, charge, clear_open_pods, close_open, stop_node, put_open,
      open_pod, node;
};

namespace {
// A simulation's ledger commits this many changes at once: large enough that a page rewritten
// by many changes reaches the file once, small enough that a reader (`fitscale cost` on a
// running replay) sees progress.
constexpr std::int64_t kSimulationChangesPerCommit = 20000;
}  // namespace

SqliteLedger::SqliteLedger(const std::string& path, Mode mode)
    : db_(std::make_unique<cost::SqliteDb>(refuse_existing(path, mode), mode != Mode::ReadOnly)),
      mode_(mode == Mode::CreateNew ? Mode::Write : mode) {
  if (mode_ == Mode::Write) {
    // WAL: a commit is durable against a killed process without an fsync per change (NORMAL
    // only risks the last commits on power loss), and readers never block the writer.
    db_->exec("PRAGMA journal_mode=WAL");
    if (mode == Mode::CreateNew) {
      // A replay that dies is run again, not resumed: no fsync at all, and many changes per
      // transaction.
      db_->exec("PRAGMA synchronous=OFF");
      changes_per_commit_ = kSimulationChangesPerCommit;
    } else {
      db_->exec("PRAGMA synchronous=NORMAL");
    }
    db_->exec(kSchema);
    SqliteStmt v(*db_, "INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', ?)");
    v.bind(1, kSchemaVersion).run();
    q_ = std::make_unique<Statements>(*db_);
  } else {
    bool ok = false;
    try {
      SqliteStmt check(*db_, "SELECT value FROM meta WHERE key = 'schema_version'");
      ok = check.step();
    } catch (const std::runtime_error&) {
      ok = false;
    }
    if (!ok) throw InputError(path + ": not a fitscale ledger (no schema_version)");
  }
  load();
}

SqliteLedger::~SqliteLedger() {
  try {
    flush();
  } catch (const std::exception&) {
    // Nowhere to report from a destructor; flush() first to see the error.
  }
}

void SqliteLedger::flush() {
  if (!tx_) return;
  tx_->commit();
  tx_.reset();
  uncommitted_ = 0;
}

void SqliteLedger::begin_change() {
  if (mode_ != Mode::Write) throw std::logic_error(db_->path() + ": ledger opened read-only");
  if (!tx_) tx_ = std::make_unique<SqliteTransaction>(*db_);
}

void SqliteLedger::end_change() {
  if (++uncommitted_ >= changes_per_commit_) flush();
}

void SqliteLedger::abandon_change() {
  q_->reset_all();
  tx_.reset();  // rolls back (in a batch: the batch's earlier changes too)
  uncommitted_ = 0;
}

void SqliteLedger::load() {
  std::map<std::string, cost::OpenSegment> open;
  {
    SqliteStmt q(*db_, "SELECT node_id, since, idle_weight FROM open_segments");
    while (q.step())
      open[q.text_at(0)] = cost::OpenSegment{q.int_at(1), cost::Split{{}, q.int_at(2)}};
  }
  {
    SqliteStmt q(
        *db_, "SELECT node_id, pod, namespace, job, weight FROM open_pods ORDER BY node_id, pod");
    while (q.step()) {
      auto it = open.find(q.text_at(0));
      if (it == open.end()) continue;
      it->second.split.pods.push_back(
          cost::PodShare{q.text_at(1), q.text_at(2), q.text_at(3), q.int_at(4)});
    }
  }
  SqliteStmt q(
      *db_,
      "SELECT node_id, instance_type, capacity_type, micros_per_hour, cpu_milli, memory_bytes, "
      "gpus, "
      "owner_namespace, owner_job, pool, worst_case_end, launched_at, stopped_at FROM nodes");
  while (q.step()) {
    cost::MeteredNode n;
    n.charge.node_id = q.text_at(0);
    n.charge.instance_type = q.text_at(1);
    n.charge.capacity_type = capacity_from(q.text_at(2));
    n.charge.micros_per_hour = q.int_at(3);
    n.charge.allocatable.cpu_milli = q.int_at(4);
    n.charge.allocatable.memory_bytes = q.int_at(5);
    n.charge.allocatable.gpus = q.int_at(6);
    n.charge.owner_namespace = q.text_at(7);
    n.charge.owner_job = q.text_at(8);
    n.charge.pool = q.text_at(9);
    n.charge.worst_case_end = q.int_at(10);
    n.launched_at = q.int_at(11);
    if (!q.is_null(12)) n.stopped_at = q.int_at(12);
    std::optional<cost::OpenSegment> o;
    if (auto it = open.find(n.charge.node_id); it != open.end() && !n.stopped_at) o = it->second;
    meter_.restore_node(n, std::move(o));
  }
  SqliteStmt totals(
      *db_,
      "SELECT c.namespace, s.day_start, SUM(c.micros) FROM charges c JOIN segments s ON s.id = "
      "c.segment_id GROUP BY c.namespace, s.day_start");
  while (totals.step())
    meter_.restore_charge(totals.text_at(0), totals.int_at(1), totals.int_at(2));
}

void SqliteLedger::write(const std::string& node_id, const std::vector<cost::Segment>& closed) {
  begin_change();
  try {
    Statements& q = *q_;
    for (const cost::Segment& s : closed) {
      q.segment.bind(1, s.node_id).bind(2, s.start).bind(3, s.end).bind(4, utc_day_start(s.start));
      q.segment.bind(5, s.node_micros).bind(6, s.split.idle_weight).run();
      const std::int64_t id = sqlite3_last_insert_rowid(db_->handle());
      for (const cost::PodShare& p : s.split.pods) {
        q.segment_pod.bind(1, id).bind(2, p.pod).bind(3, p.ns).bind(4, p.job).bind(5, p.weight);
        q.segment_pod.run();
      }
      for (const cost::Charge& c : s.charges) {
        q.charge.bind(1, id).bind(2, c.ns).bind(3, c.job).bind(4, c.pod).bind(
            5, std::int64_t{c.idle ? 1 : 0});
        q.charge.bind(6, c.micros).run();
      }
    }
    // The node's state after the change: open with its current segment, or stopped.
    q.clear_open_pods.bind(1, node_id).run();
    auto open = meter_.open().find(node_id);
    if (open == meter_.open().end()) {
      q.close_open.bind(1, node_id).run();
      const auto& node = meter_.nodes().at(node_id);
      if (node.stopped_at) q.stop_node.bind(1, *node.stopped_at).bind(2, node_id).run();
    } else {
      q.put_open.bind(1, node_id).bind(2, open->second.since);
      q.put_open.bind(3, open->second.split.idle_weight).run();
      for (const cost::PodShare& p : open->second.split.pods) {
        q.open_pod.bind(1, node_id).bind(2, p.pod).bind(3, p.ns).bind(4, p.job).bind(5, p.weight);
        q.open_pod.run();
      }
    }
  } catch (...) {
    abandon_change();
    throw;
  }
  end_change();
}

void SqliteLedger::node_started(const NodeCharge& node, Time t) {
  if (meter_.nodes().count(node.node_id) != 0)
    return;  // known: after a restart, metering carries on
  if (mode_ != Mode::Write) throw std::logic_error(db_->path() + ": ledger opened read-only");
  meter_.node_started(node, t);
  begin_change();
  try {
    SqliteStmt& ins = q_->node;
    ins.bind(1, node.node_id).bind(2, node.instance_type).bind(3, to_string(node.capacity_type));
    ins.bind(4, node.micros_per_hour)
        .bind(5, node.allocatable.cpu_milli)
        .bind(6, node.allocatable.memory_bytes);
    ins.bind(7, node.allocatable.gpus)
        .bind(8, node.owner_namespace)
        .bind(9, node.owner_job)
        .bind(10, node.pool);
    ins.bind(11, node.worst_case_end).bind(12, t).run();
    q_->put_open.bind(1, node.node_id).bind(2, t).bind(3, cost::kWholeNode).run();
  } catch (...) {
    abandon_change();
    throw;
  }
  end_change();
}

void SqliteLedger::node_stopped(const std::string& node_id, Time t) {
  if (meter_.open().count(node_id) == 0) return;
  const auto closed = meter_.node_stopped(node_id, t);
  write(node_id, closed);
}

void SqliteLedger::pods_changed(const std::string& node_id, const std::vector<PodUsage>& pods,
                                Time t) {
  auto before = meter_.open().find(node_id);
  if (before == meter_.open().end()) return;
  const cost::OpenSegment was = before->second;
  const auto closed = meter_.pods_changed(node_id, pods, t);
  const cost::OpenSegment& now = meter_.open().at(node_id);
  if (closed.empty() && now.since == was.since && now.split == was.split) return;
  write(node_id, closed);
}

std::map<std::string, NamespaceSpend, std::less<>> SqliteLedger::spend(Time now) const {
  return meter_.spend(now);
}

std::map<std::string, Micros, std::less<>> SqliteLedger::spent_to_date(Time now) const {
  return meter_.spent_to_date(now);
}

std::vector<std::string> SqliteLedger::open_nodes() const {
  std::vector<std::string> out;
  for (const auto& [id, o] : meter_.open()) out.push_back(id);
  return out;
}

namespace {

// Both alert statements start with the key's four columns, in this order.
SqliteStmt& bind_alert_key(SqliteStmt& q, const AlertKey& key) {
  return q.bind(1, key.ns)
      .bind(2, key.period)
      .bind(3, key.period_start)
      .bind(4, std::int64_t{key.threshold});
}

}  // namespace

bool SqliteLedger::was_sent(const AlertKey& key) const {
  SqliteStmt q(*db_,
               "SELECT 1 FROM alerts WHERE namespace = ? AND period = ? AND period_start = ? AND "
               "threshold = ?");
  return bind_alert_key(q, key).step();
}

void SqliteLedger::record_sent(const AlertKey& key, Time at, const std::string& text) {
  SqliteStmt q(
      *db_,
      "INSERT OR IGNORE INTO alerts(namespace, period, period_start, threshold, sent_at, text) "
      "VALUES(?, ?, ?, ?, ?, ?)");
  bind_alert_key(q, key).bind(5, at).bind(6, text).run();
}

cost::CostReport SqliteLedger::report(Time since, Time until) const {
  std::map<std::int64_t, cost::Segment> segments;
  {
    SqliteStmt q(*db_,
                 "SELECT id, node_id, start_at, end_at, node_micros, idle_weight FROM segments "
                 "WHERE end_at > ? AND start_at < ?");
    q.bind(1, since).bind(2, until);
    while (q.step()) {
      cost::Segment& s = segments[q.int_at(0)];
      s.node_id = q.text_at(1);
      s.start = q.int_at(2);
      s.end = q.int_at(3);
      s.node_micros = q.int_at(4);
      s.split.idle_weight = q.int_at(5);
    }
  }
  {
    SqliteStmt q(*db_,
                 "SELECT p.segment_id, p.pod, p.namespace, p.job, p.weight FROM segment_pods p "
                 "JOIN segments s "
                 "ON s.id = p.segment_id WHERE s.end_at > ? AND s.start_at < ? ORDER BY "
                 "p.segment_id, p.pod");
    q.bind(1, since).bind(2, until);
    while (q.step()) {
      segments[q.int_at(0)].split.pods.push_back(
          cost::PodShare{q.text_at(1), q.text_at(2), q.text_at(3), q.int_at(4)});
    }
  }
  {
    SqliteStmt q(*db_,
                 "SELECT c.segment_id, c.namespace, c.job, c.pod, c.idle, c.micros FROM charges c "
                 "JOIN segments s "
                 "ON s.id = c.segment_id WHERE s.end_at > ? AND s.start_at < ? ORDER BY c.rowid");
    q.bind(1, since).bind(2, until);
    while (q.step()) {
      segments[q.int_at(0)].charges.push_back(
          cost::Charge{q.text_at(1), q.text_at(2), q.text_at(3), q.int_at(4) != 0, q.int_at(5)});
    }
  }
  cost::CostReportBuilder b(since, until);
  for (const auto& [id, s] : segments) {
    auto node = meter_.nodes().find(s.node_id);
    if (node == meter_.nodes().end()) continue;
    b.add(s, node->second);
  }
  cost::CostReport r = b.finish();
  r.open_segments = meter_.open().size();
  return r;
}

}  // namespace fitscale
