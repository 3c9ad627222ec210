#include "cost/sqlite_db.h"

#include <fcntl.h>
#include <unistd.h>

#include <stdexcept>

#include "model/error.h"

namespace fitscale::cost {

SqliteDb::SqliteDb(const std::string& path, bool create) : path_(path) {
  if (create) {
    // A ledger is spend data: readable by its owner only. SQLite would create the file 0644
    // (less the umask); created empty here first, it keeps this mode, and SQLite gives its
    // -wal and -shm files the database file's mode.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) ::close(fd);
  }
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    // A missing or unreadable file is the user's input, not a fault.
    throw InputError(path + ": cannot open the ledger: " + why);
  }
  // Another process (fitscale cost while a simulation writes) may hold the lock briefly.
  sqlite3_busy_timeout(db_, 5000);
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

void SqliteDb::fail(std::string_view what) const {
  throw std::runtime_error(path_ + ": sqlite: " + std::string(what) + ": " + sqlite3_errmsg(db_));
}

void SqliteDb::exec(std::string_view sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err != nullptr ? err : "unknown error";
    sqlite3_free(err);
    throw std::runtime_error(path_ + ": sqlite: " + msg);
  }
}

SqliteStmt::SqliteStmt(SqliteDb& db, std::string_view sql) : db_(db) {
  if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) !=
      SQLITE_OK) {
    db.fail("prepare \"" + std::string(sql.substr(0, 60)) + "\"");
  }
}

SqliteStmt::~SqliteStmt() { sqlite3_finalize(stmt_); }

SqliteStmt& SqliteStmt::bind(int i, std::int64_t v) {
  if (sqlite3_bind_int64(stmt_, i, v) != SQLITE_OK) db_.fail("bind");
  return *this;
}

SqliteStmt& SqliteStmt::bind(int i, std::string_view v) {
  if (sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT) !=
      SQLITE_OK) {
    db_.fail("bind");
  }
  return *this;
}

SqliteStmt& SqliteStmt::bind_null(int i) {
  if (sqlite3_bind_null(stmt_, i) != SQLITE_OK) db_.fail("bind");
  return *this;
}

bool SqliteStmt::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail("step");
}

void SqliteStmt::run() {
  while (step()) {
  }
  reset();
}

void SqliteStmt::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string SqliteStmt::text_at(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  return p == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(p));
}

SqliteTransaction::SqliteTransaction(SqliteDb& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

SqliteTransaction::~SqliteTransaction() {
  if (!done_) {
    char* err = nullptr;
    sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, &err);
    sqlite3_free(err);
  }
}

void SqliteTransaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace fitscale::cost
