// Provenance (provenance.h).
#include "cudart/provenance.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <unordered_map>

namespace cudalab::cudart {

namespace {

// What reached the host is kept up to this much; past it, later deliveries are not kept and a
// file that needed them fails with the reason said.
constexpr std::uint64_t max_kept_bytes = 512ull << 20;
// Output files larger than this are not vouched for.
constexpr std::uint64_t max_file_bytes = 512ull << 20;

// When this process started (before the program it serves did).
const timespec process_started = [] {
    timespec t{};
    ::clock_gettime(CLOCK_REALTIME, &t);
    return t;
}();

}  // namespace

Provenance::Provenance() : started_(process_started) {}

int Provenance::kernel_index(const std::string& name) {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < kernel_names_.size(); ++i)
        if (kernel_names_[i] == name) return int(i);
    kernel_names_.push_back(name);
    return int(kernel_names_.size() - 1);
}

void Provenance::set_origin(std::uint64_t lo, std::uint64_t hi, int kernel) {
    if (hi <= lo) return;
    // Cut the runs that straddle the ends, drop what lies inside, insert the new run.
    auto it = origin_.upper_bound(lo);
    if (it != origin_.begin()) {
        auto before = std::prev(it);
        if (before->second.hi > lo) {
            const Origin tail = before->second;
            before->second.hi = lo;
            if (tail.hi > hi) origin_[hi] = Origin{tail.hi, tail.kernel};
        }
    }
    it = origin_.lower_bound(lo);
    while (it != origin_.end() && it->first < hi) {
        if (it->second.hi > hi) {
            const Origin tail = it->second;
            origin_.erase(it);
            origin_[hi] = tail;
            break;
        }
        it = origin_.erase(it);
    }
    if (kernel >= 0) origin_[lo] = Origin{hi, kernel};
}

std::vector<std::pair<std::uint64_t, Provenance::Origin>>
Provenance::origins_in(std::uint64_t lo, std::uint64_t hi) const {
    std::vector<std::pair<std::uint64_t, Origin>> out;
    auto it = origin_.upper_bound(lo);
    if (it != origin_.begin()) --it;
    for (; it != origin_.end() && it->first < hi; ++it) {
        const std::uint64_t a = std::max(lo, it->first), b = std::min(hi, it->second.hi);
        if (a < b) out.push_back({a, Origin{b, it->second.kernel}});
    }
    return out;
}

void Provenance::kernel_wrote(const std::vector<MemorySpan>& spans, int kernel) {
    if (!enabled()) return;
    std::lock_guard lock(mutex_);
    for (const auto& s : spans)
        if (s.write) set_origin(s.lo, s.hi, kernel);
}

void Provenance::host_wrote(std::uint64_t lo, std::uint64_t hi) {
    if (!enabled()) return;
    std::lock_guard lock(mutex_);
    set_origin(lo, hi, -1);
}

void Provenance::copied_on_device(std::uint64_t src, std::uint64_t dst, std::uint64_t bytes) {
    if (!enabled()) return;
    std::lock_guard lock(mutex_);
    const auto runs = origins_in(src, src + bytes);
    set_origin(dst, dst + bytes, -1);
    for (const auto& [a, o] : runs) set_origin(dst + (a - src), dst + (o.hi - src), o.kernel);
}

void Provenance::keep(std::uint64_t host, const std::uint8_t* bytes, std::uint64_t n, int kernel) {
    if (kept_ + n > max_kept_bytes) {
        overflowed_ = true;
        return;
    }
    Segment s;
    s.host = host;
    s.kernel = kernel;
    s.bytes.assign(bytes, bytes + n);
    kept_ += n;
    log_.push_back(std::move(s));
}

void Provenance::delivered(std::uint64_t host, const std::uint8_t* bytes, std::uint64_t n,
                           std::uint64_t device_src) {
    if (!enabled() || n == 0) return;
    std::lock_guard lock(mutex_);
    for (const auto& [a, o] : origins_in(device_src, device_src + n))
        keep(host + (a - device_src), bytes + (a - device_src), o.hi - a, o.kernel);
}

void Provenance::delivered_by_kernel(std::uint64_t host, const std::uint8_t* bytes, std::uint64_t n,
                                     int kernel) {
    if (!enabled() || n == 0) return;
    std::lock_guard lock(mutex_);
    keep(host, bytes, n, kernel);
}

namespace {

std::uint32_t word_at(const std::uint8_t* p) {
    std::uint32_t w;
    std::memcpy(&w, p, 4);
    return w;
}

}  // namespace

