// The program's memory, as the device process reaches it. The runtime runs in a process of its
// own (cudalab-device), so a pointer the program passes is an address in *another* process: the
// runtime never dereferences one. It reads and writes through here: page-locked, mapped,
// registered and managed memory are shared mappings (held by both processes, usually at the same
// address), everything else is read and written in the program's process with
// process_vm_readv/writev.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudalab::cudart::program {

// The program's process; 0 before a program connects (then addresses are this process's own,
// as in the runtime's unit tests).
void attach(int pid);
int pid();

// A shared mapping: the program's [address, address+bytes) is this process's [local, ...).
void add_shared(std::uint64_t address, void* local, std::uint64_t bytes);
void remove_shared(std::uint64_t address);
// This process's view of the program's [address, address+bytes), when it lies in one shared
// mapping; null otherwise.
void* local_view(std::uint64_t address, std::uint64_t bytes);

// False when any byte cannot be reached (a bad pointer): nothing is partly written then.
bool read(const void* address, void* out, std::size_t bytes);
bool write(void* address, const void* in, std::size_t bytes);
template <class T> bool read_value(const void* address, T* out) {
    return read(address, out, sizeof *out);
}
// A NUL-terminated string of at most `limit` bytes; false if unreadable or longer.
bool read_string(const char* address, std::string* out, std::size_t limit = 1 << 20);
// A module image passed by address (cuModuleLoadData, __cudaRegisterFatBinary's data): its size
// is read from its own header (fat binary, ELF) or its terminating NUL (PTX text).
bool read_image(const void* address, std::vector<std::uint8_t>* out, std::string* error);

}  // namespace cudalab::cudart::program
