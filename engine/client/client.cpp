// cudalab's libcudart.so.13 and libcuda.so.1 as a program loads them: a client of the device
// process (engine/cudart/server.cpp), to which it forwards every call (engine/device/protocol.h).
// It holds nothing a check reads: the emulated GPUs, their memory and every record live in the
// other process. What stays here is what must run in the program: the kernel launch's call
// configuration (pushed and popped around each <<<...>>>), the error texts, the
// host functions the device asks to run, its output written through the program's stdio, and
// the memory both share mapped where the device says.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <nvrtc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "device/error_texts.h"
#include "device/protocol.h"

// The table names every entry point, deprecated ones too (CUDA still exports them).
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

using cudalab::device::Frame;
using cudalab::device::Message;
using cudalab::device::Reader;

enum : std::uint32_t {
#define CALL(ret, name, params, args) call_##name,
#include "device/calls.inc"
#undef CALL
};

// [SECTION] The connection --------------------------------------------------------------------

std::mutex control_mutex;
int control = -1;     // the first connection: asks for one per thread
std::string failure;  // why there is no device, once said
pid_t owner = 0;      // the process that connected (a forked child is not it)
std::atomic<bool> unloading{false};
thread_local int mine = -1;  // this thread's connection

void say(const std::string& text) {
    std::fflush(stdout);
    std::fprintf(stderr, "cudalab: %s\n", text.c_str());
}

