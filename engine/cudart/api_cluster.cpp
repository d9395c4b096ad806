// The CUDA runtime API for thread block clusters (sm_90): the checks a launch with cluster
// dimensions gets (cudaLaunchKernelEx's cudaLaunchAttributeClusterDimension, or a kernel's
// __cluster_dims__), the kernels' cluster attributes, and the occupancy of clusters
// (cudaOccupancyMaxPotentialClusterSize, cudaOccupancyMaxActiveClusters). Each answer is the one an
// H100/H200 gives (tests/agreement/cluster_ops.cu); the emulator runs the clusters
// (emulator/cluster.h).
#include <algorithm>
#include <cstring>

#include "cudart/api.h"
#include "cudart/cluster.h"

using namespace cudalab;
using namespace cudalab::cudart;

namespace cudalab::cudart {

namespace {

// The cluster shape a kernel requires: __cluster_dims__, else what cudaFuncSetAttribute set
// (0 in a dimension: not given). all zero: none.
Dim3 required_cluster(const Function& f, const emu::Emulator::KernelResources& r, bool* set,
                      bool* compiled) {
    *compiled = r.cluster[0] != 0;
    if (*compiled) {
        *set = true;
        return Dim3{r.cluster[0], r.cluster[1], r.cluster[2]};
    }
    *set = f.required_cluster[0] || f.required_cluster[1] || f.required_cluster[2];
    return Dim3{std::uint32_t(f.required_cluster[0]), std::uint32_t(f.required_cluster[1]),
                std::uint32_t(f.required_cluster[2])};
}

bool resources(Runtime& rt, const Function& f, emu::Emulator::KernelResources* r) {
    std::string error;
    emu::Emulator* e = rt.emulator_for(*f.module, rt.current_device(), &error);
    return e && e->kernel_resources(f.entry, r);
}

// The cluster dimension among a launch's attributes; false when there is none.
bool cluster_attribute(const cudaLaunchConfig_t* config, Dim3* out) {
    for (unsigned i = 0; config && config->attrs && i < config->numAttrs; ++i)
        if (config->attrs[i].id == cudaLaunchAttributeClusterDimension) {
            const auto& d = config->attrs[i].val.clusterDim;
            *out = Dim3{d.x, d.y, d.z};
            return true;
        }
    return false;
}

bool same(const Dim3& a, const Dim3& b) {
    // A dimension set at run time as 0 is taken as 1 (the H100 launched clusters of 2 x 1 x 1 for
    // a required width of 2 with height and depth never set).
    auto one = [](std::uint32_t v) { return v ? v : 1u; };
    return one(a.x) == one(b.x) && one(a.y) == one(b.y) && one(a.z) == one(b.z);
}

// Blocks of a kernel that fit on one SM at once (threads, blocks, shared memory).
int blocks_per_sm(const DeviceModel& m, std::uint64_t threads, std::uint64_t shared) {
    if (threads == 0 || threads > hw::max_threads_per_block) return 0;
    const std::uint64_t warps = (threads + hw::warp_size - 1) / hw::warp_size;
    std::uint64_t n = std::min<std::uint64_t>(
        m.max_blocks_per_sm, std::uint64_t(m.max_threads_per_sm) / (warps * hw::warp_size));
    if (shared)
        n = std::min<std::uint64_t>(
            n, m.shared_per_sm / (shared + std::uint64_t(hw::emulated.reserved_shared_per_block)));
    return int(n);
}

// Clusters of `size` blocks that can be resident at once with `per_sm` blocks on each SM.
int active_clusters(int per_sm, std::uint32_t size) {
    const std::uint64_t k =
        std::min<std::uint64_t>(std::uint64_t(std::max(0, per_sm)), hw::cluster_blocks_per_sm);
    std::uint64_t n = 0;
    for (std::uint32_t sms : hw::cluster_gpc_sms)
        if (sms >= size) n += k * sms / size;
    return int(n);
}

}  // namespace

cudaError_t check_cluster_launch(Runtime& rt, const Function& f, LaunchConfig& config,
                                 const std::string& api, const std::string& name) {
    emu::Emulator::KernelResources r;
    if (!resources(rt, f, &r)) return cudaSuccess;  // the launch reports the module's error
    bool has_required = false, compiled = false;
    const Dim3 required = required_cluster(f, r, &has_required, &compiled);
    const Dim3& g = config.grid;
    auto refuse = [&](const std::string& why) {
        rt.warn(api + ": kernel '" + name + "': " + why +
                " (cudaErrorInvalidClusterSize, as a GPU answers)");
        return cudaErrorInvalidClusterSize;
    };
    if (!config.explicit_cluster) {
        if (!has_required) {
            if (r.explicit_cluster)
                return refuse("the kernel must be launched with cluster dimensions");
            return cudaSuccess;
        }
        config.cluster =
            Dim3{std::max(1u, required.x), std::max(1u, required.y), std::max(1u, required.z)};
        config.explicit_cluster = true;
    } else if (has_required && !same(config.cluster, required)) {
        return refuse(
            "the launch asks for clusters of " + config.cluster.str() +
            " but the kernel requires " + required.str() +
            (compiled ? " (__cluster_dims__)" : " (cudaFuncAttributeRequiredClusterWidth...)"));
    } else if (has_required) {
        config.cluster =
            Dim3{std::max(1u, required.x), std::max(1u, required.y), std::max(1u, required.z)};
    }
    const Dim3& c = config.cluster;
    if (c.x == 0 || c.y == 0 || c.z == 0) return refuse("a cluster dimension is 0");
    const std::uint32_t limit =
        f.non_portable_cluster ? hw::max_cluster_blocks : hw::max_cluster_blocks_portable;
    if (c.count() > limit)
        return refuse("a cluster of " + std::to_string(c.count()) + " blocks; at most " +
                      std::to_string(limit) +
                      (f.non_portable_cluster
                           ? std::string(" on sm_90")
                           : std::string(" portably (cudaFuncSetAttribute(kernel, "
                                         "cudaFuncAttributeNonPortableClusterSizeAllowed, 1) "
                                         "allows 16 on sm_90)")));
    if (g.x % c.x || g.y % c.y || g.z % c.z)
        return refuse("the grid " + g.str() + " is not a whole number of clusters of " + c.str());
    return cudaSuccess;
}

void cluster_attributes(const Function& f, const emu::Emulator::KernelResources& r,
                        cudaFuncAttributes* attr) {
    bool has = false, compiled = false;
    const Dim3 d = required_cluster(f, r, &has, &compiled);
    attr->clusterDimMustBeSet = r.explicit_cluster ? 1 : 0;
    attr->requiredClusterWidth = int(d.x);
    attr->requiredClusterHeight = int(d.y);
    attr->requiredClusterDepth = int(d.z);
    attr->clusterSchedulingPolicyPreference = f.cluster_policy;
    attr->nonPortableClusterSizeAllowed = f.non_portable_cluster;
}

bool set_cluster_attribute(Runtime& rt, Function& f, cudaFuncAttribute attr, int value,
                           cudaError_t* error) {
    *error = cudaSuccess;
    switch (attr) {
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
        f.non_portable_cluster = value;
        return true;
    case cudaFuncAttributeClusterSchedulingPolicyPreference: f.cluster_policy = value; return true;
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth: {
        emu::Emulator::KernelResources r;
        // A size compiled in (__cluster_dims__) cannot be changed at run time.
        if (resources(rt, f, &r) && r.cluster[0]) {
            *error = cudaErrorNotPermitted;
            return true;
        }
        if (value < 0) {
            *error = cudaErrorInvalidValue;
            return true;
        }
        f.required_cluster[attr == cudaFuncAttributeRequiredClusterWidth    ? 0
                           : attr == cudaFuncAttributeRequiredClusterHeight ? 1
                                                                            : 2] = value;
        return true;
    }
    default: return false;
    }
}

}  // namespace cudalab::cudart

