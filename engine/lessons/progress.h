// A learner's progress (per lesson: passed / failed / not tried, hints revealed), kept in a per-user
// state file. Written atomically (temp file + rename) so a crash never leaves it half-written.
#pragma once

#include <map>
#include <string>

namespace cudalab::lessons {

enum class LessonState { not_tried, failed, passed };
const char* state_name(LessonState s);

struct LessonProgress {
    LessonState state = LessonState::not_tried;
    int hints_shown = 0;
    std::string last_checked;  // ISO 8601 time
};

class Progress {
public:
    // $CUDALAB_STATE, else $XDG_STATE_HOME/cudalab/progress.json, else ~/.local/state/cudalab/...
    static std::string default_path();
    explicit Progress(std::string path = default_path());
    LessonProgress get(const std::string& id) const;
    void record_check(const std::string& id, bool passed);
    int reveal_hint(const std::string& id, int available);  // returns the index to show (0-based)
    bool save(std::string* error = nullptr) const;
    const std::string& path() const { return path_; }

private:
    std::string path_;
    std::map<std::string, LessonProgress> lessons_;
};

// Writes `contents` to `path` atomically: a temporary file in the same folder, then rename().
bool write_file_atomically(const std::string& path, const std::string& contents, std::string* error = nullptr);

}  // namespace cudalab::lessons
