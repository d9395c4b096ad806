// The device protocol: how a program's CUDA library (engine/client) talks to the device process
// (engine/cudart run by cudalab-device), which holds the emulated GPUs and every record a check
// reads. One versioned module, used by both ends.
//
// The shape is CUDA's own: the program calls a driver, the device is somewhere else. Each thread
// of the program that calls CUDA has a connection of its own (a Unix stream socket), served by a
// thread of its own in the device process, so that per-thread state (the current device, the
// last error, the per-thread default stream) is the thread's as in CUDA. A connection carries
// frames: a call goes out, and until its reply comes back the device may send output (stdout or
// stderr text the client writes through the program's own stdio, keeping its order with the
// program's prints), shared memory to map (pinned and managed memory, with its file descriptor)
// and host functions to run (stream callbacks, host nodes), each answered before the reply.
//
// The device process reads and writes the program's memory itself (process_vm_readv/writev, a
// right the program cannot take back) and learns the program's process from the kernel
// (SCM_CREDENTIALS), so nothing the program sends about itself is believed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace cudalab::device {

// Bumped whenever a frame's layout or the list of calls changes meaning.
constexpr std::uint32_t protocol_version = 3;

// The environment variable through which `cudalab run` (or the client itself, when it starts the
// device process) hands the program the descriptor of its first connection. It carries no
// setting: a program that removes it only loses its device.
constexpr const char* connection_variable = "CUDALAB_DEVICE_FD";

enum class Frame : std::uint32_t {
    hello = 1,      // client -> device: version, the calls table's checksum (with credentials)
    welcome = 2,    // device -> client: accepted (u32 1) or refused (text)
    call = 3,       // client -> device: u32 call index, u32 stack depth, u64 frames, argument bytes
    reply = 4,      // device -> client: u64 return value
    output = 5,     // device -> client: u32 stream (1 stdout, 2 stderr), text
    map = 6,        // device -> client: u64 address, u64 bytes (the descriptor rides along)
    unmap = 7,      // device -> client: u64 address, u64 bytes
    protect = 8,    // device -> client: u64 address, u64 bytes, u32 prot (answered when done)
    host_call = 9,  // device -> client: u32 kind, u64 function, u64 data, u64 stream, u32 status
    host_done = 10,     // client -> device: the host function returned
    connect = 11,       // client -> device: a new connection for another thread (one comes back)
    connected = 12,     // device -> client: the new connection's descriptor rides along
    shutdown = 13,      // client -> device: the program is exiting (atexit): records are final
    page_touched = 14,  // client -> device: u64 page addresses the host touched (managed memory)
    adopt = 15,  // device -> client: u64 address, u64 bytes: put the descriptor's pages (a copy of
                 // the program's own, cudaHostRegister) in place of those; answered 1 or 0
    host_functions = 16,  // client -> device: this connection's thread runs the program's host
                          // functions and stream callbacks (host_call), as CUDA's own thread does
};

enum class HostCallKind : std::uint32_t { host_fn = 1, stream_callback = 2 };

struct Message {
    Frame type{};
    std::vector<std::uint8_t> body;
    int fd = -1;  // a descriptor passed with the frame, or -1

    template <class T> void put(const T& v) { put_bytes(&v, sizeof v); }
    void put_bytes(const void* p, std::size_t n) {
        if (n == 0) return;
        const std::size_t at = body.size();
        body.resize(at + n);
        std::memcpy(body.data() + at, p, n);
    }
};

// Reads a frame's body front to back; a short body reads as zeros and sets `short_read`.
struct Reader {
    const std::uint8_t* at = nullptr;
    const std::uint8_t* end = nullptr;
    bool short_read = false;
    explicit Reader(const std::vector<std::uint8_t>& b) : at(b.data()), end(b.data() + b.size()) {}
    template <class T> T get() {
        T v{};
        take(&v, sizeof v);
        return v;
    }
    void take(void* out, std::size_t n);
    std::size_t left() const { return std::size_t(end - at); }
};

// Frames are a u32 type, a u32 body length and the body; at most this much body.
constexpr std::uint32_t max_body = 64u << 20;

// Sends one frame (and its descriptor). False when the peer is gone.
bool send_message(int socket, const Message& m);
// Receives one frame. False on end of file, a malformed frame or an error. `spin_us`: how long to
// poll before sleeping in the kernel; an answer that comes within it costs no wake-up (a call's
// round trip is two of them, each tens of microseconds on an idle machine).
bool receive_message(int socket, Message* m, int spin_us = 0);

// The device's side of a connection: the kernel's word on who is at the other end (the sender's
// process id, translated into the device's PID namespace), read from the hello frame.
bool receive_hello(int socket, Message* m, int* pid);
// The client's side: the hello with the process's credentials attached.
bool send_hello(int socket, const Message& m);

// A checksum of the calls table (engine/device/calls.inc), so that a client and a device built
// from different tables refuse each other instead of calling the wrong function.
std::uint64_t calls_checksum();

}  // namespace cudalab::device
