// What the runtime asks of the program it serves, from inside the device process (server.cpp):
// text for the program's stdout and stderr, memory shared with it, host functions run on the
// program's thread, and the program's call stack of the call in progress. Outside a device
// process (no program attached) each does the plain local thing.
#pragma once

#include <cstdint>
#include <string>

namespace cudalab::cudart {

struct CallStack;

namespace link {

// Text for the program's stdout (1) or stderr (2), written by the program's own stdio so that it
// keeps its place among the program's prints; after the program has gone, to the device
// process's own descriptors.
void emit(int stream, const std::string& text);

// Host memory both processes reach at the same address (page-locked, mapped, managed memory,
// images the program reads). Zeroed. Null when it cannot be had.
void* share(std::uint64_t bytes);
void unshare(void* address, std::uint64_t bytes);
// The program's [address, address+bytes) made reachable by kernels (cudaHostRegister): where this
// process holds it, a copy brought up to date from the program before each kernel and written
// back after (in-process: the address itself). Null when it cannot be had.
void* share_existing(void* address, std::uint64_t bytes);
void unshare_existing(void* address);
// Registered memory's copies: from the program before a kernel runs, back to it after.
void registered_in();
void registered_out();
// Whether any registered memory is kept in step by copying (kernels then run in their call).
bool registered_copies();
// Page protection of shared memory as the program sees it (managed memory's host view).
void protect_in_program(void* address, std::uint64_t bytes, int prot);

// Runs a host function in the program and returns when it has: from the device thread
// (executor.h), on the program's thread for host functions; in a call, on the calling thread.
void run_host_function(void (*fn)(void*), void* data);
void run_stream_callback(void* callback, void* stream, int status, void* data);
// Whether the program has its thread for host functions (its library starts one).
bool host_function_thread();

// The program's call stack for the call being served, or null.
const CallStack* caller_stack();

// The program's file for a path it named (cuModuleLoad): seen from its root and working folder.
std::string program_path(const std::string& path);

}  // namespace link
}  // namespace cudalab::cudart
