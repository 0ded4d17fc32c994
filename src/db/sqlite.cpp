#include "db/sqlite.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace mpiscope::db {

namespace {
// Why this process cannot change the file or create files beside it (SQLite's -wal and -shm), or
// 0 when it can.
int write_barrier(const std::string& path) {
  if (access(path.c_str(), W_OK) != 0 && errno != ENOENT) return errno;
  const auto dir = std::filesystem::path(path).parent_path();
  return access(dir.empty() ? "." : dir.c_str(), W_OK) == 0 ? 0 : errno;
}

// An SQLite URI for `path` with `query`: '?', '#' and '%' of the name are escaped.
std::string uri_of(const std::string& path, const std::string& query) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '?' || c == '#' || c == '%') {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(c));
      uri += escaped;
    } else {
      uri += c;
    }
  }
  return uri + "?" + query;
}
}  // namespace

Connection::Connection(const std::string& path, Mode mode, int busy_timeout_ms) : path_(path) {
  int flags =
      mode == Mode::kReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  std::string name = path;
  const int barrier = write_barrier(path);
  // A database no one can write through this path (a read-only file, directory or file system)
  // is read as immutable: SQLite then needs no -shm beside it (which it could not create in a
  // read-only directory) and leaves none behind.
  if (mode == Mode::kReadOnly && barrier != 0) {
    name = uri_of(path, "immutable=1");
    flags |= SQLITE_OPEN_URI;
  }
  const int rc = sqlite3_open_v2(name.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    const std::string reason = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw DbError("cannot open database '" + path + "': " + reason);
  }
  // SQLite opens a file it cannot write read-only without a word; a writer must know.
  if (mode == Mode::kReadWrite && (barrier != 0 || sqlite3_db_readonly(db_, "main") == 1)) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw DbError("cannot write the database '" + path +
                  "': " + std::strerror(barrier != 0 ? barrier : EACCES));
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, busy_timeout_ms);
}

Connection::~Connection() {
  cache_.clear();  // finalized before the connection closes
  sqlite3_close_v2(db_);
}

Statement& Connection::cached(const std::string& sql) {
  auto& s = cache_[sql];
  if (!s)
    s = std::make_unique<Statement>(*this, sql);
  else
    s->reset();
  return *s;
}

void Connection::fail(const std::string& what) const {
  throw DbError("database '" + path_ + "': " + what + ": " + sqlite3_errmsg(db_));
}

void Connection::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string reason = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw DbError("database '" + path_ + "': " + reason);
  }
}

Statement Connection::prepare(const std::string& sql) {
  return Statement(*this, sql);
}

std::int64_t Connection::last_insert_id() const {
  return sqlite3_last_insert_rowid(db_);
}

Statement::Statement(Connection& c, const std::string& sql) : conn_(&c) {
  if (sqlite3_prepare_v2(c.handle(), sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
    c.fail("cannot prepare a statement");
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept : conn_(other.conn_), stmt_(other.stmt_) {
  other.stmt_ = nullptr;
}

int Statement::parameter(const std::string& name) const {
  const int i = sqlite3_bind_parameter_index(stmt_, name.c_str());
  if (i == 0)
    throw DbError("no parameter " + name + " in '" + std::string(sqlite3_sql(stmt_)) + "'");
  return i;
}

Statement& Statement::bind(const std::string& name, std::int64_t v) {
  if (sqlite3_bind_int64(stmt_, parameter(name), v) != SQLITE_OK) conn_->fail("bind");
  return *this;
}

Statement& Statement::bind(const std::string& name, double v) {
  if (sqlite3_bind_double(stmt_, parameter(name), v) != SQLITE_OK) conn_->fail("bind");
  return *this;
}

Statement& Statement::bind(const std::string& name, const std::string& v) {
  if (sqlite3_bind_text(stmt_, parameter(name), v.data(), static_cast<int>(v.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK)
    conn_->fail("bind");
  return *this;
}

Statement& Statement::bind(const std::string& name, const std::optional<double>& v) {
  return v ? bind(name, *v) : bind_null(name);
}

Statement& Statement::bind_null(const std::string& name) {
  if (sqlite3_bind_null(stmt_, parameter(name)) != SQLITE_OK) conn_->fail("bind");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  conn_->fail("a statement failed");
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}

std::int64_t Statement::int64(int col) const {
  return sqlite3_column_int64(stmt_, col);
}

double Statement::real(int col) const {
  return sqlite3_column_double(stmt_, col);
}

std::optional<double> Statement::optional_real(int col) const {
  if (is_null(col)) return std::nullopt;
  return real(col);
}

std::string Statement::text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
           : std::string();
}

Transaction::Transaction(Connection& c) : conn_(c) {
  conn_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (!done_) {
    try {
      conn_.exec("ROLLBACK");
    } catch (...) {
      // The connection reports the failure of the statement that caused the rollback.
    }
  }
}

void Transaction::commit() {
  conn_.exec("COMMIT");
  done_ = true;
}

}  // namespace mpiscope::db
