// A small RAII layer over SQLite's C API: a connection, prepared statements and transactions,
// with every failure turned into a DbError that names the database file and SQLite's reason.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace mpiscope::db {

class DbError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Statement;

class Connection {
 public:
  enum class Mode { kReadWrite, kReadOnly };
  // Opens (kReadWrite: creating) the file. Waits up to busy_timeout_ms for other writers.
  explicit Connection(const std::string& path, Mode mode = Mode::kReadWrite,
                      int busy_timeout_ms = 60000);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void exec(const std::string& sql);  // one or more statements without results
  Statement prepare(const std::string& sql);
  std::int64_t last_insert_id() const;
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& what) const;  // throws DbError with SQLite's message
  sqlite3* handle() { return db_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(Connection& c, const std::string& sql);
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;

  // Parameters are numbered from 1, as in SQL's ?1, ?2, ….
  Statement& bind(int i, std::int64_t v);
  Statement& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  Statement& bind(int i, std::size_t v) { return bind(i, static_cast<std::int64_t>(v)); }
  Statement& bind(int i, bool v) { return bind(i, static_cast<std::int64_t>(v)); }
  Statement& bind(int i, double v);
  Statement& bind(int i, const std::string& v);
  Statement& bind(int i, const char* v) { return bind(i, std::string(v)); }
  Statement& bind(int i, const std::optional<double>& v);
  Statement& bind_null(int i);

  bool step();  // true: a row is available; false: done
  void run();   // steps to completion (INSERT, UPDATE, …)
  void reset();

  bool is_null(int col) const;
  std::int64_t int64(int col) const;
  double real(int col) const;
  std::optional<double> optional_real(int col) const;
  std::string text(int col) const;

 private:
  Connection* conn_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE … COMMIT; rolled back when destroyed uncommitted. IMMEDIATE takes the write
// lock at once, so that two writers queue on the busy timeout instead of deadlocking.
class Transaction {
 public:
  explicit Transaction(Connection& c);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Connection& conn_;
  bool done_ = false;
};

}  // namespace mpiscope::db
