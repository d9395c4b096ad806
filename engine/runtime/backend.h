// Backend: the verbs every execution backend implements (the emulator in emulator/emu_backend.h,
// the GPU driver backend in gpu/; backends/factory.h makes them). The runtime (runtime.h) and the
// lessons speak only to this.
//
// Every backend supports:
//   [x] load a compiled module (PTX)           load()
//   [x] device memory                          allocate() / release() / copy_to_device() /
//   copy_to_host() [x] launch a kernel by name                launch(kernel, grid, block, dynamic
//   shared, args) [x] report faults as a status with a message naming kernel, line, block and
//   thread where known
// Optional (returns empty where a backend cannot know):
//   [ ] trace of warp instructions             emulator only
//   [ ] last writer of an address              emulator only (for "element 17 was written by ...")
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "trace/trace.h"

namespace cudalab::compiler {
struct CompileResult;
}

namespace cudalab {

using DevicePtr = std::uint64_t;

struct Dim3 {
    std::uint32_t x = 1, y = 1, z = 1;
    std::uint64_t count() const { return std::uint64_t(x) * y * z; }
    std::string str() const;  // "(4,1,1)"
};

struct LaunchConfig {
    Dim3 grid;
    Dim3 block;
    std::uint32_t dynamic_shared_bytes = 0;
    // cudaLaunchCooperativeKernel: every block is resident at once, so blocks may wait for each
    // other (cooperative_groups::this_grid().sync()).
    bool cooperative = false;
    // Thread block clusters (sm_90; cudaLaunchAttributeClusterDimension): the blocks of a cluster
    // run at once and share their shared memory. explicit_cluster: the launch gave dimensions
    // (1 x 1 x 1 included); without, a kernel's __cluster_dims__ (.reqnctapercluster) applies.
    Dim3 cluster{};
    bool explicit_cluster = false;
};

// One kernel argument as the bytes of its PTX parameter (a pointer is its 8-byte device address).
struct KernelArg {
    std::vector<std::uint8_t> bytes;
    template <class T> static KernelArg of(const T& value) {
        KernelArg a;
        a.bytes.resize(sizeof(T));
        __builtin_memcpy(a.bytes.data(), &value, sizeof(T));
        return a;
    }
};

struct LaunchStats {
    std::uint64_t warp_instructions = 0;
    std::uint64_t thread_instructions = 0;
    double seconds = 0;  // wall time of the launch (the GPU backend: event time)
};

// A run of bytes [lo, hi) of global memory a launch read, or wrote (or updated atomically).
struct MemorySpan {
    std::uint64_t lo = 0, hi = 0;
    bool write = false;
};

struct LaunchResult {
    Status status;                      // kernel_fault carries the diagnostic in status.message
    std::vector<std::string> warnings;  // e.g. reads of uninitialised shared memory
    // Instructions that read shared memory no thread of the block had written, and the warning
    // for the first of them (the emulator starts shared memory at 0; a GPU does not).
    std::uint32_t uninitialised_shared_reads = 0;
    std::string first_uninitialised_shared_read;
    // Words of global memory that two blocks of the launch wrote, or that one block read or updated
    // after another wrote it with a plain store: blocks run in no fixed order, so the result
    // depends on timing. The emulator runs blocks in an order that can hide this; lessons fail the
    // launch.
    std::uint32_t global_races = 0;
    std::string first_global_race;
    LaunchStats stats;
    std::shared_ptr<const Trace> trace;  // null when the backend records none
    std::string printf_output;           // device printf, in order
    // Bytes of device printf output dropped because the launch printed more than its limit
    // (EmulatorOptions::printf_overflow_drops); 0 when everything printed is in printf_output.
    std::uint64_t printf_dropped_bytes = 0;
    // The global bytes the launch touched, when asked for (EmulatorOptions::record_footprint):
    // sorted, adjacent spans of one kind merged. Precise to the byte except where a warp's lanes
    // repeat addresses and leave gaps (then the warp's whole span, at most 32 accesses wide).
    std::vector<MemorySpan> footprint;
};

// A kernel timed on the device: warm-up launches, then repeats timed with events.
struct TimedResult {
    Status status;
    double median_seconds = 0;
    double min_seconds = 0;
    double max_seconds = 0;
    int repeats = 0;
};

// The device's measured peaks (a streaming copy kernel and an FMA kernel), once per device.
struct DevicePeakFigures {
    std::string device;
    double copy_bytes_per_second = 0;
    double fma_flops = 0;
    int sm_count = 0;     // multiprocessors, for sizing grid-stride launches to fill the device
    bool cached = false;  // read from the per-device cache rather than measured now
};

// Who wrote a byte of device memory last (emulator only).
struct Writer {
    Dim3 block;
    Dim3 thread;
};

class Backend {
  public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;         // "emu" or "gpu"
    virtual std::string description() const = 0;  // for "running on ..."
    virtual Status load(std::shared_ptr<const compiler::CompileResult> module) = 0;
    virtual Status allocate(std::size_t bytes, DevicePtr* out) = 0;
    virtual Status release(DevicePtr ptr) = 0;
    virtual Status copy_to_device(DevicePtr dst, const void* src, std::size_t bytes) = 0;
    virtual Status copy_to_host(void* dst, DevicePtr src, std::size_t bytes) = 0;
    virtual LaunchResult launch(const std::string& kernel, const LaunchConfig& config,
                                const std::vector<KernelArg>& args,
                                const TraceOptions& trace_options) = 0;
    virtual std::optional<Writer> last_writer(DevicePtr address) const { return std::nullopt; }
    virtual bool tracks_writers() const { return false; }
    // Timing and device facts: GPU backends only.
    virtual TimedResult time_launch(const std::string& kernel, const LaunchConfig& config,
                                    const std::vector<KernelArg>& args, int warmup, int repeats) {
        TimedResult r;
        r.status =
            Status::error(StatusCode::backend_unavailable, "timed runs need a GPU (--backend gpu)");
        return r;
    }
    virtual std::optional<DevicePeakFigures> device_peak() { return std::nullopt; }
    // cuOccupancyMaxActiveBlocksPerMultiprocessor for the kernel at this block size.
    virtual std::optional<int> max_active_blocks(const std::string& kernel,
                                                 const LaunchConfig& config) {
        return std::nullopt;
    }
};

}  // namespace cudalab
