// The emulator as a Backend (the first of the pair; gpu/ holds the other).
//
// Supports: load, allocate/release, copies, launch with a trace, last_writer.
// Does not: run host code, streams or graphs (launches are synchronous), textures.
#pragma once

#include <memory>

#include "emulator/emulator.h"
#include "runtime/backend.h"

namespace cudalab::emu {

class EmuBackend final : public Backend {
  public:
    explicit EmuBackend(EmulatorOptions options = {});
    std::string name() const override { return "emu"; }
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
    bool tracks_writers() const override { return emulator_.tracks_writers(); }

    Emulator& emulator() { return emulator_; }

  private:
    Emulator emulator_;
    std::shared_ptr<const compiler::CompileResult> module_;
    int allocations_ = 0;
};

}  // namespace cudalab::emu
