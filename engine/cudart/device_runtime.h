// The part of CUDA's device runtime (cudadevrt) that kernels call as external functions and
// the emulated runtime provides in PTX of its own: device_runtime.cpp.
#pragma once

#include <string>

namespace cudalab::cudart::device_runtime {

// The PTX a module's emulator loads: `ptx`, with each device-runtime function it declares but
// cannot define itself given a definition. cudaGraphSetConditional(handle, value) becomes a store
// of the value at the handle (api_graph_nodes.cpp makes a conditional handle the device address
// of its value).
std::string prepare(const std::string& ptx);

}  // namespace cudalab::cudart::device_runtime
