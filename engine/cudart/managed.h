// Unified (managed) memory: pages that move between host and device on demand, counted.
//
// A managed allocation is host memory that kernels reach at the same address. Each 4 KB page has
// a home, host or device; a page is reachable only from its home, as with a GPU's demand paging
// (Pascal and later): a touch from the other side moves it. cudalab enforces this with page
// protection (mprotect): while the host runs, device pages are inaccessible; while a kernel runs,
// host pages are. The fault moves the page and counts the migration. Prefetches move pages ahead
// of time without faults; cudaMemAdviseSetReadMostly keeps pages readable on both sides.
//
// Limitation: a system call that reads or writes a page that is on the device (read(2) into a
// managed buffer after a kernel wrote it) fails with EFAULT instead of faulting; prefetch the
// buffer to the host (cudaMemPrefetchAsync to cudaCpuDeviceId) first, or set
// CUDALAB_MANAGED_PAGING=0 to turn the page tracking off.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudalab::cudart::managed {

struct Counters {
    std::uint64_t host_to_device_pages = 0;  // moved by a kernel's touch
    std::uint64_t device_to_host_pages = 0;  // moved by a host touch
    std::uint64_t prefetched_bytes = 0;
};

constexpr std::uint64_t page_bytes = 4096;

bool enabled();
// Registers [base, base+bytes) (page-aligned, all pages on the host).
void add(void* base, std::uint64_t bytes);
void remove(void* base);
// Whether any managed memory is tracked now (kernels then run in their call: executor.h).
bool any();
// Kernels are about to run / have finished: swap which side's pages are reachable.
void enter_device();
void leave_device();
// Moves pages ahead of use (device >= 0: to the device; -1: to the host).
void prefetch(const void* base, std::uint64_t bytes, int device);
void read_mostly(const void* base, std::uint64_t bytes, bool on);
Counters counters();
// The program touched this page of managed memory on the host (its CUDA library saw the fault,
// in the program's process): the page moves home to the host, counted as a fault would be.
void host_touched(std::uintptr_t address);

// A run of pages of one allocation whose home changed since the last take_moves() (by faults or
// prefetches), for the timeline's page map. Not called from the fault handler: the runtime takes
// them between phases (before and after each kernel, after a prefetch, at exit).
struct PageMove {
    std::uintptr_t base = 0;
    std::uint64_t allocation_pages = 0;
    std::uint64_t first = 0, count = 0;
    bool to_device = false;
};
std::vector<PageMove> take_moves();

}  // namespace cudalab::cudart::managed

namespace cudalab::cudart {
struct Module;
// The storage of a module's __managed__ variable: managed memory as cudaMallocManaged makes it,
// one per module and name (each device's copy of the module shares it), with the host's pointer
// that __cudaRegisterManagedVar registered set to it. *fresh: made by this call (the caller
// writes the initialiser). 0 when no memory could be had.
std::uint64_t place_managed_variable(Module& module, const std::string& name, std::uint64_t size,
                                     bool* fresh);
}  // namespace cudalab::cudart
