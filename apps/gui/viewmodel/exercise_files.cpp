#include "viewmodel/exercise_files.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "base/files.h"

extern char** environ;

namespace fs = std::filesystem;

namespace cudalab::viewmodel {

FileStamp stamp_of(const std::string& path) {
    FileStamp s;
    std::error_code ec;
    auto t = fs::last_write_time(path, ec);
    if (ec) return s;
    s.exists = true;
    s.modified = t;
    s.size = fs::file_size(path, ec);
    return s;
}

bool read_file(const std::string& path, std::string* contents) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream s;
    s << in.rdbuf();
    *contents = s.str();
    return true;
}

int run_capture(const std::vector<std::string>& argv, std::string* out, std::string* err) {
    int out_pipe[2], err_pipe[2];
    if (pipe(out_pipe) != 0) return -1;
    if (pipe(err_pipe) != 0) {
        close(out_pipe[0]);
        close(out_pipe[1]);
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
    posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
    posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (rc != 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        if (err) *err = std::strerror(rc);
        return -1;
    }
    // Both pipes are drained; error output is small, so reading stdout first cannot deadlock on
    // anything but a pathological program.
    char buf[4096];
    ssize_t n;
    while ((n = read(out_pipe[0], buf, sizeof buf)) > 0)
        if (out) out->append(buf, std::size_t(n));
    while ((n = read(err_pipe[0], buf, sizeof buf)) > 0)
        if (err) err->append(buf, std::size_t(n));
    close(out_pipe[0]);
    close(err_pipe[0]);
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string backup_name(const std::string& path, std::time_t now) {
    char stamp[32];
    std::tm tm{};
    localtime_r(&now, &tm);
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    std::string base = path + ".bak-" + stamp;
    std::string name = base;
    std::error_code ec;
    for (int i = 2; fs::exists(name, ec); ++i) name = base + "-" + std::to_string(i);
    return name;
}

ResetResult reset_exercise(const std::string& exercise_path, std::time_t now) {
    ResetResult r;
    const fs::path p(exercise_path);
    const std::string dir = p.parent_path().empty() ? "." : p.parent_path().string();
    std::string pristine, err;
    int rc =
        run_capture({"git", "-C", dir, "show", "HEAD:./" + p.filename().string()}, &pristine, &err);
    if (rc != 0) {
        std::string why = err.substr(0, err.find('\n'));
        if (rc < 0) why = "git is not installed";
        r.message = "Cannot reset " + p.filename().string() +
                    ": the shipped version comes from git, and this folder is not a git checkout "
                    "holding it (" +
                    why + "). Your file was not touched.";
        return r;
    }
    std::string current;
    const bool exists = read_file(exercise_path, &current);
    if (exists && current == pristine) {
        r.ok = true;
        r.message = p.filename().string() + " already is the shipped version; nothing to reset.";
        return r;
    }
    if (exists) {
        r.backup_path = backup_name(exercise_path, now);
        std::string werr;
        if (!write_file_atomically(r.backup_path, current, &werr)) {
            r.message = "Cannot reset: could not save your version to " + r.backup_path + " (" +
                        werr + "). Your file was not touched.";
            r.backup_path.clear();
            return r;
        }
    }
    std::string werr;
    if (!write_file_atomically(exercise_path, pristine, &werr)) {
        r.message =
            "Cannot reset: writing " + exercise_path + " failed (" + werr + ")." +
            (r.backup_path.empty() ? "" : " Your version is also in " + r.backup_path + ".");
        return r;
    }
    r.ok = true;
    r.changed = true;
    r.message = "Reset " + p.filename().string() + " to the shipped version." +
                (r.backup_path.empty() ? ""
                                       : " Your version is kept in " +
                                             fs::path(r.backup_path).filename().string() + ".");
    return r;
}

namespace {
std::vector<std::string> split_words(const std::string& s) {
    std::vector<std::string> words;
    std::istringstream in(s);
    std::string w;
    while (in >> w) words.push_back(w);
    return words;
}
bool terminal_editor(const std::string& program) {
    const std::string name = fs::path(program).filename().string();
    for (const char* t : {"vi", "vim", "nvim", "nano", "emacs", "micro", "hx", "helix", "kak",
                          "joe", "ne", "mg", "ed"})
        if (name == t) return true;
    return false;
}
bool line_flag_editor(const std::string& program) {
    const std::string name = fs::path(program).filename().string();
    for (const char* t : {"vi", "vim", "nvim", "nano", "emacs", "micro", "kak", "gedit", "kate",
                          "mousepad", "joe", "ne"})
        if (name == t) return true;
    return false;
}
}  // namespace

std::vector<std::string> editor_command(const std::string& path, int line, const Environment& env,
                                        const std::function<bool(const std::string&)>& on_path) {
    std::vector<std::string> cmd;
    for (const char* var : {"VISUAL", "EDITOR"}) {
        const char* v = env(var);
        if (v && *v) {
            cmd = split_words(v);
            break;
        }
    }
    if (cmd.empty()) return {"xdg-open", path};
    const std::string program = fs::path(cmd[0]).filename().string();
    if (line > 0 && (program == "code" || program == "codium")) {
        cmd.push_back("--goto");
        cmd.push_back(path + ":" + std::to_string(line));
    } else {
        if (line > 0 && line_flag_editor(cmd[0])) cmd.push_back("+" + std::to_string(line));
        cmd.push_back(path);
    }
    if (terminal_editor(cmd[0]) && on_path("x-terminal-emulator"))
        cmd.insert(cmd.begin(), {"x-terminal-emulator", "-e"});
    return cmd;
}

bool spawn_detached(const std::vector<std::string>& argv, std::string* error) {
    if (argv.empty()) return false;
    // Double fork: the grandchild is adopted by init, so no zombie is left behind.
    pid_t child = fork();
    if (child < 0) {
        if (error) *error = std::strerror(errno);
        return false;
    }
    if (child == 0) {
        setsid();
        pid_t grandchild = fork();
        if (grandchild != 0) _exit(grandchild < 0 ? 1 : 0);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, 0);
        }
        execvp(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (error) *error = "could not start " + argv[0];
        return false;
    }
    return true;
}

}  // namespace cudalab::viewmodel
