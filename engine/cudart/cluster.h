// Thread block clusters in the emulated runtime (api_cluster.cpp): the checks of a launch with
// cluster dimensions and the kernels' cluster attributes.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "cudart/state.h"
#include "emulator/emulator.h"

namespace cudalab::cudart {

// The Function a host function pointer (or cudaKernel_t / CUfunction) names; null if none.
Function* function_for(const void* host_function);

// Checks a launch's clusters as a GPU does and completes `config`: a kernel compiled with
// __cluster_dims__ (or given a required size at run time) launched without cluster dimensions gets
// its own. cudaErrorInvalidClusterSize (with a warning that says why) when the grid is not a
// whole number of clusters, a cluster has more than 8 blocks (16 with non-portable sizes allowed),
// a dimension is 0, or the size differs from the kernel's.
cudaError_t check_cluster_launch(Runtime& rt, const Function& f, LaunchConfig& config,
                                 const std::string& api, const std::string& name);

// cudaFuncGetAttributes' cluster fields.
void cluster_attributes(const Function& f, const emu::Emulator::KernelResources& r,
                        cudaFuncAttributes* attr);

// cudaFuncSetAttribute of a cluster attribute: true when `attr` is one (with *error its answer).
bool set_cluster_attribute(Runtime& rt, Function& f, cudaFuncAttribute attr, int value,
                           cudaError_t* error);

}  // namespace cudalab::cudart
