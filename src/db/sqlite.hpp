// A small RAII layer over SQLite's C API: a connection, prepared statements and transactions,
// with every failure turned into a DbError that names the database file and SQLite's reason.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
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
  // The statement of this text, prepared once per connection and handed out again reset (its
  // bindings cleared): for statements run once per row, whose preparing costs more than their
  // running (an import of a year of nightly files prepared two statements per row). Not for a
  // statement whose rows are still being read when the same text is asked for again.
  Statement& cached(const std::string& sql);
  std::int64_t last_insert_id() const;
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& what) const;  // throws DbError with SQLite's message
  sqlite3* handle() { return db_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
  std::map<std::string, std::unique_ptr<Statement>> cache_;
};

class Statement {
 public:
  Statement(Connection& c, const std::string& sql);
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;

  // Parameters are named in the SQL (`:name`) and bound by that name, so that a statement's
  // text alone says which value goes where. Binding a name the statement lacks throws.
  Statement& bind(const std::string& name, std::int64_t v);
  Statement& bind(const std::string& name, int v) {
    return bind(name, static_cast<std::int64_t>(v));
  }
  Statement& bind(const std::string& name, std::size_t v) {
    return bind(name, static_cast<std::int64_t>(v));
  }
  Statement& bind(const std::string& name, bool v) {
    return bind(name, static_cast<std::int64_t>(v));
  }
  Statement& bind(const std::string& name, double v);
  Statement& bind(const std::string& name, const std::string& v);
  Statement& bind(const std::string& name, const char* v) { return bind(name, std::string(v)); }
  Statement& bind(const std::string& name, const std::optional<double>& v);
  Statement& bind_null(const std::string& name);

  bool step();  // true: a row is available; false: done
  void run();   // steps to completion (INSERT, UPDATE, …)
  void reset();

  bool is_null(int col) const;
  std::int64_t int64(int col) const;
  double real(int col) const;
  std::optional<double> optional_real(int col) const;
  std::string text(int col) const;

 private:
  int parameter(const std::string& name) const;  // its index; DbError when there is none

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
