// The emulated GPU: what cudaGetDeviceProperties reports and what the timing model assumes.
//
// The default model is an NVIDIA H200 SXM (sm_90, 132 SMs). Figures are the public ones
// (NVIDIA's H200 and H100 datasheets and the CUDA C++ Programming Guide's per-architecture
// tables) or, where marked, measured on an H200 by cudalab's own benchmarks. docs/runtime.md
// lists them with their sources; change them here and there together.
#pragma once

#include <cstdint>
#include <string>

#include "base/hardware.h"

namespace cudalab::cudart {

struct DeviceModel {
    std::string name = "NVIDIA H200 (cudalab emulated)";
    int major = 9, minor = 0;  // CUDALAB_DEVICE_ARCH changes these alone (runtime.cpp)
    int arch() const { return major * 10 + minor; }
    int sm_count = int(hw::emulated_sm_count);
    double clock_hz = 1.98e9;  // boost clock
    double memory_clock_hz = 2.619e9;
    int memory_bus_bits = 6144;                     // HBM3e, 6 stacks
    std::uint64_t global_memory = 143771Ull << 20;  // 140 GiB as reported by the driver
    std::uint64_t l2_bytes = 60ull << 20;
    // The SM's limits: the emulated architecture's row of base/hardware.h.
    int max_threads_per_sm = hw::emulated.max_warps_per_sm * hw::warp_size;   // 2048
    int max_blocks_per_sm = hw::emulated.max_blocks_per_sm;                   // 32
    int registers_per_sm = hw::emulated.registers_per_sm;                     // 65536
    int registers_per_block = hw::emulated.registers_per_sm;                  // 65536
    std::uint64_t shared_per_sm = std::uint64_t(hw::emulated.shared_per_sm);  // 228 KB
    std::uint64_t shared_per_block = hw::default_shared_per_block;            // without opt-in
    // 227 KB
    std::uint64_t shared_per_block_optin = std::uint64_t(hw::emulated.max_shared_per_block);
    std::uint64_t constant_memory = hw::constant_memory_bytes;
    // Copy engines, as an H200 reports them (docs/measurements/h200-copy-engines.md). The model
    // gives one to each PCIe direction (copies in one direction share the link) and one to
    // copies between devices' memories.
    int async_engines = 3;
    // Bandwidths (bytes per second).
    double hbm_bandwidth = 4.8e12;  // datasheet; cudalab measured 3.9e12 for a copy kernel
    double pcie_pinned = 55e9;      // PCIe Gen5 x16, pinned, one direction (measured ~55 GB/s)
    double pcie_pageable = 20e9;    // staged through a driver buffer
    double nvlink = 450e9;          // NVLink 4, one direction between two GPUs
    double device_copy = 1.6e12;    // device-to-device cudaMemcpy (read + write of HBM)
    // Latencies and overheads (seconds).
    double launch_api_cost = 2.5e-6;        // host time of one cudaLaunchKernel
    double launch_latency = 4.0e-6;         // issue to first block on an idle device
    double graph_launch_api_cost = 2.5e-6;  // host time of one cudaGraphLaunch
    double graph_node_latency = 0.8e-6;     // per kernel node inside a launched graph
    double copy_latency = 2.0e-6;           // per cudaMemcpy (DMA setup)
    double api_cost = 0.3e-6;               // any other runtime call
    double sync_cost = 1.0e-6;              // wake-up after a blocking synchronisation
    double host_function_cost = 1.0e-6;     // a stream's host function (cudaLaunchHostFunc)
    // Sustained warp instructions per SM per cycle. The peak is 4 (four schedulers); 2 is what a
    // tiled matrix multiply sustains on an H200 (tests/programs/matrix_mul: 0.021 ms a launch).
    double warp_instructions_per_sm_cycle = 2.0;
};

// The model a process runs with: the default, changed by CUDALAB_* environment variables
// (see runtime.cpp).
const DeviceModel& device_model();

}  // namespace cudalab::cudart