extern "C" {

cudaError_t cudaOccupancyMaxPotentialClusterSize(int* size, const void* func,
                                                 const cudaLaunchConfig_t* config) {
    CUDALAB_API("cudaOccupancyMaxPotentialClusterSize");
    if (!size || !config) return fail(cudaErrorInvalidValue);
    Function* f = function_for(func);
    if (!f) return fail(cudaErrorInvalidDeviceFunction);
    emu::Emulator::KernelResources r;
    if (!resources(rt, *f, &r)) return fail(cudaErrorInvalidPtx);
    bool has = false, compiled = false;
    const Dim3 required = required_cluster(*f, r, &has, &compiled);
    if (has) {
        // The kernel's own size, where the grid can be cut into it; the H100 refused a width set
        // at run time with height and depth left 0.
        const Dim3& g = Dim3{config->gridDim.x, config->gridDim.y, config->gridDim.z};
        if (!required.x || !required.y || !required.z || g.x % required.x || g.y % required.y ||
            g.z % required.z)
            return fail(cudaErrorInvalidClusterSize);
        *size = int(required.count());
        return cudaSuccess;
    }
    const int per_sm = blocks_per_sm(
        rt.model, std::uint64_t(config->blockDim.x) * config->blockDim.y * config->blockDim.z,
        config->dynamicSmemBytes + r.static_shared);
    const std::uint32_t limit =
        f->non_portable_cluster ? hw::max_cluster_blocks : hw::max_cluster_blocks_portable;
    int best = 0;
    for (std::uint32_t s = 1; s <= limit; ++s)
        if (active_clusters(per_sm, s) > 0) best = int(s);
    *size = best;
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveClusters(int* clusters, const void* func,
                                           const cudaLaunchConfig_t* config) {
    CUDALAB_API("cudaOccupancyMaxActiveClusters");
    if (!clusters || !config) return fail(cudaErrorInvalidValue);
    Function* f = function_for(func);
    if (!f) return fail(cudaErrorInvalidDeviceFunction);
    emu::Emulator::KernelResources r;
    if (!resources(rt, *f, &r)) return fail(cudaErrorInvalidPtx);
    LaunchConfig launch;
    launch.grid = Dim3{config->gridDim.x, config->gridDim.y, config->gridDim.z};
    launch.block = Dim3{config->blockDim.x, config->blockDim.y, config->blockDim.z};
    launch.explicit_cluster = cluster_attribute(config, &launch.cluster);
    bool has = false, compiled = false;
    required_cluster(*f, r, &has, &compiled);
    if (!launch.explicit_cluster && !has) launch.cluster = Dim3{};  // clusters of one block
    else if (cudaError_t e = check_cluster_launch(rt, *f, launch, "cudaOccupancyMaxActiveClusters",
                                                  kernel_display_name(f->entry)))
        return fail(e);
    const int per_sm =
        blocks_per_sm(rt.model, launch.block.count(), config->dynamicSmemBytes + r.static_shared);
    *clusters = active_clusters(per_sm, std::uint32_t(launch.cluster.count()));
    return cudaSuccess;
}

}  // extern "C"
