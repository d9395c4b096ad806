// The GPU backend: the CUDA driver API, loaded at run time (gpu/driver_api.h). The second of the
// pair of backends (emulator/emu_backend.h is the first).
//
// Supports:
//   [x] device choice ($CUDALAB_DEVICE, default 0), the device's primary context
//   [x] the NVRTC PTX loaded (JIT-compiled by the driver for the device's architecture)
//   [x] allocate / copy / launch, timed with events
//   [x] a shadow run on the emulator for every launch, so the deterministic metrics (sectors per
//       request, bank conflicts, ...) and the trace come from the same analyzer on both backends,
//       and a kernel the emulator finds faulting never reaches the GPU (its diagnostic names the
//       line, block and thread, which a GPU cannot)
//   [x] faults survived: a sticky error (illegal address, ...) is reported by its CUDA name, the
//       context is rebuilt, and the process lives on; a kernel running past the timeout is
//       reported as hung
//   [x] timed launches (warm-up, repeats, median) and the device's measured peaks (copy
//       bandwidth, FMA throughput), measured once per device and cached
//   [x] cuOccupancyMaxActiveBlocksPerMultiprocessor for a kernel
//   [ ] streams, graphs, unified memory (host-side lessons 14-19)
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "emulator/emu_backend.h"
#include "gpu/driver_api.h"
#include "runtime/backend.h"

namespace cudalab::gpu {

struct DeviceInfo {
    int ordinal = 0;
    std::string name;
    std::string uuid;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    std::size_t memory_bytes = 0;
    int driver_version = 0;  // e.g. 13000
    std::string arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }
};

class GpuBackend final : public Backend {
  public:
    // Null with `why` set when no usable GPU is there. `shadow_options` are the shadow emulator's:
    // a check's limits (budget, memory, printf, deadline) apply to the shadow run as to the
    // emulator backend.
    static std::unique_ptr<GpuBackend> open(std::string* why,
                                            const emu::EmulatorOptions& shadow_options = {});
    ~GpuBackend() override;

    std::string name() const override { return "gpu"; }
    std::string description() const override;
    Status load(std::shared_ptr<const compiler::CompileResult> module) override;
    Status allocate(std::size_t bytes, DevicePtr* out) override;
    Status release(DevicePtr ptr) override;
    Status copy_to_device(DevicePtr dst, const void* src, std::size_t bytes) override;
    Status copy_to_host(void* dst, DevicePtr src, std::size_t bytes) override;
    LaunchResult launch(const std::string& kernel, const LaunchConfig& config,
                        const std::vector<KernelArg>& args,
                        const TraceOptions& trace_options) override;
    std::optional<Writer> last_writer(DevicePtr address) const override;
    bool tracks_writers() const override { return true; }
    TimedResult time_launch(const std::string& kernel, const LaunchConfig& config,
                            const std::vector<KernelArg>& args, int warmup, int repeats) override;
    std::optional<DevicePeakFigures> device_peak() override;

    std::optional<int> max_active_blocks(const std::string& kernel,
                                         const LaunchConfig& config) override;
    // cuBLAS SGEMM (C = A * B, n x n, column-major) timed on the device (lesson 08's peer, through
    // backends/factory.h's time_reference_sgemm).
    TimedResult time_cublas_sgemm(int n);

    const DeviceInfo& device() const { return info_; }
    // Outputs of the last launch that differ between the GPU and the shadow emulator run, as
    // "allocation #2: 17 of 4096 bytes differ" lines (empty: they agree bit for bit).
    std::vector<std::string> compare_with_shadow();
    double timeout_seconds = 20;
    // Run every launch on the emulator first (trace, metrics, faults with source lines). Tests turn
    // it off to exercise the GPU's own fault path.
    bool shadow_enabled = true;
    // The shadow emulator's options, as given to open().
    const emu::EmulatorOptions& shadow_options() { return shadow_.emulator().options(); }

  private:
    GpuBackend(const Driver* d, DeviceInfo info, CUcontext ctx,
               const emu::EmulatorOptions& shadow_options);
    Status check(CUresult r, const std::string& what);
    Status rebuild_context(const std::string& cause);
    CUfunction function(const std::string& entry, Status* status);
    std::vector<KernelArg> to_shadow(const std::vector<KernelArg>& args) const;
    Status run(CUfunction f, const LaunchConfig& config, std::vector<KernelArg> args,
               float* milliseconds);

    struct Allocation {
        CUdeviceptr gpu = 0;
        DevicePtr shadow = 0;
        std::size_t bytes = 0;
        bool gpu_only = false;  // written by a timed launch, which the shadow does not repeat
    };
    const Driver* d_;
    DeviceInfo info_;
    CUcontext ctx_ = nullptr;
    CUmodule module_ = nullptr;
    std::shared_ptr<const compiler::CompileResult> compiled_;
    std::map<DevicePtr, Allocation> allocations_;  // by GPU address
    std::map<std::string, CUfunction> functions_;
    emu::EmuBackend shadow_;
    bool context_lost_ = false;
};

}  // namespace cudalab::gpu
