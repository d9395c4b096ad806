// libFuzzer target for the emulator's front door: any bytes given to Emulator::load() must give a
// loaded program or an error, and every kernel of a loaded program must run to an ok status or a
// fault (with a tiny budget), never a crash or a hang. See docs/emulator.md, "Fuzzing".
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "emulator/emulator.h"
#include "emulator/state.h"  // the prepared program, which these white-box checks read

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    cudalab::emu::EmulatorOptions options;
    options.instruction_budget = 2000;
    options.worker_threads = 1;
    cudalab::emu::Emulator emulator(options);
    if (!emulator.load(std::string(reinterpret_cast<const char*>(data), size), "fuzz.cu").ok())
        return 0;
    const std::uint64_t buffer = emulator.memory().allocate(4096, "buffer");
    cudalab::TraceOptions trace;
    trace.auto_detail_blocks = 1;
    trace.max_events = 4096;
    int launched = 0;
    for (const auto& fn : emulator.program()->module.functions) {
        if (!fn.is_entry || launched++ >= 4) continue;
        std::vector<cudalab::KernelArg> args;
        for (std::uint32_t bytes : emulator.parameter_sizes(fn.name)) {
            cudalab::KernelArg a;
            a.bytes.assign(bytes, 0);
            for (std::uint32_t i = 0; i + 8 <= bytes; i += 8)
                __builtin_memcpy(a.bytes.data() + i, &buffer, 8);  // pointers
            args.push_back(std::move(a));
        }
        cudalab::LaunchConfig config;
        config.grid = {2, 1, 1};
        config.block = {33, 1, 1};  // a partial second warp
        config.dynamic_shared_bytes = 64;
        emulator.launch(fn.name, fn.name, config, args, trace);
    }
    return 0;
}