// The folder of this library (the device process's program sits beside it).
std::string own_folder() {
    Dl_info info{};
    if (!::dladdr(reinterpret_cast<void*>(&own_folder), &info) || !info.dli_fname) return ".";
    std::string path = info.dli_fname;
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

// The program was run directly (not by `cudalab run`): start a device process of its own.
int start_device() {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return -1;
    const std::string device = own_folder() + "/cudalab-device";
    const pid_t child = ::fork();
    if (child < 0) return -1;
    if (child == 0) {
        // The device process: its end of the socket kept open across exec.
        ::fcntl(pair[1], F_SETFD, 0);
        char fd_text[16];
        std::snprintf(fd_text, sizeof fd_text, "%d", pair[1]);
        ::setpgid(0, 0);  // not stopped with the program's process group (^C): it sees EOF
        ::execl(device.c_str(), "cudalab-device", fd_text, static_cast<char*>(nullptr));
        std::fprintf(stderr, "cudalab: cannot start the emulated device (%s): %s\n", device.c_str(),
                     std::strerror(errno));
        ::_exit(127);
    }
    ::close(pair[1]);
    return pair[0];
}

bool handshake(int s) {
    Message hello;
    hello.type = Frame::hello;
    hello.put(cudalab::device::protocol_version);
    hello.put(cudalab::device::calls_checksum());
    if (!cudalab::device::send_hello(s, hello)) return false;
    Message welcome;
    if (!cudalab::device::receive_message(s, &welcome) || welcome.type != Frame::welcome)
        return false;
    Reader r(welcome.body);
    if (r.get<std::uint32_t>() != 1) {
        failure.assign(reinterpret_cast<const char*>(r.at), r.left());
        return false;
    }
    return true;
}

void at_exit();
void start_host_function_thread();

// The first connection: handed over by `cudalab run` (CUDALAB_DEVICE_FD), or made here.
bool connect_control() {
    if (control >= 0) return true;
    if (!failure.empty()) return false;
    int s = -1;
    if (const char* fd = std::getenv(cudalab::device::connection_variable); fd && *fd) {
        s = std::atoi(fd);
        int type = 0;
        socklen_t len = sizeof type;
        if (s <= 2 || ::getsockopt(s, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM)
            s = -1;
        else ::fcntl(s, F_SETFD, FD_CLOEXEC);
        // Not for the programs this one starts: each CUDA program has a device of its own.
        ::unsetenv(cudalab::device::connection_variable);
    }
    if (s < 0) s = start_device();
    if (s < 0 || !handshake(s)) {
        if (failure.empty()) failure = "the emulated device process did not answer";
        say(failure);
        if (s >= 0) ::close(s);
        return false;
    }
    control = s;
    owner = ::getpid();
    std::atexit(at_exit);
    start_host_function_thread();
    return true;
}

// This thread's connection, made on its first call.
int connection() {
    if (mine >= 0) return mine;
    std::lock_guard lock(control_mutex);
    if (!connect_control()) return -1;
    Message ask;
    ask.type = Frame::connect;
    Message answer;
    if (!cudalab::device::send_message(control, ask) ||
        !cudalab::device::receive_message(control, &answer) || answer.type != Frame::connected ||
        answer.fd < 0) {
        if (answer.fd >= 0) ::close(answer.fd);
        return -1;
    }
    mine = answer.fd;
    return mine;
}

// [SECTION] Managed memory's host view ------------------------------------------------------------

// Pages of managed memory the device has taken (protected here): a host touch brings the page
// back and is reported with the next call.
struct Touch {
    std::uint64_t address;
    std::uint32_t write, depth;
    std::uint64_t frames[16];
};
constexpr int max_touched = 1024;
std::atomic<int> touched_count{0};
Touch touched[max_touched];
std::mutex protected_mutex;
std::map<std::uint64_t, std::uint64_t> protected_ranges;  // start -> end
struct sigaction previous_segv {};

void on_segv(int sig, siginfo_t* info, void* context) {
    const auto a = reinterpret_cast<std::uint64_t>(info->si_addr) & ~4095ull;
    // No lock in a signal handler: the ranges only grow while the program runs.
    for (const auto& [lo, hi] : protected_ranges)
        if (a >= lo && a < hi) {
            ::mprotect(reinterpret_cast<void*>(a), 4096, PROT_READ | PROT_WRITE);
            const int i = touched_count.fetch_add(1);
            if (i < max_touched) {
                // Where: this library (the first frame, so the device skips it), the faulting
                // instruction, then its callers.
                Touch& t = touched[i];
                t.address = reinterpret_cast<std::uint64_t>(info->si_addr);
                t.write = 0;
                t.depth = 2;
                t.frames[0] = reinterpret_cast<std::uint64_t>(&on_segv);
#if defined(__x86_64__)
                const auto* uc = static_cast<const ucontext_t*>(context);
                t.write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
                t.frames[1] = std::uint64_t(uc->uc_mcontext.gregs[REG_RIP]) + 1;
#endif
                void* frames[16];
                const int depth = ::backtrace(frames, 16);
                for (int f = 3; f < depth && t.depth < 16; ++f)
                    t.frames[t.depth++] = reinterpret_cast<std::uint64_t>(frames[f]);
            }
            return;
        }
    if (previous_segv.sa_flags & SA_SIGINFO && previous_segv.sa_sigaction)
        return previous_segv.sa_sigaction(sig, info, context);
    ::signal(SIGSEGV, SIG_DFL);
}

void protect(std::uint64_t address, std::uint64_t bytes, int prot) {
    static std::once_flag installed;
    std::call_once(installed, [] {
        void* warm[2];
        ::backtrace(warm, 2);  // loads what backtrace() needs now, not inside the handler
        struct sigaction sa {};
        sa.sa_sigaction = on_segv;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        ::sigaction(SIGSEGV, &sa, &previous_segv);
    });
    if (prot != (PROT_READ | PROT_WRITE)) {
        std::lock_guard lock(protected_mutex);
        protected_ranges[address] = std::max(protected_ranges[address], address + bytes);
    }
    ::mprotect(reinterpret_cast<void*>(address), bytes, prot);
}

void report_touches(int s) {
    const int n = std::min(touched_count.exchange(0), max_touched);
    if (n <= 0) return;
    Message m;
    m.type = Frame::page_touched;
    for (int i = 0; i < n; ++i) {
        const Touch& t = touched[i];
        m.put(t.address);
        m.put(t.write);
        m.put(t.depth);
        for (std::uint32_t f = 0; f < t.depth; ++f) m.put(t.frames[f]);
    }
    cudalab::device::send_message(s, m);
}

// [SECTION] Registered memory shared in place ----------------------------------------------------

// True when [lo, hi) lies in the program's own anonymous memory (the heap, an anonymous mmap, or
// pages adopted before), readable and writable: pages that may be swapped for shared ones
// holding the same bytes. A file's mapping, the stack or a read-only range are left alone (the
// device then keeps a copy in step around each kernel instead).
bool adoptable(std::uint64_t lo, std::uint64_t hi) {
    std::FILE* f = std::fopen("/proc/self/maps", "re");
    if (!f) return false;
    char line[512];
    std::uint64_t covered = lo;
    while (covered < hi && std::fgets(line, sizeof line, f)) {
        unsigned long a = 0, b = 0;
        char perms[8] = {};
        unsigned long offset = 0, inode = 0;
        char dev[32] = {};
        int name_at = 0;
        if (std::sscanf(line, "%lx-%lx %7s %lx %31s %lu %n", &a, &b, perms, &offset, dev, &inode,
                        &name_at) < 6)
            continue;
        if (b <= covered || a > covered) continue;
        std::string name = line + name_at;
        while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
        const bool anonymous = inode == 0 && (name.empty() || name == "[heap]");
        const bool adopted = name.rfind("/memfd:cudalab-registered", 0) == 0;
        if (perms[0] != 'r' || perms[1] != 'w' || !(anonymous || adopted)) break;
        covered = b;
    }
    std::fclose(f);
    return covered >= hi;
}

bool adopt(int fd, std::uint64_t address, std::uint64_t bytes) {
    if (address % 4096 || bytes % 4096 || !bytes || !adoptable(address, address + bytes))
        return false;
    // The pages' bytes go into the descriptor just before it takes their place (the window in
    // which another thread's write to these pages could be lost is this copy, not a round trip).
    // From here on both processes see one set of pages.
    for (std::uint64_t done = 0; done < bytes;) {
        const ssize_t n = ::pwrite(fd, reinterpret_cast<const char*>(address) + done,
                                   std::size_t(bytes - done), off_t(done));
        if (n <= 0) return false;
        done += std::uint64_t(n);
    }
    void* p = ::mmap(reinterpret_cast<void*>(address), bytes, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_FIXED, fd, 0);
    return p == reinterpret_cast<void*>(address);
}

// [SECTION] Serving the device while a call is out ---------------------------------------------

void answer(int s, std::uint32_t status) {
    Message done;
    done.type = Frame::host_done;
    done.put(status);
    cudalab::device::send_message(s, done);
}

// Waits for the reply, doing meanwhile what the device asks. False when the device is gone.
bool await_reply(int s, std::uint64_t* result) {
    Message m;
    // Most calls are answered within microseconds: poll that long before sleeping.
    while (cudalab::device::receive_message(s, &m, 60)) {
        Reader r(m.body);
        switch (m.type) {
        case Frame::reply: *result = r.get<std::uint64_t>(); return true;
        case Frame::output: {
            const auto stream = r.get<std::uint32_t>();
            if (stream == 2) {
                std::fflush(stdout);
                std::fwrite(r.at, 1, r.left(), stderr);
            } else {
                std::fwrite(r.at, 1, r.left(), stdout);
            }
            break;
        }
        case Frame::map: {
            const auto address = r.get<std::uint64_t>();
            const auto bytes = r.get<std::uint64_t>();
            void* p = m.fd < 0
                          ? MAP_FAILED
                          : ::mmap(reinterpret_cast<void*>(address), bytes, PROT_READ | PROT_WRITE,
                                   MAP_SHARED | MAP_FIXED_NOREPLACE, m.fd, 0);
            const bool ok = p == reinterpret_cast<void*>(address);
            if (p != MAP_FAILED && !ok) ::munmap(p, bytes);
            if (m.fd >= 0) ::close(m.fd);
            answer(s, ok ? 1 : 0);
            break;
        }
        case Frame::adopt: {
            const auto address = r.get<std::uint64_t>();
            const auto bytes = r.get<std::uint64_t>();
            const bool ok = m.fd >= 0 && adopt(m.fd, address, bytes);
            if (m.fd >= 0) ::close(m.fd);
            answer(s, ok ? 1 : 0);
            break;
        }
        case Frame::unmap: {
            const auto address = r.get<std::uint64_t>();
            const auto bytes = r.get<std::uint64_t>();
            ::munmap(reinterpret_cast<void*>(address), bytes);
            {
                std::lock_guard lock(protected_mutex);
                protected_ranges.erase(address);
            }
            answer(s, 1);
            break;
        }
        case Frame::protect: {
            const auto address = r.get<std::uint64_t>();
            const auto bytes = r.get<std::uint64_t>();
            const auto prot = r.get<std::uint32_t>();
            protect(address, bytes, int(prot));
            answer(s, 1);
            break;
        }
        case Frame::host_call: {
            const auto kind = r.get<std::uint32_t>();
            const auto fn = r.get<std::uint64_t>();
            const auto data = r.get<std::uint64_t>();
            const auto stream = r.get<std::uint64_t>();
            const auto status = r.get<std::uint32_t>();
            if (kind == std::uint32_t(cudalab::device::HostCallKind::host_fn))
                reinterpret_cast<cudaHostFn_t>(fn)(reinterpret_cast<void*>(data));
            else
                reinterpret_cast<cudaStreamCallback_t>(fn)(reinterpret_cast<cudaStream_t>(stream),
                                                           cudaError_t(status),
                                                           reinterpret_cast<void*>(data));
            answer(s, 1);
            break;
        }
        default:
            if (m.fd >= 0) ::close(m.fd);
            return false;
        }
    }
    return false;
}

template <class R> R from_word(std::uint64_t v) {
    if constexpr (std::is_void_v<R>) return;
    else {
        R r{};
        std::memcpy(&r, &v, sizeof r);
        return r;
    }
}

// The status a call answers without a device: the runtime's and the driver's codes agree on
// these (3 not initialised, 4 unloading, 100 no device).
template <class R> R status(std::uint64_t code) {
    if constexpr (std::is_void_v<R> || std::is_pointer_v<R>) return R();
    else return from_word<R>(code);
}

template <class R, std::uint32_t index, class... A> R forward(const A&... args) {
    if (unloading.load()) return status<R>(cudaErrorCudartUnloading);
    if (owner && ::getpid() != owner) {
        static std::once_flag said;
        std::call_once(said, [] {
            say("a CUDA call in a child made by fork(): the child has no CUDA context (as with "
                "CUDA, start CUDA in the child only, or exec a new program)");
        });
        return status<R>(cudaErrorInitializationError);
    }
    const int s = connection();
    if (s < 0) return status<R>(cudaErrorNoDevice);
    report_touches(s);
    Message m;
    m.type = Frame::call;
    m.put(index);
    void* frames[12];
    const int depth = ::backtrace(frames, 12);
    m.put(std::uint32_t(depth));
    for (int i = 0; i < depth; ++i) m.put(reinterpret_cast<std::uint64_t>(frames[i]));
    (m.put(args), ...);
    std::uint64_t result = 0;
    const bool sent = cudalab::device::send_message(s, m);
    if (m.fd >= 0) ::close(m.fd);
    if (!sent || !await_reply(s, &result)) {
        static std::once_flag said;
        std::call_once(said, [] {
            say("the emulated device process has gone; CUDA calls from here on fail");
        });
        return status<R>(999);
    }
    return from_word<R>(result);
}

// CUDA runs host functions and stream callbacks on a thread of its own, not on the thread that
// enqueued them (which may be waiting for them meanwhile): this one, on a connection the device
// process keeps for them. It sleeps in recv() until the device thread reaches one.
void start_host_function_thread() {
    std::thread([] {
        const int s = connection();
        if (s < 0) return;
        Message m;
        m.type = Frame::host_functions;
        if (!cudalab::device::send_message(s, m)) return;
        std::uint64_t ignored = 0;
        while (await_reply(s, &ignored)) {
        }
    }).detach();
}

void at_exit() {
    // The program is exiting: the device makes its records final, and later calls (from the
    // destructors of global objects) answer cudaErrorCudartUnloading, as CUDA's do.
    if (::getpid() != owner) return;
    const int s = connection();
    if (s >= 0) {
        report_touches(s);
        Message m;
        m.type = Frame::shutdown;
        std::uint64_t ignored = 0;
        if (cudalab::device::send_message(s, m)) await_reply(s, &ignored);
    }
    std::fflush(stdout);
    unloading = true;
}

// [SECTION] The launch configuration of <<<...>>> -------------------------------------------------

struct Configuration {
    dim3 grid, block;
    size_t shared;
    void* stream;
};
thread_local std::vector<Configuration> configurations;

}  // namespace

// [SECTION] The entry points
// ------------------------------------------------------------------------

extern "C" {

#define CALL(ret, name, params, args)                                                              \
    __attribute__((visibility("default"))) ret name params {                                       \
        return forward<ret, call_##name> args;                                                     \
    }
#include "device/calls.inc"
#undef CALL

// The error texts need no device (and work in a child after fork): answered here.
__attribute__((visibility("default"))) const char* cudaGetErrorName(cudaError_t error) {
    return cudalab::device::runtime_error_name(int(error));
}

__attribute__((visibility("default"))) const char* cudaGetErrorString(cudaError_t error) {
    return cudalab::device::runtime_error_string(int(error));
}

__attribute__((visibility("default"))) CUresult cuGetErrorName(CUresult error, const char** name) {
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    *name = cudalab::device::driver_error_name(int(error));
    return *name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

__attribute__((visibility("default"))) CUresult cuGetErrorString(CUresult error,
                                                                 const char** text) {
    if (!text) return CUDA_ERROR_INVALID_VALUE;
    *text = cudalab::device::driver_error_string(int(error));
    return *text ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// A channel descriptor is a plain value: made here (cudaCreateChannelDesc<T>() calls it).
__attribute__((visibility("default"))) cudaChannelFormatDesc
cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
    return cudaChannelFormatDesc{x, y, z, w, f};
}

// The driver's entry points by name (cuGetProcAddress, cudaGetDriverEntryPoint): what a program
// gets is the function a call of that name in its source reaches, the newest version CUDA 13's
// cuda.h names (cuMemAlloc: cuMemAlloc_v2). An entry point cudalab does not implement is found
// too, as the stub that answers CUDA_ERROR_NOT_SUPPORTED and says so; a name CUDA's library does
// not export is not found.
namespace {
void* driver_entry_point(const char* symbol, unsigned long long flags) {
    static const std::map<std::string, void*> implemented = {
#define CALL(ret, name, params, args) {#name, reinterpret_cast<void*>(&name)},
#include "device/calls.inc"
#undef CALL
        {"cuGetErrorName", reinterpret_cast<void*>(&cuGetErrorName)},
        {"cuGetErrorString", reinterpret_cast<void*>(&cuGetErrorString)},
        {"cuGetExportTable", reinterpret_cast<void*>(&cuGetExportTable)},
        {"cuGetProcAddress", reinterpret_cast<void*>(&cuGetProcAddress)},
    };
    if (!symbol || std::strncmp(symbol, "cu", 2) != 0 || std::strncmp(symbol, "cuda", 4) == 0)
        return nullptr;
    const std::string name = symbol;
    std::vector<std::string> tries;
    // Per-thread default stream: the _ptsz/_ptds variant where there is one.
    if (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
        for (const char* v : {"", "_v2", "_v3"})
            for (const char* t : {"_ptsz", "_ptds"}) tries.push_back(name + v + t);
    tries.push_back(name);
    for (const std::string& t : tries)
        if (auto it = implemented.find(t); it != implemented.end()) return it->second;
    // Not implemented: the stub of the newest version the library exports.
    Dl_info info{};
    if (!::dladdr(reinterpret_cast<void*>(&driver_entry_point), &info) || !info.dli_fname)
        return nullptr;
    void* self = ::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!self) return nullptr;
    void* found = nullptr;
    for (const char* v : {"_v4", "_v3", "_v2", ""})
        if (!found) found = ::dlsym(self, (name + v).c_str());
    ::dlclose(self);
    return found;
}
}  // namespace

__attribute__((visibility("default"))) CUresult
cuGetProcAddress(const char* symbol, void** pfn, int, cuuint64_t flags,
                 CUdriverProcAddressQueryResult* status) {
    if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
    *pfn = driver_entry_point(symbol, flags);
    if (status) *status = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

__attribute__((visibility("default"))) cudaError_t
cudaGetDriverEntryPointByVersion(const char* symbol, void** pfn, unsigned int,
                                 unsigned long long flags,
                                 cudaDriverEntryPointQueryResult* status) {
    if (!symbol || !pfn) return cudaErrorInvalidValue;
    // cudaEnablePerThreadDefaultStream is the driver's per-thread flag.
    *pfn = driver_entry_point(symbol, flags & cudaEnablePerThreadDefaultStream
                                          ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
                                          : 0);
    if (status) *status = *pfn ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
    return cudaSuccess;
}

__attribute__((visibility("default"))) cudaError_t
cudaGetDriverEntryPoint(const char* symbol, void** pfn, unsigned long long flags,
                        cudaDriverEntryPointQueryResult* status) {
    return cudaGetDriverEntryPointByVersion(symbol, pfn, CUDART_VERSION, flags, status);
}

// NVRTC asks the driver for private export tables while it compiles, and compiles as usual
// without them.
__attribute__((visibility("default"))) CUresult cuGetExportTable(const void** table,
                                                                 const CUuuid*) {
    if (table) *table = nullptr;
    return CUDA_ERROR_NOT_SUPPORTED;
}

__attribute__((visibility("default"))) unsigned
__cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, void* stream) {
    configurations.push_back({grid, block, shared, stream});
    return 0;
}

__attribute__((visibility("default"))) cudaError_t
__cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
    if (configurations.empty()) return cudaErrorMissingConfiguration;
    const Configuration c = configurations.back();
    configurations.pop_back();
    *grid = c.grid;
    *block = c.block;
    *shared = c.shared;
    *static_cast<void**>(stream) = c.stream;
    return cudaSuccess;
}

// Programs that compile with NVRTC for a real GPU load a cubin of machine code, which the
// emulator cannot run. NVRTC made PTX on the way: this wraps nvrtcGetCUBIN (the library is
// preloaded, so its definition comes before libnvrtc's), returns NVRTC's cubin unchanged and
// sends the device the same program's PTX with the cubin's bytes; cuModuleLoadData of that cubin
// then loads the PTX. The real NVRTC is found with dlsym(RTLD_NEXT): the program linked it.
__attribute__((visibility("default"))) nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char* cubin) {
    auto real = [](const char* name) { return ::dlsym(RTLD_NEXT, name); };
    static const auto get_cubin =
        reinterpret_cast<nvrtcResult (*)(nvrtcProgram, char*)>(real("nvrtcGetCUBIN"));
    static const auto cubin_size =
        reinterpret_cast<nvrtcResult (*)(nvrtcProgram, std::size_t*)>(real("nvrtcGetCUBINSize"));
    static const auto ptx_size =
        reinterpret_cast<nvrtcResult (*)(nvrtcProgram, std::size_t*)>(real("nvrtcGetPTXSize"));
    static const auto get_ptx =
        reinterpret_cast<nvrtcResult (*)(nvrtcProgram, char*)>(real("nvrtcGetPTX"));
    if (!get_cubin) return NVRTC_ERROR_INTERNAL_ERROR;
    const nvrtcResult result = get_cubin(prog, cubin);
    std::size_t size = 0, text_size = 0;
    if (result != NVRTC_SUCCESS || !cubin || !cubin_size || !ptx_size || !get_ptx ||
        cubin_size(prog, &size) != NVRTC_SUCCESS || ptx_size(prog, &text_size) != NVRTC_SUCCESS ||
        text_size == 0)
        return result;
    std::string ptx(text_size, '\0');
    if (get_ptx(prog, ptx.data()) != NVRTC_SUCCESS) return result;
    ptx.resize(std::strlen(ptx.c_str()));
    forward<void, call___cudalabRememberNvrtcCubin>(static_cast<const void*>(cubin), size,
                                                    static_cast<const char*>(ptx.c_str()));
    return result;
}

}  // extern "C"

// Every other entry point of CUDA's libraries (not_implemented.cpp): said once by the device,
// which records it for the checks.
namespace cudalab::client {
int report_not_implemented(const char* function) {
    return forward<int, call___cudalabNotImplemented>(function);
}
}  // namespace cudalab::client
