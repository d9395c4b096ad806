// libFuzzer target for the emulator's memory paths (issue 23): the input bytes choose a kernel of
// up to 24 memory instructions, each an operation (ld, st, vector ld/st, ld.global.nc, atom with
// every operation, red, cp.async, cp.async.bulk, mbarrier, prefetch), a width, a state space and a
// base (a global buffer, a __device__ variable, shared, dynamic shared, local, constant and
// parameter symbols, each directly or through a generic address, or none), an offset (edges and
// sizes of the small buffers, negative ones, ones that wrap round 2^64) and a per-lane stride
// (consecutive lanes, which the specialised handlers take, a broadcast, a scatter). The kernel runs
// on 2 blocks of 33 threads over 256-byte buffers. Whatever the bytes, each access must be done
// inside a buffer or be the emulator's fault: AddressSanitizer stops at the first byte read or
// written outside one. See docs/emulator.md, "Fuzzing".
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "emulator/emulator.h"

namespace {

// The bytes, read one choice at a time (zero once they run out).
struct Choices {
    const std::uint8_t* data;
    std::size_t size, at = 0;
    unsigned next() { return at < size ? data[at++] : 0; }
    unsigned pick(unsigned n) { return next() % n; }
    std::uint64_t u64() {
        std::uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v = v << 8 | next();
        return v;
    }
};

// One dense table.
// clang-format off
constexpr std::uint64_t offsets[] = {
    0, 1, 2, 3, 4, 8, 12, 15, 16, 28, 32, 60, 63, 64, 124, 128, 240, 248, 252, 255, 256, 257, 1024,
    4096, 65536, 1ull << 31, 1ull << 32, 1ull << 40, 1ull << 63, ~0ull, ~0ull - 3, ~0ull - 7,
    ~0ull - 15, ~0ull - 255, 0x1000'0000'0000ull, 0x2000'0000'0000ull, 0x3000'0000'0000ull,
    0x4000'0000'0000ull, 0x4080'0000'0000ull, 0x7000'0000'0000ull, 0x0fff'ffff'fffcull,
};
// clang-format on
constexpr std::int64_t strides[] = {0, 1, 2, 4, 8, 16, -4, -8, 4096, -4096, 1ll << 40, 3};

// What an address is computed from.
enum Base {
    global_param,    // the kernel's pointer argument
    global_var,      // a __device__ variable
    shared_var,      // a static __shared__ array
    dynamic_shared,  // extern __shared__
    local_var,       // a local array
    const_var,       // a __constant__ array
    param_var,       // the kernel's parameter buffer
    nothing,         // the offset alone
    bases
};

struct Width {
    const char* type;
    const char* reg;  // register class the value moves through
    unsigned bytes;
};
constexpr Width widths[] = {{"u8", "%r", 1},   {"u16", "%r", 2}, {"u32", "%r", 4},
                            {"u64", "%rd", 8}, {"f32", "%f", 4}, {"f64", "%fd", 8},
                            {"s32", "%r", 4},  {"b16", "%h", 2}, {"b128", "%q", 16}};

std::string own_space(Base b) {
    switch (b) {
    case shared_var:
    case dynamic_shared: return "shared";
    case local_var: return "local";
    case const_var: return "const";
    case param_var: return "param";
    default: return "global";
    }
}

std::string symbol_of(Base b) {
    switch (b) {
    case global_var: return "gvar";
    case shared_var: return "sh";
    case dynamic_shared: return "dsh";
    case local_var: return "loc";
    case const_var: return "cvar";
    case param_var: return "k_param_0";
    default: return "";
    }
}

// The PTX of the kernel the bytes describe.
std::string kernel_from(Choices& c) {
    std::string body;
    auto line = [&](const std::string& s) { body += "    " + s + "\n"; };
    const unsigned count = 1 + c.pick(24);
    for (unsigned i = 0; i < count; ++i) {
        const Base base = Base(c.pick(bases));
        const bool generic = c.pick(3) == 0;  // through a generic address (cvta)
        const std::uint64_t offset = c.pick(4) == 0 ? c.u64() : offsets[c.pick(std::size(offsets))];
        const std::int64_t stride = strides[c.pick(std::size(strides))];
        const bool immediate = c.pick(2) == 0;  // the offset in the instruction: [%rd10+imm]
        // %rd10: the address, in the space the instruction names.
        if (base == global_param) line("mov.u64 %rd10, %rd2;");
        else if (base == nothing) line("mov.u64 %rd10, 0;");
        else line("mov.u64 %rd10, " + symbol_of(base) + ";");
        std::string space = base == nothing ? "global" : own_space(base);
        if (generic && base != global_param && base != nothing && base != param_var) {
            line("cvta." + space + ".u64 %rd10, %rd10;");
            space = "";
        } else if (generic) {
            space = "";
        }
        line("mul.lo.s64 %rd11, %rd1, " + std::to_string(stride) + ";");
        line("add.s64 %rd10, %rd10, %rd11;");
        std::string at = "[%rd10]";
        const std::int64_t small = std::int64_t(offset);
        if (immediate && small >= -(1ll << 31) && small < (1ll << 31))
            at = "[%rd10+" + std::to_string(small) + "]";
        else line("add.s64 %rd10, %rd10, " + std::to_string(small) + ";");
        const std::string dot_space = space.empty() ? "" : "." + space;
        const Width& w = widths[c.pick(std::size(widths))];
        const std::string t = w.type, v = std::string(w.reg) + "1";
        switch (c.pick(14)) {
        case 0: line("ld" + dot_space + "." + t + " " + v + ", " + at + ";"); break;
        case 1: line("st" + dot_space + "." + t + " " + at + ", " + v + ";"); break;
        case 2:
            line("ld" + dot_space + ".v2." + t + " {" + v + ", " + w.reg + "2}, " + at + ";");
            break;
        case 3:
            line("st" + dot_space + ".v4." + t + " " + at + ", {" + v + ", " + w.reg + "2, " +
                 w.reg + "3, " + v + "};");
            break;
        case 4: line("ld.global.nc." + t + " " + v + ", " + at + ";"); break;
        case 5: {
            static const char* ops[] = {"add", "exch", "min", "max", "inc", "dec", "and", "or"};
            const char* op = ops[c.pick(std::size(ops))];
            const bool bits = (op[0] == 'a' && op[1] == 'n') || op[0] == 'o' || op[0] == 'e';
            const std::string at_type =
                bits ? (w.bytes == 8 ? "b64" : "b32") : (w.bytes == 8 ? "u64" : "u32");
            const std::string r = w.bytes == 8 ? "%rd3" : "%r3";
            line("atom" + dot_space + "." + op + "." + at_type + " " + r + ", " + at + ", " + r +
                 ";");
            break;
        }
        case 6:
            line("atom" + dot_space + ".cas.b" + (w.bytes == 8 ? "64 %rd3, " : "32 %r3, ") + at +
                 (w.bytes == 8 ? ", %rd3, %rd4;" : ", %r3, %r4;"));
            break;
        case 7:
            line("red" + dot_space + ".add." + (w.bytes == 8 ? "u64 " : "f32 ") + at +
                 (w.bytes == 8 ? ", %rd3;" : ", %f1;"));
            break;
        case 8:
            // cp.async's destination is shared; the source global.
            line("cp.async.ca.shared.global [sh+" + std::to_string(offset % 512) + "], " + at +
                 ", " + std::to_string(4u << c.pick(3)) + ";");
            break;
        case 9: line("cp.async.cg.shared.global " + at + ", [%rd2], 16;"); break;
        case 10:
            line("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes " + at +
                 ", [%rd2], " + std::to_string(16u * (1 + c.pick(32))) + ", [bar];");
            break;
        case 11:
            if (c.pick(2)) line("mbarrier.init" + dot_space + ".b64 " + at + ", 33;");
            else line("mbarrier.arrive" + dot_space + ".b64 %rd3, " + at + ";");
            break;
        case 12: line("prefetch" + dot_space + ".L2 " + at + ";"); break;
        default: line("ld" + dot_space + ".volatile." + t + " " + v + ", " + at + ";"); break;
        }
    }
    std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.global .align 16 .b8 gvar[256];
.const .align 16 .b8 cvar[256] = {1, 2, 3};
.extern .shared .align 16 .b8 dsh[];
.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)
{
    .reg .pred %p<4>;
    .reg .b16 %h<4>;
    .reg .b32 %r<8>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<16>;
    .reg .f64 %fd<4>;
    .reg .b128 %q<4>;
    .shared .align 16 .b8 sh[256];
    .shared .align 8 .b64 bar;
    .local .align 16 .b8 loc[256];
    mov.u32 %r5, %tid.x;
    cvt.u64.u32 %rd1, %r5;
    ld.param.u64 %rd2, [k_param_0];
    mov.u64 %rd3, 1;
    mov.u64 %rd4, 2;
    mov.u32 %r1, 3;
    mov.u32 %r2, 4;
    mov.u32 %r3, 5;
    mov.u32 %r4, 6;
    setp.eq.u32 %p1, %r5, 0;
    @%p1 mbarrier.init.shared.b64 [bar], 1;
    bar.sync 0;
)";
    ptx += body;
    ptx += "    ret;\n}\n";
    return ptx;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Choices choices{data, size};
    const std::string ptx = kernel_from(choices);
    cudalab::emu::EmulatorOptions options;
    options.instruction_budget = 20000;
    options.worker_threads = 1;
    // Every third input without the specialised handlers: the general paths see the same accesses.
    options.specialised_handlers = size % 3 != 0;
    options.only_argument_buffers = size % 2 == 0;
    cudalab::emu::Emulator emulator(options);
    const cudalab::Status loaded = emulator.load(ptx, "memory_fuzz.cu");
    // EMU_MEMORY_FUZZ_VERBOSE=1: each kernel and what became of it (to see that the inputs reach
    // the memory paths rather than stop at the parser).
    const bool verbose = std::getenv("EMU_MEMORY_FUZZ_VERBOSE") != nullptr;
    if (verbose) std::fprintf(stderr, "%s--- load: %s\n", ptx.c_str(), loaded.message.c_str());
    if (!loaded.ok()) return 0;  // a combination PTX does not allow (the parser said so)
    const std::uint64_t buffer = emulator.memory().allocate(256, "buffer");
    const std::uint64_t other = emulator.memory().allocate(256, "other buffer");
    cudalab::TraceOptions trace;
    trace.enabled = size % 4 == 1;  // traced launches keep writer shadows and events as well
    trace.auto_detail_blocks = 1;
    trace.max_events = 2048;
    cudalab::LaunchConfig config;
    config.grid = {2, 1, 1};
    config.block = {33, 1, 1};  // a partial second warp
    config.dynamic_shared_bytes = 64;
    const cudalab::LaunchResult r = emulator.launch(
        "k", "k", config, {cudalab::KernelArg::of(buffer), cudalab::KernelArg::of(other)}, trace);
    if (verbose) std::fprintf(stderr, "--- launch: %s\n", r.status.message.c_str());
    // A launch ends well or with a fault that says what happened; nothing else.
    if (!r.status.ok() && r.status.message.empty()) std::abort();
    return 0;
}