std::vector<Provenance::Verdict> Provenance::verify() const {
    std::lock_guard lock(mutex_);
    std::vector<Verdict> out;
    for (const auto& path : files_) {
        Verdict v;
        v.file = path;
        const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        struct stat st {};
        if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
            std::uint64_t(st.st_size) > max_file_bytes) {
            if (fd >= 0) ::close(fd);
            v.why = fd < 0 ? "the program wrote no such file" : "not a regular file of a size read";
            out.push_back(v);
            continue;
        }
        // A file left by an earlier run (this one failed before writing it) is not this run's.
        if (st.st_mtim.tv_sec < started_.tv_sec ||
            (st.st_mtim.tv_sec == started_.tv_sec && st.st_mtim.tv_nsec < started_.tv_nsec)) {
            ::close(fd);
            v.why = "the program did not write the file in this run";
            out.push_back(v);
            continue;
        }
        std::vector<std::uint8_t> text(std::size_t(st.st_size));
        std::size_t got = 0;
        while (got < text.size()) {
            const ssize_t k = ::read(fd, text.data() + got, text.size() - got);
            if (k <= 0) break;
            got += std::size_t(k);
        }
        ::close(fd);
        text.resize(got);
        v.read = true;
        v.bytes = text.size();
        if (text.size() < 4) {
            v.why = "the file holds less than one 4-byte value";
            out.push_back(v);
            continue;
        }
        // The usual case first: the file is what came back, whole copies in a row (a buffer
        // filled by one copy, or by chunks in order). Then, for what that leaves, every word
        // looked up among the kernels' bytes.
        std::size_t covered = 0;
        std::set<int> kernels;
        {
            std::unordered_map<std::uint64_t, std::vector<std::size_t>> starts;  // first 8 bytes
            for (std::size_t s = 0; s < log_.size(); ++s)
                if (log_[s].bytes.size() >= 8) {
                    std::uint64_t key;
                    std::memcpy(&key, log_[s].bytes.data(), 8);
                    starts[key].push_back(s);
                }
            std::size_t i = 0;
            while (i + 8 <= text.size()) {
                std::uint64_t key;
                std::memcpy(&key, &text[i], 8);
                auto it = starts.find(key);
                std::size_t best = 0, best_seg = 0;
                if (it != starts.end())
                    for (std::size_t s : it->second) {
                        const auto& b = log_[s].bytes;
                        const std::size_t n = std::min(b.size(), text.size() - i) / 4 * 4;
                        if (n > best && std::memcmp(b.data(), &text[i], n) == 0) {
                            best = n;
                            best_seg = s;
                        }
                    }
                if (!best) break;
                if (log_[best_seg].kernel >= 0) kernels.insert(log_[best_seg].kernel);
                covered += best;
                i += best;
            }
        }
        if (covered < text.size() / 4 * 4) {
            covered = 0;
            kernels.clear();
            // Where each of the file's words occurs among the kernels' bytes (4-byte aligned
            // within what came back; a few places per word), found in one pass over them.
            std::unordered_map<std::uint32_t, std::vector<std::pair<std::size_t, std::size_t>>>
                where;
            where.reserve(text.size() / 4);
            for (std::size_t i = 0; i + 4 <= text.size(); i += 4) where[word_at(&text[i])];
            for (std::size_t s = 0; s < log_.size(); ++s) {
                const auto& bytes = log_[s].bytes;
                for (std::size_t at = 0; at + 4 <= bytes.size(); at += 4) {
                    auto it = where.find(word_at(&bytes[at]));
                    if (it != where.end() && it->second.size() < 8) it->second.push_back({s, at});
                }
            }
            // Walk the file: continue the run in hand while it matches, else take the place of
            // the next word whose run goes furthest.
            std::size_t seg = 0, at = 0;
            bool in_run = false;
            for (std::size_t i = 0; i + 4 <= text.size(); i += 4) {
                if (in_run && at + 4 <= log_[seg].bytes.size() &&
                    std::memcmp(&log_[seg].bytes[at], &text[i], 4) == 0) {
                    covered += 4;
                    at += 4;
                    continue;
                }
                in_run = false;
                std::size_t best = 0;
                for (const auto& [s, a] : where[word_at(&text[i])]) {
                    const auto& bytes = log_[s].bytes;
                    std::size_t run = 0;
                    while (i + run + 4 <= text.size() && a + run + 4 <= bytes.size() &&
                           run < 4096 && std::memcmp(&bytes[a + run], &text[i + run], 4) == 0)
                        run += 4;
                    if (run > best) {
                        best = run;
                        seg = s;
                        at = a;
                    }
                }
                if (best) {
                    in_run = true;
                    covered += 4;
                    at += 4;
                    if (log_[seg].kernel >= 0) kernels.insert(log_[seg].kernel);
                }
            }
        }
        const std::size_t whole = text.size() / 4 * 4;
        v.matched = covered;
        v.from_device = covered == whole;
        for (int k : kernels) v.kernels.push_back(kernel_names_[std::size_t(k)]);
        if (!v.from_device)
            v.why = log_.empty()  ? "no bytes a kernel wrote ever reached the host"
                    : overflowed_ ? "more than 512 MB came back from the device, and the rest was "
                                    "not kept"
                                  : std::to_string((whole - covered) / 4) + " of its " +
                                        std::to_string(whole / 4) +
                                        " 4-byte values are not among the bytes that came back "
                                        "from device memory kernels wrote";
        out.push_back(v);
    }
    return out;
}

}  // namespace cudalab::cudart
