// The hardware limits cudalab models, each written once: the per-architecture table the occupancy
// calculator reads, the launch limits every architecture here shares (which the emulator enforces
// as cudaLaunchKernel does), and the memory geometry the grading rules count in. The emulator,
// the analysis, the emulated CUDA runtime, the lessons and the app all read them from here.
//
// Sources: the CUDA C++ Programming Guide, "Compute Capabilities" (technical specifications per
// compute capability) and the CUDA Best Practices Guide (sectors, banks).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cudalab::hw {

// [SECTION] Per-architecture limits

struct ArchLimits {
    std::string_view name;  // "sm_90"
    int max_blocks_per_sm;
    int max_warps_per_sm;
    int shared_per_sm;         // bytes usable by blocks
    int max_shared_per_block;  // bytes (opt-in maximum)
    int registers_per_sm = 65536;
    int max_registers_per_thread = 255;
    int register_unit = 256;  // registers are allocated per warp in units of this many
    // Shared memory is allocated per block in units of this many bytes,
    int shared_granularity = 128;
    // and the system takes this share of each block's (cc >= 8.0).
    int reserved_shared_per_block = 1024;
};

inline constexpr ArchLimits arch_table[] = {
    {"sm_75", 16, 32, 64 * 1024, 64 * 1024, 65536, 255, 256, 256, 0},
    {"sm_80", 32, 64, 164 * 1024, 163 * 1024},
    {"sm_86", 16, 48, 100 * 1024, 99 * 1024},
    {"sm_89", 24, 48, 100 * 1024, 99 * 1024},
    {"sm_90", 32, 64, 228 * 1024, 227 * 1024},
    {"sm_100", 32, 64, 228 * 1024, 227 * 1024},
    {"sm_120", 24, 48, 100 * 1024, 99 * 1024},
};

// sm_75, sm_80, sm_86, sm_89, sm_90, sm_100, sm_120; null if unknown.
const ArchLimits* arch_limits(std::string_view arch);
std::vector<std::string> known_archs();

// The architecture NVRTC compiles for and the emulator models (an H100/H200's): its limits are the
// ones a launch on the emulator is held to.
inline constexpr std::string_view emulated_arch = "sm_90";
inline constexpr const ArchLimits& emulated = arch_table[4];
static_assert(emulated.name == emulated_arch);
// SMs of the modelled device (an H100/H200 SXM): blocks are spread over them and %nsmid reads it.
inline constexpr std::uint32_t emulated_sm_count = 132;

// Thread block clusters (sm_90 and later): at most 8 blocks portably, 16 where a kernel allows
// non-portable sizes (cudaFuncAttributeNonPortableClusterSizeAllowed).
inline constexpr std::uint32_t max_cluster_blocks_portable = 8;
inline constexpr std::uint32_t max_cluster_blocks = 16;
// How cudaOccupancyMaxActiveClusters counts (measured on the device machine's 132-SM GH100,
// driver 580, docs/clusters.md): the blocks of a cluster sit on distinct SMs of one group, at
// most cluster_blocks_per_sm blocks of clusters per SM, and the SMs fall in groups of these sizes
// (the chip's GPCs as the driver sees them; they sum to 132). A GPU floorswept differently has
// other sizes.
inline constexpr std::uint32_t cluster_gpc_sms[] = {18, 18, 16, 16, 16, 16, 16, 8, 2, 2, 2, 2};
inline constexpr std::uint32_t cluster_blocks_per_sm = 8;

// [SECTION] Launch limits (the same on every architecture in the table)

inline constexpr int warp_size = 32;
inline constexpr std::uint32_t max_threads_per_block = 1024;
inline constexpr std::uint32_t max_block_z = 64;
inline constexpr std::uint32_t max_grid_x = 0x7fffffffu;  // 2147483647
inline constexpr std::uint32_t max_grid_yz = 65535;
inline constexpr std::uint32_t constant_memory_bytes = 64 * 1024;
inline constexpr std::uint32_t max_local_bytes_per_thread = 512 * 1024;
// without the opt-in attribute
inline constexpr std::uint32_t default_shared_per_block = 48 * 1024;

// [SECTION] Memory geometry (what the grading rules count)

// Global memory moves in 32-byte sectors, four to a 128-byte cache line; a warp request costs the
// distinct sectors its lanes touch.
inline constexpr std::uint32_t sector_bytes = 32;
inline constexpr std::uint32_t line_bytes = 128;
// Shared memory: 32 banks of 4-byte words; bank = (address / 4) mod 32.
inline constexpr std::uint32_t shared_banks = 32;
inline constexpr std::uint32_t bank_bytes = 4;

}  // namespace cudalab::hw
