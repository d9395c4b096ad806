#include "base/safe_files.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <vector>

namespace cudalab {

namespace {

std::atomic<bool> g_force_fallback{false};

std::vector<std::string> components(const std::string& name) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : name + "/") {
        if (c != '/') {
            cur += c;
            continue;
        }
        if (!cur.empty() && cur != ".") out.push_back(cur);
        cur.clear();
    }
    return out;
}

// A name no one else picks: the temporary file a write goes through before its rename.
std::string temporary_name() {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    return ".cudalab-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(rng());
}

std::string errno_text(int e) { return std::strerror(e); }

// Why an open failed, in words about the file (never its contents).
std::string open_failure(int e) {
    switch (e) {
    case ELOOP: return "it is, or is reached through, a symbolic link";
    case ENOTDIR: return "a folder in its name is not a folder";
    case EXDEV:
    case EINVAL: return "its name leads outside its folder";
    case EISDIR: return "it is a folder";
    default: return errno_text(e);
    }
}

bool write_all(int fd, const char* data, std::size_t bytes) {
    while (bytes > 0) {
        const ssize_t n = ::write(fd, data, bytes);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        bytes -= std::size_t(n);
    }
    return true;
}

// Opens the file to read for read_file_beneath and copy_file_beneath, with its checks.
ReadOutcome open_to_read(int dir_fd, const std::string& name, std::uint64_t cap,
                         const std::string& what, int* fd_out, std::string* why) {
    const int fd = open_beneath(dir_fd, name, O_RDONLY);
    if (fd < 0) {
        const int e = errno;
        if (e == ENOENT) {
            *why = what + " was not written";
            return ReadOutcome::missing;
        }
        *why = what + " was refused: " + open_failure(e);
        return e == EACCES || e == EMFILE || e == ENFILE || e == ENOMEM ? ReadOutcome::error
                                                                        : ReadOutcome::refused;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        *why = what + " could not be read: " + errno_text(errno);
        ::close(fd);
        return ReadOutcome::error;
    }
    if (!S_ISREG(st.st_mode)) {
        *why = what + " was refused: it is not a regular file" +
               (S_ISFIFO(st.st_mode)   ? " (a FIFO)"
                : S_ISDIR(st.st_mode)  ? " (a folder)"
                : S_ISSOCK(st.st_mode) ? " (a socket)"
                                       : " (a device)");
        ::close(fd);
        return ReadOutcome::refused;
    }
    if (std::uint64_t(st.st_size) > cap) {
        *why = what + " was refused: it has " + std::to_string(std::uint64_t(st.st_size)) +
               " bytes, more than the cap of " + byte_size_text(cap);
        ::close(fd);
        return ReadOutcome::refused;
    }
    // Reads of a regular file never block; the flag only kept a FIFO from blocking the open.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    *fd_out = fd;
    return ReadOutcome::ok;
}

// Opens the folder that holds `name` below dir_fd (dir_fd itself, duplicated, for a bare name);
// *base is the last component.
int open_parent_beneath(int dir_fd, const std::string& name, std::string* base) {
    std::vector<std::string> parts = components(name);
    if (parts.empty()) {
        errno = EINVAL;
        return -1;
    }
    *base = parts.back();
    if (*base == "..") {
        errno = EXDEV;
        return -1;
    }
    parts.pop_back();
    if (parts.empty()) return ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
    std::string parent;
    for (const auto& p : parts) parent += (parent.empty() ? "" : "/") + p;
    return open_beneath(dir_fd, parent, O_RDONLY | O_DIRECTORY);
}

// Writes through a new temporary file in `parent_fd`, renamed to `base`; `fill` writes the bytes.
template <typename Fill>
bool replace_in_folder(int parent_fd, const std::string& base, Fill fill, std::string* why) {
    const std::string tmp = temporary_name();
    const int fd = ::openat(parent_fd, tmp.c_str(),
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        *why = "cannot create a file there: " + errno_text(errno);
        return false;
    }
    const bool written = fill(fd);
    const int e = errno;
    const bool closed = ::close(fd) == 0;
    if (!written || !closed) {
        ::unlinkat(parent_fd, tmp.c_str(), 0);
        if (why->empty()) *why = "cannot write it: " + errno_text(written ? errno : e);
        return false;
    }
    // rename() replaces the name itself: a link there is replaced, its target untouched.
    if (::renameat(parent_fd, tmp.c_str(), parent_fd, base.c_str()) != 0) {
        const int re = errno;
        ::unlinkat(parent_fd, tmp.c_str(), 0);
        *why = "cannot put it in place: " + open_failure(re);
        return false;
    }
    return true;
}

}  // namespace

bool OpenDir::open(const std::string& path, std::string* why) {
    if (fd_ >= 0) ::close(fd_);
    path_ = path;
    fd_ = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd_ < 0 && why) *why = path + ": " + open_failure(errno);
    return fd_ >= 0;
}

OpenDir::~OpenDir() {
    if (fd_ >= 0) ::close(fd_);
}

OpenDir& OpenDir::operator=(OpenDir&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = o.fd_;
        path_ = std::move(o.path_);
        o.fd_ = -1;
    }
    return *this;
}

void force_open_beneath_fallback(bool on) { g_force_fallback = on; }

