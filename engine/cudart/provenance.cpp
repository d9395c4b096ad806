// Provenance (provenance.h).
#include "cudart/provenance.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>

namespace cudalab::cudart {

namespace {

// What reached the host is kept up to this much; past it, later deliveries are not kept and a
// file that needed them fails with the reason said.
constexpr std::uint64_t max_kept_bytes = 512ull << 20;
// Output files larger than this are not vouched for.
constexpr std::uint64_t max_file_bytes = 512ull << 20;

}  // namespace

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

void Provenance::erase_image(std::uint64_t lo, std::uint64_t hi) {
    auto it = image_.upper_bound(lo);
    if (it != image_.begin()) {
        auto before = std::prev(it);
        const std::uint64_t end = before->first + before->second.bytes.size();
        if (end > lo) {
            Segment& seg = before->second;
            if (end > hi) {
                Segment tail;
                tail.kernel = seg.kernel;
                tail.bytes.assign(seg.bytes.begin() + std::ptrdiff_t(hi - before->first),
                                  seg.bytes.end());
                image_[hi] = std::move(tail);
            }
            kept_ -= std::min(end, hi) - lo;
            seg.bytes.resize(lo - before->first);
        }
    }
    it = image_.lower_bound(lo);
    while (it != image_.end() && it->first < hi) {
        const std::uint64_t end = it->first + it->second.bytes.size();
        if (end > hi) {
            Segment tail;
            tail.kernel = it->second.kernel;
            tail.bytes.assign(it->second.bytes.begin() + std::ptrdiff_t(hi - it->first),
                              it->second.bytes.end());
            kept_ -= hi - it->first;
            image_.erase(it);
            image_[hi] = std::move(tail);
            break;
        }
        kept_ -= it->second.bytes.size();
        it = image_.erase(it);
    }
}

void Provenance::keep(std::uint64_t host, const std::uint8_t* bytes, std::uint64_t n, int kernel) {
    if (kept_ + n > max_kept_bytes) {
        overflowed_ = true;
        return;
    }
    Segment s;
    s.kernel = kernel;
    s.bytes.assign(bytes, bytes + n);
    kept_ += n;
    image_[host] = std::move(s);
}

void Provenance::delivered(std::uint64_t host, const std::uint8_t* bytes, std::uint64_t n,
                           std::uint64_t device_src) {
    if (!enabled() || n == 0) return;
    std::lock_guard lock(mutex_);
    // What was there before is overwritten by this copy, kernel-made or not.
    erase_image(host, host + n);
    for (const auto& [a, o] : origins_in(device_src, device_src + n))
        keep(host + (a - device_src), bytes + (a - device_src), o.hi - a, o.kernel);
}

void Provenance::delivered_by_kernel(std::uint64_t host, const std::uint8_t* bytes,
                                     std::uint64_t n, int kernel) {
    if (!enabled() || n == 0) return;
    std::lock_guard lock(mutex_);
    erase_image(host, host + n);
    keep(host, bytes, n, kernel);
}

std::vector<Provenance::Verdict> Provenance::verify() const {
    std::lock_guard lock(mutex_);
    std::vector<Verdict> out;
    // Runs of adjacent segments joined: a file may span several copies into one buffer.
    std::vector<std::pair<std::uint64_t, std::vector<std::uint8_t>>> runs;
    std::vector<std::vector<std::pair<std::uint64_t, int>>> run_kernels;  // offset, kernel
    for (const auto& [at, seg] : image_) {
        if (!runs.empty() && runs.back().first + runs.back().second.size() == at) {
            run_kernels.back().push_back({runs.back().second.size(), seg.kernel});
            runs.back().second.insert(runs.back().second.end(), seg.bytes.begin(),
                                      seg.bytes.end());
        } else {
            runs.push_back({at, seg.bytes});
            run_kernels.push_back({{0, seg.kernel}});
        }
    }
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
        if (text.empty()) {
            v.why = "the file is empty";
            out.push_back(v);
            continue;
        }
        // The file must be one stretch of kernel-made bytes as they reached the host.
        for (std::size_t r = 0; r < runs.size() && !v.from_device; ++r) {
            const auto& bytes = runs[r].second;
            if (bytes.size() < 1) continue;
            // Where the file's first bytes occur (at most a few thousand places are tried: a file
            // of one repeated value is found at the first).
            const std::size_t head = std::min<std::size_t>(text.size(), 8);
            int tries = 0;
            for (std::size_t at = 0; at + head <= bytes.size() && tries < 4096; ++at) {
                if (bytes[at] != text[0] ||
                    std::memcmp(bytes.data() + at, text.data(), head) != 0)
                    continue;
                ++tries;
                const std::size_t room = std::min(bytes.size() - at, text.size());
                const std::size_t same =
                    std::size_t(std::mismatch(text.begin(), text.begin() + std::ptrdiff_t(room),
                                              bytes.begin() + std::ptrdiff_t(at))
                                    .first -
                                text.begin());
                v.matched = std::max<std::uint64_t>(v.matched, same);
                if (same == text.size()) {
                    v.from_device = true;
                    std::set<int> seen;
                    for (const auto& [offset, kernel] : run_kernels[r])
                        if (offset < at + text.size() && kernel >= 0 && seen.insert(kernel).second)
                            v.kernels.push_back(kernel_names_[std::size_t(kernel)]);
                    break;
                }
            }
        }
        if (!v.from_device)
            v.why = runs.empty() ? "no bytes a kernel wrote ever reached the host"
                    : overflowed_ ? "more than 512 MB came back from the device, and the rest was "
                                    "not kept"
                                  : "its bytes are not what came back from device memory that "
                                    "kernels wrote (the longest stretch that is: " +
                                        std::to_string(v.matched) + " of " +
                                        std::to_string(v.bytes) + " bytes)";
        out.push_back(v);
    }
    return out;
}

}  // namespace cudalab::cudart
