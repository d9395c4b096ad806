// The learner's exercise file on disk: change detection, "reset exercise" (the shipped version
// from git, the learner's version kept as a timestamped backup, never lost) and "open in my
// editor". All writes are atomic (write_file_atomically).
#pragma once

#include <cstdint>
#include <ctime>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace cudalab::viewmodel {

struct FileStamp {
    bool exists = false;
    std::filesystem::file_time_type modified{};
    std::uintmax_t size = 0;
    bool operator==(const FileStamp& o) const {
        return exists == o.exists && modified == o.modified && size == o.size;
    }
    bool operator!=(const FileStamp& o) const { return !(*this == o); }
};
FileStamp stamp_of(const std::string& path);

bool read_file(const std::string& path, std::string* contents);

// Runs a program (no shell) and returns its exit status, with its standard output in `out`.
int run_capture(const std::vector<std::string>& argv, std::string* out, std::string* err = nullptr);

struct ResetResult {
    bool ok = false;
    bool changed = false;     // false: the file already was as shipped
    std::string message;      // for the learner
    std::string backup_path;  // where their version went
};
// Replaces the exercise with the version of the last commit (git show HEAD:./NAME in its folder).
// Outside a git checkout, or when the file is not committed, it refuses and says why.
ResetResult reset_exercise(const std::string& exercise_path, std::time_t now);
// "exercises/02-vector-add.cu" + time -> "exercises/02-vector-add.cu.bak-20261130-141503"
std::string backup_name(const std::string& path, std::time_t now);

// The command that opens `path` at `line` in the learner's editor: $VISUAL, else $EDITOR (a
// terminal editor runs in x-terminal-emulator when there is one), else xdg-open.
using Environment = std::function<const char*(const char*)>;
std::vector<std::string> editor_command(const std::string& path, int line, const Environment& env,
                                        const std::function<bool(const std::string&)>& on_path);
// Starts a program without waiting for it (and without leaving a zombie).
bool spawn_detached(const std::vector<std::string>& argv, std::string* error);

}  // namespace cudalab::viewmodel
