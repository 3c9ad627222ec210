#pragma once
// A thin RAII layer over the SQLite C API for the ledger: a connection, prepared statements with
// positional binding, and transactions. Errors throw with the database file named.
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace fitscale::cost {

class SqliteDb;

class SqliteStmt {
 public:
  SqliteStmt(SqliteDb& db, std::string_view sql);
  ~SqliteStmt();
  SqliteStmt(const SqliteStmt&) = delete;
  SqliteStmt& operator=(const SqliteStmt&) = delete;

  // Binds are 1-based, as in SQLite.
  SqliteStmt& bind(int i, std::int64_t v);
  SqliteStmt& bind(int i, std::string_view v);
  SqliteStmt& bind_null(int i);
  // True while there is a row; false when done. Throws on error.
  bool step();
  // Runs a statement that returns no rows, then resets it for the next use.
  void run();
  void reset();

  std::int64_t int_at(int col) const { return sqlite3_column_int64(stmt_, col); }
  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string text_at(int col) const;

 private:
  SqliteDb& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class SqliteDb {
 public:
  // `create`: make the file when missing; otherwise it must exist.
  SqliteDb(const std::string& path, bool create);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  void exec(std::string_view sql);
  [[noreturn]] void fail(std::string_view what) const;
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back when left by an exception.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDb& db);
  ~SqliteTransaction();
  void commit();

 private:
  SqliteDb& db_;
  bool done_ = false;
};

}  // namespace fitscale::cost
