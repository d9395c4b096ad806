// A learner's progress (per lesson: passed / failed / not tried, hints revealed) and the history of
// check results, kept in a per-user SQLite database. Every change is one transaction that reads
// the current row and writes the new one, so checks run at the same time on one store never lose
// an update (a grader running ten `cudalab check` at once keeps all ten). Values read back are
// validated; a damaged database is reported and kept under a name of its own, never overwritten.
// A progress.json from earlier versions is read once into the database and kept as
// progress.json.migrated.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct sqlite3;

namespace cudalab::lessons {

enum class LessonState { not_tried, failed, passed };
const char* state_name(LessonState s);

struct LessonProgress {
    LessonState state = LessonState::not_tried;
    int hints_shown = 0;
    std::string last_checked;  // ISO 8601 time
    bool last_failed = false;  // the newest recorded check failed (from the results history)
    // Passed once, and the newest check fails: the lesson stays passed, but the learner is told.
    bool fails_now() const { return state == LessonState::passed && last_failed; }
};
// What `cudalab list` and the app's lesson list say: "passed", "failed", "not tried", or
// "passed before, fails now".
std::string progress_label(const LessonProgress& p);

class Progress {
  public:
    // $CUDALAB_STATE, else $XDG_STATE_HOME/cudalab/progress.db, else ~/.local/state/cudalab/...
    // A path ending in .json names the earlier file: the database is the same name with .db.
    static std::string default_path();
    explicit Progress(std::string path = default_path());
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    // Keeps this store's rows for the course `key` (Course::key) apart from every other course's:
    // "" (the built-in course) keeps plain lesson ids, any other key prefixes them.
    void set_course(const std::string& key);

    LessonProgress get(const std::string& id) const;
    // Both write through at once, each in its own transaction.
    void record_check(const std::string& id, bool passed);
    int reveal_hint(const std::string& id, int available);  // returns the index to show (0-based)
    // Nothing is left to write (every change was written when made): false, with the first error,
    // when one of them could not be written.
    bool save(std::string* error = nullptr) const;
    const std::string& path() const { return path_; }
    // What was wrong with the store when it was opened (damaged and kept, values out of range,
    // migration failed): shown to the learner as a warning. Empty when all was well.
    const std::vector<std::string>& problems() const { return problems_; }

    // The number of check results recorded for a lesson (the history grading reads).
    int results_recorded(const std::string& id) const;

  private:
    bool open_database(std::string* error);
    void load();
    void migrate_json(const std::string& legacy);
    // One transaction: reads the lesson's row as stored now, applies `change`, writes it back
    // (and a result row when `result` is 0 or 1). Returns the row as written.
    LessonProgress update(const std::string& id, const std::function<void(LessonProgress&)>& change,
                          int result);
    LessonProgress read_row(const std::string& id, bool* found);

    std::string keyed(const std::string& id) const { return prefix_ + id; }

    std::string path_;
    std::string prefix_;  // set_course
    sqlite3* db_ = nullptr;
    std::map<std::string, LessonProgress> lessons_;
    std::vector<std::string> problems_;
    std::string write_error_;
};

}  // namespace cudalab::lessons
