// Virtual memory management (api_vmm.cpp): what the rest of the runtime asks of it.
#pragma once

#include <cstdint>
#include <string>

namespace cudalab::cudart::vmm {

// What a pointer into a cuMemMap'd range is: the mapping holding it, the device the physical
// memory is on, the handle types it may be exported as, and the access the current device has.
struct Facts {
    std::uint64_t mapping_base = 0, mapping_size = 0;
    int device = 0;
    unsigned long long handle_types = 0;
    unsigned access = 0;  // CUmemAccess_flags for the device asked about
};

// True when `address` is inside a range reserved with cuMemAddressReserve; `facts` (optional) is
// filled when it is also mapped.
bool owns(std::uint64_t address);
bool facts(std::uint64_t address, int device, Facts* out);

// A note for a kernel fault's message when an address it names is reserved but not mapped, or
// mapped without access (what the GPU would report as an illegal address); "" otherwise.
std::string fault_note(const std::string& message);

}  // namespace cudalab::cudart::vmm
