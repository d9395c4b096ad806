// Files a graded program leaves behind, read and written by the grader without trusting them.
//
// A program under test runs in a work folder it may write, and the runtime it is linked with
// writes its result and timeline files where the program can reach them. Anything there may have
// been replaced by the time the grader looks: a symbolic link to a file of the grader's (a key, a
// classmate's results, the autograder's own script), a FIFO that blocks the reader forever, a
// folder, a sparse file of gigabytes, JSON nested millions deep. So, after a run, the grader:
//
//   - opens every such file relative to a folder it opened itself (a descriptor taken before the
//     run), following no symbolic link in any component of the name (openat2 with
//     RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or one O_NOFOLLOW component at a time where the
//     kernel lacks openat2), and never blocking (O_NONBLOCK: a FIFO opens at once and is refused);
//   - reads only a regular file, and only when fstat() of the open file says it is within the cap
//     named for its kind, never more than the cap even if it grows meanwhile;
//   - parses JSON only after a scan has bounded its nesting depth and its number of values;
//   - writes a file by creating a new one (O_EXCL | O_NOFOLLOW) and renaming it over the name, so
//     a link left in its place is replaced, never written through.
//
// Every refusal says why in words that name the cap, and never quotes the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace cudalab {

// The caps of the files a run leaves (docs/grading.md, "Files a program leaves").
// The runtime's result ({"faults", "leaks", ...}): a few KB for any honest program.
inline constexpr std::uint64_t max_result_file_bytes = 4ull << 20;
// A program lesson's timeline: one event of about 250 bytes per API call, copy or kernel; the
// largest lesson program writes well under 1 MB. 32 MB holds over 100 000 events.
inline constexpr std::uint64_t max_timeline_file_bytes = 32ull << 20;
// A file a lesson reads back from the work folder (out.bin): the lessons' outputs are a few MB.
inline constexpr std::uint64_t max_lesson_output_bytes = 256ull << 20;
// JSON from a program: nesting deeper than this is refused before parsing (the runtime's files
// nest 4 deep).
inline constexpr std::size_t max_json_depth = 64;

// A folder opened once (O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), to reach the files below it later
// without following links. Moves, does not copy.
class OpenDir {
  public:
    OpenDir() = default;
    // Opens `path` (the grader's own path: links in it are followed, except in its last
    // component). False with *why when it cannot.
    bool open(const std::string& path, std::string* why = nullptr);
    ~OpenDir();
    OpenDir(OpenDir&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
    OpenDir& operator=(OpenDir&& o) noexcept;
    OpenDir(const OpenDir&) = delete;
    OpenDir& operator=(const OpenDir&) = delete;
    int fd() const { return fd_; }
    const std::string& path() const { return path_; }
    bool is_open() const { return fd_ >= 0; }

  private:
    int fd_ = -1;
    std::string path_;
};

// Opens `name` below the folder `dir_fd` with `flags` (O_NOFOLLOW, O_NONBLOCK and O_CLOEXEC are
// added), following no symbolic link in any component. `name` must be relative and hold no "..".
// -1 with errno set (ELOOP for a link, EXDEV or EINVAL for a name that leaves the folder).
int open_beneath(int dir_fd, const std::string& name, int flags, unsigned mode = 0);

enum class ReadOutcome {
    ok,
    missing,  // no such file
    refused,  // a link, not a regular file, over the cap, a bad name: *why says which
    error,    // could not be read: *why says why
};

// Reads the regular file `name` below `dir_fd` whole, when it holds at most `cap` bytes.
// `what` names the file in the messages ("the runtime's result file").
ReadOutcome read_file_beneath(int dir_fd, const std::string& name, std::uint64_t cap,
                              const std::string& what, std::string* bytes, std::string* why);

// Writes `bytes` as the file `name` below `dir_fd`: a new file, renamed over whatever was there
// (a link or a FIFO left in its place is replaced, not written through; a folder is an error).
bool write_file_beneath(int dir_fd, const std::string& name, const void* data, std::size_t bytes,
                        std::string* why);

// Copies the regular file `name` below `from_dir_fd` (at most `cap` bytes, checked before a byte
// is read) to `to_path`, a path of the grader's choosing: a new file in its folder renamed over
// it. ReadOutcome::ok when copied.
ReadOutcome copy_file_beneath(int from_dir_fd, const std::string& name, std::uint64_t cap,
                              const std::string& what, const std::string& to_path,
                              std::string* why);

// Parses `text` as JSON when its nesting is at most `max_depth` and it holds at most
// `max_values` values (objects, arrays, strings, numbers, literals and keys together; 0: no
// limit). A null json (is_discarded()) with *why otherwise; *why never quotes the text.
nlohmann::json parse_json_bounded(const std::string& text, std::size_t max_depth,
                                  std::size_t max_values, const std::string& what,
                                  std::string* why);

// "4 MB", "32 MB", "512 KB", "17 bytes": a cap or a size in a message.
std::string byte_size_text(std::uint64_t bytes);

// Tests only: use the component-by-component walk even where openat2 exists.
void force_open_beneath_fallback(bool on);

}  // namespace cudalab
