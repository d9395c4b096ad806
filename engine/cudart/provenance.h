// Provenance: which bytes the program got back from the device, and whether a kernel made them.
//
// A program lesson grades a whole program by the file it writes (out.bin). Without this, a
// program could compute everything on the host and launch decoy kernels to satisfy the
// lesson's counters. The device process knows better: it follows the origin of device memory
// (a kernel's writes, from the launch's footprint; a copy from the host or a memset; a copy on
// the device carries the origin along), and keeps what reached the host from memory a kernel
// wrote (a copy to the host, or a kernel's writes to host-mapped or managed memory, as they
// stood when the kernel ended), in the order it arrived. When the program has gone, each output
// file it was asked to vouch for (CUDALAB_PROVENANCE, absolute paths separated by ':') is
// compared with those bytes: every 4-byte word of the file must be one of them, in runs, so that
// a program may gather results that came back separately (a checksum per step after the state)
// but may not write a value no kernel produced.
#pragma once

#include <time.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/backend.h"

namespace cudalab::cudart {

class Provenance {
  public:
    Provenance();
    bool enabled() const { return !files_.empty(); }
    void set_files(std::vector<std::string> files) { files_ = std::move(files); }

    // Device memory [lo, hi) now holds what a kernel wrote (kernel: an index into kernel_names).
    void kernel_wrote(const std::vector<MemorySpan>& spans, int kernel);
    // ... what the host wrote (a copy from the host, a memset): no kernel's.
    void host_wrote(std::uint64_t lo, std::uint64_t hi);
    // ... what a copy on the device (or between devices) brought from [src, src+bytes).
    void copied_on_device(std::uint64_t src, std::uint64_t dst, std::uint64_t bytes);
    // Bytes that reached host memory at `host` from device memory at `device_src` (a copy to
    // the host): kept where a kernel made them.
    void delivered(std::uint64_t host, const std::uint8_t* bytes, std::uint64_t n,
                   std::uint64_t device_src);
    // Bytes a kernel wrote straight into host-visible memory (mapped, managed), as they are now.
    void delivered_by_kernel(std::uint64_t host, const std::uint8_t* bytes, std::uint64_t n,
                             int kernel);
    int kernel_index(const std::string& name);

    struct Verdict {
        std::string file;
        bool read = false;                 // the file could be read
        std::uint64_t bytes = 0;           // its size
        bool from_device = false;          // one run of bytes kernels made, byte for byte
        std::uint64_t matched = 0;         // the file's bytes found among those bytes
        std::vector<std::string> kernels;  // the kernels whose bytes it holds
        std::string why;                   // when not from the device
    };
    std::vector<Verdict> verify() const;
    std::uint64_t kept_bytes() const { return kept_; }
    bool overflowed() const { return overflowed_; }

  private:
    struct Origin {
        std::uint64_t hi = 0;
        int kernel = -1;  // -1: not a kernel's
    };
    struct Segment {
        std::uint64_t host = 0;
        std::vector<std::uint8_t> bytes;
        int kernel = -1;
    };
    // Device memory's origin, by start: disjoint runs; a byte outside every run is the host's.
    std::map<std::uint64_t, Origin> origin_;
    // What reached the host from kernels, in the order it arrived.
    std::vector<Segment> log_;
    std::vector<std::string> kernel_names_;
    std::vector<std::string> files_;
    timespec started_{};  // when the device started: older files are not this run's
    std::uint64_t kept_ = 0;
    bool overflowed_ = false;
    mutable std::mutex mutex_;

    void set_origin(std::uint64_t lo, std::uint64_t hi, int kernel);
    std::vector<std::pair<std::uint64_t, Origin>> origins_in(std::uint64_t lo,
                                                             std::uint64_t hi) const;
    void keep(std::uint64_t host, const std::uint8_t* bytes, std::uint64_t n, int kernel);
};

}  // namespace cudalab::cudart