int open_beneath(int dir_fd, const std::string& name, int flags, unsigned mode) {
    if (name.empty() || name[0] == '/') {
        errno = EINVAL;
        return -1;
    }
    const std::vector<std::string> parts = components(name);
    if (parts.empty()) {
        errno = EINVAL;
        return -1;
    }
    for (const auto& p : parts)
        if (p == "..") {
            errno = EXDEV;
            return -1;
        }
    flags |= O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
#ifdef SYS_openat2
    if (!g_force_fallback) {
        open_how how{};
        how.flags = std::uint64_t(flags);
        how.mode = (flags & O_CREAT) ? mode : 0;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
        const long fd = ::syscall(SYS_openat2, dir_fd, name.c_str(), &how, sizeof how);
        if (fd >= 0) return int(fd);
        // Older kernels lack it (ENOSYS); some container filters refuse it (EPERM): walk instead.
        if (errno != ENOSYS && errno != EPERM) return -1;
    }
#endif
    // One component at a time, none of them followed if it is a link.
    int cur = dir_fd;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        const int next =
            ::openat(cur, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        const int e = errno;
        if (cur != dir_fd) ::close(cur);
        if (next < 0) {
            errno = e;
            return -1;
        }
        cur = next;
    }
    const int fd = ::openat(cur, parts.back().c_str(), flags, mode);
    const int e = errno;
    if (cur != dir_fd) ::close(cur);
    errno = e;
    return fd;
}

ReadOutcome read_file_beneath(int dir_fd, const std::string& name, std::uint64_t cap,
                              const std::string& what, std::string* bytes, std::string* why) {
    bytes->clear();
    int fd = -1;
    const ReadOutcome opened = open_to_read(dir_fd, name, cap, what, &fd, why);
    if (opened != ReadOutcome::ok) return opened;
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            *why = what + " could not be read: " + errno_text(errno);
            ::close(fd);
            bytes->clear();
            return ReadOutcome::error;
        }
        if (n == 0) break;
        if (bytes->size() + std::size_t(n) > cap) {  // it grew after fstat
            *why = what + " was refused: it grew past the cap of " + byte_size_text(cap);
            ::close(fd);
            bytes->clear();
            return ReadOutcome::refused;
        }
        bytes->append(buf, std::size_t(n));
    }
    ::close(fd);
    return ReadOutcome::ok;
}

bool write_file_beneath(int dir_fd, const std::string& name, const void* data, std::size_t bytes,
                        std::string* why) {
    std::string base;
    const int parent = open_parent_beneath(dir_fd, name, &base);
    if (parent < 0) {
        *why = name + ": " + open_failure(errno);
        return false;
    }
    std::string reason;
    const bool ok = replace_in_folder(
        parent, base, [&](int fd) { return write_all(fd, static_cast<const char*>(data), bytes); },
        &reason);
    ::close(parent);
    if (!ok) *why = name + ": " + reason;
    return ok;
}

ReadOutcome copy_file_beneath(int from_dir_fd, const std::string& name, std::uint64_t cap,
                              const std::string& what, const std::string& to_path,
                              std::string* why) {
    int in = -1;
    const ReadOutcome opened = open_to_read(from_dir_fd, name, cap, what, &in, why);
    if (opened != ReadOutcome::ok) return opened;
    const std::size_t slash = to_path.rfind('/');
    const std::string folder = slash == std::string::npos ? "." : to_path.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? to_path : to_path.substr(slash + 1);
    const int parent = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent < 0 || base.empty() || base == "." || base == "..") {
        *why = "cannot write " + to_path + ": " + (parent < 0 ? errno_text(errno) : "not a file");
        if (parent >= 0) ::close(parent);
        ::close(in);
        return ReadOutcome::error;
    }
    std::string reason;
    const bool ok = replace_in_folder(
        parent, base,
        [&](int out) {
            char buf[1 << 16];
            std::uint64_t copied = 0;
            for (;;) {
                const ssize_t n = ::read(in, buf, sizeof buf);
                if (n < 0 && errno == EINTR) continue;
                if (n < 0) return false;
                if (n == 0) return true;
                copied += std::uint64_t(n);
                if (copied > cap) {
                    reason = what + " grew past the cap of " + byte_size_text(cap);
                    return false;
                }
                if (!write_all(out, buf, std::size_t(n))) return false;
            }
        },
        &reason);
    ::close(parent);
    ::close(in);
    if (!ok) {
        *why = "cannot write " + to_path + ": " + reason;
        return ReadOutcome::error;
    }
    return ReadOutcome::ok;
}

nlohmann::json parse_json_bounded(const std::string& text, std::size_t max_depth,
                                  std::size_t max_values, const std::string& what,
                                  std::string* why) {
    // A scan first: nlohmann's parser would build the whole tree (and recurse to destroy it)
    // before anyone could look at its depth or size.
    std::size_t depth = 0, values = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
            continue;
        }
        switch (c) {
        case '"':
            in_string = true;
            ++values;
            break;
        case '{':
        case '[':
            ++values;
            if (++depth > max_depth) {
                *why = what + " was refused: its JSON nests deeper than " +
                       std::to_string(max_depth) + " levels";
                return nlohmann::json(nlohmann::json::value_t::discarded);
            }
            break;
        case '}':
        case ']':
            if (depth) --depth;
            break;
        case ',': ++values; break;
        default: break;
        }
        if (max_values && values > max_values) {
            *why = what + " was refused: it holds more than " + std::to_string(max_values) +
                   " JSON values";
            return nlohmann::json(nlohmann::json::value_t::discarded);
        }
    }
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) *why = what + " is not valid JSON";
    return j;
}

std::string byte_size_text(std::uint64_t bytes) {
    if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0)
        return std::to_string(bytes >> 20) + " MB";
    if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KB";
    return std::to_string(bytes) + " bytes";
}

}  // namespace cudalab
