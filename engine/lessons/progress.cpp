// The progress store (progress.h): SQLite, one transaction per change.
//
// [SECTION] Values read back
// [SECTION] Opening: create, check, keep what is damaged, migrate
// [SECTION] Changes
#include "lessons/progress.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace cudalab::lessons {

const char* state_name(LessonState s) {
    switch (s) {
    case LessonState::passed: return "passed";
    case LessonState::failed: return "failed";
    default: return "not tried";
    }
}

namespace {

// Any lesson has a handful of hints; a count beyond this is damage, not progress.
constexpr int max_hints = 1000;
constexpr size_t max_id_bytes = 128;
constexpr size_t max_time_bytes = 64;
// Ten checks finishing at once wait for each other's transactions (each a few milliseconds).
constexpr int busy_timeout_ms = 30000;

std::string now_iso8601() {
    std::time_t now = std::time(nullptr);
    char buf[32];
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// A prepared statement that finalises itself.
class Statement {
  public:
    Statement(sqlite3* db, const char* sql) {
        if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
    }
    ~Statement() { sqlite3_finalize(stmt_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    explicit operator bool() const { return stmt_ != nullptr; }
    sqlite3_stmt* get() const { return stmt_; }
    void bind(int i, const std::string& s) {
        sqlite3_bind_text(stmt_, i, s.data(), int(s.size()), SQLITE_TRANSIENT);
    }
    void bind(int i, long long v) { sqlite3_bind_int64(stmt_, i, v); }

  private:
    sqlite3_stmt* stmt_ = nullptr;
};

bool exec(sqlite3* db, const char* sql, std::string* error = nullptr) {
    char* message = nullptr;
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &message);
    if (rc != SQLITE_OK && error) *error = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    return rc == SQLITE_OK;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Values read back
// ---------------------------------------------------------------------------------------------

// A row as stored, each column checked for its type and range: a hand-edited or damaged store
// gives defaults and a note, never a crash or a negative hint index.
LessonProgress validated(sqlite3_stmt* row, int first_column, const std::string& id,
                         std::vector<std::string>* problems) {
    LessonProgress p;
    auto note = [&](const std::string& what) {
        if (problems && problems->size() < 20)
            problems->push_back("lesson " + id + ": " + what + "; using the default");
    };
    const int state = first_column, hints = first_column + 1, checked = first_column + 2;
    if (sqlite3_column_type(row, state) == SQLITE_TEXT) {
        const std::string s(reinterpret_cast<const char*>(sqlite3_column_text(row, state)),
                            size_t(sqlite3_column_bytes(row, state)));
        if (s == "passed") p.state = LessonState::passed;
        else if (s == "failed") p.state = LessonState::failed;
        else if (s != "not tried")
            note("state '" + s.substr(0, 32) + "' is not passed, failed or not tried");
    } else {
        note("state is not text");
    }
    if (sqlite3_column_type(row, hints) == SQLITE_INTEGER) {
        const long long h = sqlite3_column_int64(row, hints);
        if (h >= 0 && h <= max_hints) p.hints_shown = int(h);
        else
            note("hints_shown " + std::to_string(h) + " is out of range (0 to " +
                 std::to_string(max_hints) + ")");
    } else {
        note("hints_shown is not a whole number");
    }
    if (sqlite3_column_type(row, checked) == SQLITE_TEXT &&
        size_t(sqlite3_column_bytes(row, checked)) <= max_time_bytes) {
        p.last_checked.assign(reinterpret_cast<const char*>(sqlite3_column_text(row, checked)),
                              size_t(sqlite3_column_bytes(row, checked)));
        for (char c : p.last_checked)
            if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == ':' || c == '.' ||
                  c == '+')) {
                p.last_checked.clear();
                note("last_checked is not a time");
                break;
            }
    } else if (sqlite3_column_type(row, checked) != SQLITE_NULL) {
        note("last_checked is not a time");
    }
    return p;
}

bool valid_id(const std::string& id) {
    if (id.empty() || id.size() > max_id_bytes) return false;
    for (char c : id)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
            return false;
    return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Opening: create, check, keep what is damaged, migrate
// ---------------------------------------------------------------------------------------------

std::string Progress::default_path() {
    if (const char* p = std::getenv("CUDALAB_STATE"); p && *p) return p;
    if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x)
        return (fs::path(x) / "cudalab" / "progress.db").string();
    if (const char* h = std::getenv("HOME"); h && *h)
        return (fs::path(h) / ".local" / "state" / "cudalab" / "progress.db").string();
    return "cudalab-progress.db";
}

Progress::Progress(std::string path) {
    std::string legacy;
    if (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
        legacy = path;
        path = path.substr(0, path.size() - 5) + ".db";
    } else if (path.size() > 3 && path.compare(path.size() - 3, 3, ".db") == 0) {
        legacy = path.substr(0, path.size() - 3) + ".json";
    }
    path_ = std::move(path);
    std::string error;
    if (!open_database(&error)) {
        problems_.push_back("progress store " + path_ + " cannot be used (" + error +
                            "); progress is not kept this time");
        return;
    }
    std::error_code ec;
    if (!legacy.empty() && fs::is_regular_file(legacy, ec)) migrate_json(legacy);
    load();
}

Progress::~Progress() { sqlite3_close(db_); }

bool Progress::open_database(std::string* error) {
    std::error_code ec;
    const fs::path target(path_);
    if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
    for (int attempt = 0; attempt < 2; ++attempt) {
        struct stat before {};
        const bool existed = ::stat(path_.c_str(), &before) == 0;
        if (sqlite3_open_v2(path_.c_str(), &db_,
                            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                            nullptr) != SQLITE_OK) {
            *error = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            db_ = nullptr;
            return false;
        }
        sqlite3_busy_timeout(db_, busy_timeout_ms);
        std::string why;
        auto quick_check = [&] {
            Statement check(db_, "PRAGMA quick_check");
            if (!check) {
                why = sqlite3_errmsg(db_);
                return false;
            }
            const int rc = sqlite3_step(check.get());
            if (rc != SQLITE_ROW) {
                why = sqlite3_errmsg(db_);
                return false;
            }
            const char* verdict =
                reinterpret_cast<const char*>(sqlite3_column_text(check.get(), 0));
            if (verdict && std::string(verdict) == "ok") return true;
            why = verdict ? std::string(verdict).substr(0, 200) : "quick_check failed";
            return false;
        };
        const bool ok =
            quick_check() &&
            exec(
                db_,
                "BEGIN IMMEDIATE;"
                "CREATE TABLE IF NOT EXISTS lessons (id TEXT PRIMARY KEY, state TEXT NOT NULL,"
                " hints_shown INTEGER NOT NULL, last_checked TEXT);"
                "CREATE TABLE IF NOT EXISTS results (lesson TEXT NOT NULL, passed INTEGER NOT NULL,"
                " checked_at TEXT NOT NULL);"
                "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);"
                "INSERT OR IGNORE INTO meta VALUES ('schema', '1');"
                "COMMIT;",
                &why) &&
            Statement(db_, "SELECT id, state, hints_shown, last_checked FROM lessons LIMIT 0");
        if (ok) return true;
        exec(db_, "ROLLBACK");
        sqlite3_close(db_);
        db_ = nullptr;
        if (sqlite3_errstr(SQLITE_BUSY) == why || why.find("locked") != std::string::npos) {
            *error = why;
            return false;
        }
        // Damaged: kept under a name of its own (never overwritten), and a fresh store begun. The
        // file is renamed only if it is still the one found damaged (another check may have
        // replaced it already).
        struct stat now {};
        if (existed && ::stat(path_.c_str(), &now) == 0 && now.st_ino == before.st_ino &&
            now.st_dev == before.st_dev) {
            const std::string kept =
                path_ + ".damaged-" + now_iso8601() + "-" + std::to_string(::getpid());
            fs::rename(path_, kept, ec);
            problems_.push_back("the progress store " + path_ + " is damaged (" + why +
                                "); it was kept as " + kept + " and a new one begun");
        }
    }
    *error = "it is damaged and could not be replaced";
    return false;
}

void Progress::migrate_json(const std::string& legacy) {
    std::ifstream in(legacy);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
        if (!j.is_object() || !j.contains("lessons") || !j["lessons"].is_object())
            throw std::runtime_error("no lessons object");
    } catch (const std::exception& e) {
        problems_.push_back("the earlier progress file " + legacy + " could not be read (" +
                            std::string(e.what()).substr(0, 200) + "); it was left as it is");
        return;
    }
    if (!exec(db_, "BEGIN IMMEDIATE")) return;
    Statement done(db_, "SELECT value FROM meta WHERE key = 'migrated'");
    if (done && sqlite3_step(done.get()) == SQLITE_ROW) {  // another check migrated it already
        exec(db_, "COMMIT");
        return;
    }
    for (auto& [id, v] : j["lessons"].items()) {
        if (!valid_id(id) || !v.is_object()) continue;
        LessonProgress p;
        const auto state = v.find("state");
        if (state != v.end() && state->is_string())
            p.state = *state == "passed"   ? LessonState::passed
                      : *state == "failed" ? LessonState::failed
                                           : LessonState::not_tried;
        const auto hints = v.find("hints_shown");
        if (hints != v.end() && hints->is_number_integer() && *hints >= 0 && *hints <= max_hints)
            p.hints_shown = hints->get<int>();
        const auto checked = v.find("last_checked");
        if (checked != v.end() && checked->is_string() &&
            checked->get<std::string>().size() <= max_time_bytes)
            p.last_checked = checked->get<std::string>();
        Statement put(db_, "INSERT OR REPLACE INTO lessons VALUES (?1, ?2, ?3, ?4)");
        put.bind(1, id);
        put.bind(2, std::string(state_name(p.state)));
        put.bind(3, (long long)p.hints_shown);
        put.bind(4, p.last_checked);
        sqlite3_step(put.get());
    }
    exec(db_, "INSERT OR REPLACE INTO meta VALUES ('migrated', datetime('now'))");
    if (exec(db_, "COMMIT")) {
        std::error_code ec;
        fs::rename(legacy, legacy + ".migrated", ec);
    } else {
        exec(db_, "ROLLBACK");
    }
}

void Progress::load() {
    lessons_.clear();
    // The newest result of each lesson: a passed lesson whose newest check failed says so.
    std::map<std::string, bool> newest_failed;
    Statement newest(db_, "SELECT lesson, passed FROM results WHERE rowid IN (SELECT max(rowid) "
                          "FROM results GROUP BY lesson)");
    if (newest)
        while (sqlite3_step(newest.get()) == SQLITE_ROW)
            if (sqlite3_column_type(newest.get(), 0) == SQLITE_TEXT)
                newest_failed[std::string(
                    reinterpret_cast<const char*>(sqlite3_column_text(newest.get(), 0)),
                    size_t(sqlite3_column_bytes(newest.get(), 0)))] =
                    sqlite3_column_int64(newest.get(), 1) == 0;
    Statement all(db_, "SELECT id, state, hints_shown, last_checked FROM lessons");
    if (!all) return;
    while (sqlite3_step(all.get()) == SQLITE_ROW) {
        if (sqlite3_column_type(all.get(), 0) != SQLITE_TEXT) continue;
        const std::string id(reinterpret_cast<const char*>(sqlite3_column_text(all.get(), 0)),
                             size_t(sqlite3_column_bytes(all.get(), 0)));
        if (!valid_id(id)) continue;
        lessons_[id] = validated(all.get(), 1, id, &problems_);
        lessons_[id].last_failed = newest_failed.count(id) && newest_failed[id];
    }
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Changes
// ---------------------------------------------------------------------------------------------

std::string progress_label(const LessonProgress& p) {
    return p.fails_now() ? "passed before, fails now" : state_name(p.state);
}

void Progress::set_course(const std::string& key) {
    prefix_.clear();
    if (key.empty()) return;
    // A short, valid id prefix whatever the key holds (a path, spaces): its FNV-1a hash.
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
    char buf[32];
    std::snprintf(buf, sizeof buf, "course-%016llx.", (unsigned long long)h);
    prefix_ = buf;
}

LessonProgress Progress::get(const std::string& plain) const {
    const std::string id = keyed(plain);
    auto it = lessons_.find(id);
    return it == lessons_.end() ? LessonProgress{} : it->second;
}

LessonProgress Progress::read_row(const std::string& id, bool* found) {
    Statement one(db_, "SELECT state, hints_shown, last_checked FROM lessons WHERE id = ?1");
    *found = false;
    if (!one) return {};
    one.bind(1, id);
    if (sqlite3_step(one.get()) != SQLITE_ROW) return {};
    *found = true;
    return validated(one.get(), 0, id, nullptr);
}

LessonProgress Progress::update(const std::string& id,
                                const std::function<void(LessonProgress&)>& change, int result) {
    // `id` is already keyed (set_course): read the cached row directly, not through get().
    LessonProgress p = lessons_.count(id) ? lessons_.at(id) : LessonProgress{};
    if (result >= 0) p.last_failed = result == 0;
    if (!db_ || !valid_id(id)) {
        change(p);
        lessons_[id] = p;
        return p;
    }
    std::string error;
    // BEGIN IMMEDIATE takes the write lock before reading, so two checks cannot both read the old
    // row and each write their own change over the other's.
    if (!exec(db_, "BEGIN IMMEDIATE", &error)) {
        if (write_error_.empty()) write_error_ = "cannot write " + path_ + ": " + error;
        change(p);
        lessons_[id] = p;
        return p;
    }
    bool found = false;
    const bool last_failed = p.last_failed;  // the history's, not the row's
    p = read_row(id, &found);
    p.last_failed = last_failed;
    change(p);
    Statement put(db_, "INSERT OR REPLACE INTO lessons VALUES (?1, ?2, ?3, ?4)");
    put.bind(1, id);
    put.bind(2, std::string(state_name(p.state)));
    put.bind(3, (long long)p.hints_shown);
    put.bind(4, p.last_checked);
    bool ok = put && sqlite3_step(put.get()) == SQLITE_DONE;
    if (ok && result >= 0) {
        Statement add(db_, "INSERT INTO results VALUES (?1, ?2, ?3)");
        add.bind(1, id);
        add.bind(2, (long long)result);
        add.bind(3, p.last_checked);
        ok = add && sqlite3_step(add.get()) == SQLITE_DONE;
    }
    if (ok && exec(db_, "COMMIT", &error)) {
        lessons_[id] = p;
        return p;
    }
    if (error.empty()) error = sqlite3_errmsg(db_);
    exec(db_, "ROLLBACK");
    if (write_error_.empty()) write_error_ = "cannot write " + path_ + ": " + error;
    lessons_[id] = p;
    return p;
}

void Progress::record_check(const std::string& id, bool passed) {
    const std::string now = now_iso8601();
    update(
        keyed(id),
        [&](LessonProgress& p) {
            // Once passed, a lesson stays passed: experimenting afterwards should not undo
            // progress.
            if (p.state != LessonState::passed)
                p.state = passed ? LessonState::passed : LessonState::failed;
            p.last_checked = now;
        },
        passed ? 1 : 0);
}

int Progress::reveal_hint(const std::string& id, int available) {
    int index = 0;
    update(
        keyed(id),
        [&](LessonProgress& p) {
            index = std::max(0, std::min(p.hints_shown, std::max(0, available - 1)));
            if (p.hints_shown < available) ++p.hints_shown;
        },
        -1);
    return index;
}

int Progress::results_recorded(const std::string& id) const {
    if (!db_) return 0;
    Statement count(db_, "SELECT count(*) FROM results WHERE lesson = ?1");
    if (!count) return 0;
    count.bind(1, keyed(id));
    return sqlite3_step(count.get()) == SQLITE_ROW ? sqlite3_column_int(count.get(), 0) : 0;
}

bool Progress::save(std::string* error) const {
    if (write_error_.empty()) return true;
    if (error) *error = write_error_;
    return false;
}

}  // namespace cudalab::lessons
