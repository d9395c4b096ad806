#include "viewmodel/hierarchy_model.h"

namespace cudalab::viewmodel {

HierarchyFigures hierarchy_figures(const analysis::KernelFigures& k, const KernelInfo& kernel,
                                   const compiler::KernelResources* resources,
                                   const std::string& arch) {
    HierarchyFigures h;
    const analysis::Figures& f = k.total;
    h.load_requested_bytes = f.global_load_bytes;
    h.store_requested_bytes = f.global_store_bytes;
    h.load_requests = f.global_load_requests;
    h.store_requests = f.global_store_requests;
    h.atomic_requests = f.global_atomic_requests;
    h.atomics = f.global_atomics;
    h.load_sectors = f.global_load_sectors;
    h.store_sectors = f.global_store_sectors;
    h.load_efficiency = f.load_efficiency();
    h.store_efficiency = f.store_efficiency();
    h.load_sectors_per_request = f.load_sectors_per_request();
    h.store_sectors_per_request = f.store_sectors_per_request();
    h.shared_requests = f.shared_requests;
    h.shared_wavefronts = f.shared_wavefronts;
    h.shared_ideal_wavefronts = f.shared_ideal_wavefronts;
    h.bank_conflicts = f.bank_conflicts();
    h.warp_instructions = f.warp_instructions;
    h.thread_instructions = f.thread_instructions;
    h.branch_efficiency = f.branch_efficiency();
    h.block_barriers = k.block_barriers;
    h.threads_per_block = int(kernel.block[0] * kernel.block[1] * kernel.block[2]);
    h.arch = arch;
    if (resources) {
        h.registers_per_thread = resources->registers;
        h.shared_bytes_per_block =
            resources->static_shared_bytes + int(kernel.dynamic_shared_bytes);
        if (const hw::ArchLimits* limits = hw::arch_limits(arch)) {
            h.occupancy = analysis::theoretical_occupancy(
                *limits, h.threads_per_block, h.registers_per_thread, h.shared_bytes_per_block);
            h.has_occupancy = true;
        }
    }
    return h;
}

}  // namespace cudalab::viewmodel
