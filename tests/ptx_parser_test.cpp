// The PTX front end on what NVRTC really emits: every kernel of tests/data/kernels compiled now,
// the committed corpus in tests/data/ptx, the shapes of PTX that only the CUDA headers' inline asm
// produces, and errors that name the PTX line instead of skipping what they do not know.
//
// The corpus is what tests/data/kernels/*.cu compile to with the options in manifest.txt. After
// changing a kernel, regenerate it with
//   CUDALAB_UPDATE_PTX_CORPUS=1 ./build/tests/cudalab_tests -tc="the PTX corpus matches the
//   kernels"
#include "compiler/compiler.h"
#include "emulator/emulator.h"
#include "emulator/state.h"  // the prepared program, which these white-box checks read
#include "ptx/parser.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "data/kernels/kernel_manifest.h"

using namespace cudalab;

namespace {

const std::string test_data = CUDALAB_TEST_DATA;

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Each kernel file once, with its NVRTC options.
std::map<std::string, std::string> kernel_files() {
    std::map<std::string, std::string> files;
    for (const auto& e : kernels::read_manifest(test_data + "/kernels/manifest.txt"))
        files[e.file] = e.options;
    return files;
}

std::shared_ptr<const compiler::CompileResult> compile_kernel_file(const std::string& file,
                                                                   const std::string& options) {
    static compiler::Compiler compiler;  // one NVRTC compile per file for the whole suite
    compiler::CompileOptions o;
    if (!options.empty()) o.extra_options.push_back(options);
    // A relative path, so that the corpus's .file lines do not depend on where the tree lives.
    return compiler.compile(read_file(test_data + "/kernels/" + file), "tests/data/kernels/" + file,
                            o);
}

const ptx::Function* find_function(const ptx::Module& m, const std::string& name) {
    return m.find(name);
}

int count_opcode(const ptx::Function& fn, ptx::Opcode op) {
    return int(std::count_if(fn.code.begin(), fn.code.end(),
                             [&](const ptx::Instruction& in) { return in.op == op; }));
}

}  // namespace

TEST_CASE("the PTX corpus matches the kernels") {
    const bool update = std::getenv("CUDALAB_UPDATE_PTX_CORPUS") != nullptr;
    for (const auto& [file, options] : kernel_files()) {
        CAPTURE(file);
        const auto result = compile_kernel_file(file, options);
        INFO(result->error_text());
        REQUIRE(result->ok);
        const std::string path = test_data + "/ptx/" + file.substr(0, file.rfind('.')) + ".ptx";
        if (update) std::ofstream(path, std::ios::binary) << result->ptx;
        const std::string committed = read_file(path);
        REQUIRE_MESSAGE(!committed.empty(),
                        "missing " << path << "; set CUDALAB_UPDATE_PTX_CORPUS=1 to write it");
        // Another NVRTC may word things differently; then the corpus still parses (next test) and
        // only needs regenerating. Compare the instructions' count as a sanity check.
        const auto a = ptx::parse(committed), b = ptx::parse(result->ptx);
        REQUIRE(a.ok);
        REQUIRE(b.ok);
        CHECK(a.module.functions.size() == b.module.functions.size());
    }
}

TEST_CASE("every PTX file of the corpus parses and loads into the emulator") {
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(test_data + "/ptx")) {
        if (entry.path().extension() != ".ptx") continue;
        ++files;
        CAPTURE(entry.path().filename().string());
        const std::string text = read_file(entry.path().string());
        const auto parsed = ptx::parse(text);
        INFO(parsed.error);
        REQUIRE(parsed.ok);
        CHECK(parsed.module.version == "9.0");
        CHECK(!parsed.module.functions.empty());
        for (const auto& fn : parsed.module.functions) {
            if (fn.is_extern || fn.name.rfind("__internal", 0) == 0)
                continue;  // the math library has no lines
            CAPTURE(fn.name);
            CHECK(!fn.code.empty());
            // -lineinfo: every instruction of the learner's code maps to a source line.
            const auto with_line =
                std::count_if(fn.code.begin(), fn.code.end(),
                              [](const ptx::Instruction& in) { return in.line > 0; });
            CHECK(with_line > 0);
        }
        emu::Emulator emulator;
        const Status loaded = emulator.load(text, entry.path().string());
        INFO(loaded.message);
        CHECK(loaded.ok());
    }
    CHECK(files >= 10);
}

TEST_CASE("kernels compiled now parse, with the constructs the emulator relies on") {
    std::map<std::string, ptx::Module> modules;
    for (const auto& [file, options] : kernel_files()) {
        const auto result = compile_kernel_file(file, options);
        REQUIRE(result->ok);
        auto parsed = ptx::parse(result->ptx);
        INFO(file << ": " << parsed.error);
        REQUIRE(parsed.ok);
        modules[file] = std::move(parsed.module);
    }
    SUBCASE("vector operands of ld, st and mov") {
        const ptx::Function* fn = find_function(modules["memory.cu"], "vectors");
        REQUIRE(fn);
        bool v4_load = false, v2_store = false;
        for (const auto& in : fn->code) {
            if (in.op == ptx::Opcode::ld && in.vector == 4 &&
                in.operands[0].kind == ptx::OperandKind::vector && in.operands[0].vec_count == 4)
                v4_load = true;
            if (in.op == ptx::Opcode::st && in.vector == 2 &&
                in.operands[1].kind == ptx::OperandKind::vector)
                v2_store = true;
        }
        CHECK(v4_load);
        CHECK(v2_store);
    }
    SUBCASE("carry chains: add.cc, addc, mad.lo.cc, madc") {
        const ptx::Function* fn = find_function(modules["int128.cu"], "int128_ops");
        REQUIRE(fn);
        CHECK(count_opcode(*fn, ptx::Opcode::addc) + count_opcode(*fn, ptx::Opcode::madc) > 0);
        const bool carry_out =
            std::any_of(fn->code.begin(), fn->code.end(), [](const ptx::Instruction& in) {
                return in.op == ptx::Opcode::add && (in.flags & ptx::f_cc);
            });
        CHECK(carry_out);
    }
    SUBCASE("registers declared inside inline asm scopes hide the outer ones") {
        // sin(double)'s range reduction declares `.reg .u32 %r0, %r1, %r2, %r3, ...` inside { };
        // after the scope closes, %r3 must name the function's own %r3 again.
        const ptx::Function* fn =
            find_function(modules["float.cu"], "__internal_trig_reduction_slowpathd");
        REQUIRE(fn);
        std::set<std::string> names(fn->register_names.begin(), fn->register_names.end());
        CHECK(names.size() < fn->register_names.size());  // the same name, two registers
        CHECK(fn->registers.at("%r3") < fn->registers.at("%r4"));
    }
    SUBCASE("half precision from cuda_fp16.h: f16x2, bf16, and temporaries named without %") {
        const ptx::Function* fn = find_function(modules["convert.cu"], "half_ops");
        REQUIRE(fn);
        std::set<ptx::Type> types;
        for (const auto& in : fn->code) types.insert(in.type);
        CHECK(types.count(ptx::Type::f16));
        CHECK(types.count(ptx::Type::f16x2));
        CHECK(types.count(ptx::Type::bf16));
    }
    SUBCASE("bar.red for __syncthreads_count/_and/_or") {
        const ptx::Function* fn = find_function(modules["control.cu"], "barrier_reductions");
        REQUIRE(fn);
        int red = 0;
        for (const auto& in : fn->code)
            red += (in.op == ptx::Opcode::bar || in.op == ptx::Opcode::barrier) &&
                   (in.flags & ptx::f_red);
        CHECK(red == 4);
    }
    SUBCASE("branches know where their lanes reconverge") {
        // After load, every conditional branch of the divergence kernel has a reconvergence point.
        emu::Emulator emulator;
        const auto result = compile_kernel_file("control.cu", "");
        REQUIRE(emulator.load(result->ptx, "control.cu").ok());
        const auto& functions = emulator.program()->functions;
        const auto it = std::find_if(functions.begin(), functions.end(),
                                     [](const auto& f) { return f.fn.name == "divergence"; });
        REQUIRE(it != functions.end());
        int conditional = 0;
        for (const auto& in : it->fn.code) {
            if (in.op != ptx::Opcode::bra || in.guard < 0) continue;
            ++conditional;
            CHECK(in.reconverge > 0);
            CHECK(in.reconverge <= int(it->fn.code.size()));
        }
        CHECK(conditional > 3);
    }
}

namespace {

const char* const tiny_kernel = R"(
.version 9.0
.target sm_90
.address_size 64

.visible .entry k(
	.param .u64 k_param_0
)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<3>;
	.loc	1 3 0
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	LINE_UNDER_TEST
	st.global.u32 	[%rd2], %r1;
	ret;
}
)";

std::string with_line(const std::string& line) {
    std::string text = tiny_kernel;
    text.replace(text.find("LINE_UNDER_TEST"), std::string("LINE_UNDER_TEST").size(), line);
    return text;
}

}  // namespace

TEST_CASE("malformed PTX is an error that names the PTX line, never skipped") {
    const auto ok = ptx::parse(with_line("add.s32 %r2, %r1, 1;"));
    REQUIRE_MESSAGE(ok.ok, ok.error);
    struct Case {
        const char* line;
        const char* message;
    };
    const Case cases[] = {
        {"add.s32 %r9, %r1, 1;", "undeclared register '%r9'"},
        {"bra.uni $L__nowhere;", "unknown label '$L__nowhere'"},
        {"ld.global.u32 %r2, [no_such_symbol];", "unknown symbol 'no_such_symbol'"},
        {"add.s32 %r2, %r1, 0xZZ;", "bad number '0xZZ'"},
        {"mov.b64 %rd1, {%r1, %r2;", "unbalanced '{'"},
        {"add-s32 %r2, %r1, 1;", "malformed instruction 'add-s32'"},
        {"@%p9 frobnicate.s32 %r2, %r1;", "undeclared register '%p9'"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.line);
        const auto r = ptx::parse(with_line(c.line));
        CHECK_FALSE(r.ok);
        CHECK(r.error_line == 16);  // the line of LINE_UNDER_TEST
        CHECK(r.error.rfind("ptx:16: ", 0) == 0);
        CHECK(r.error.find(c.message) != std::string::npos);
    }
    // The emulator's load() passes the error on.
    emu::Emulator emulator;
    const Status s = emulator.load(with_line("add.s32 %r2, %r1, 0xZZ;"), "k.cu");
    CHECK_FALSE(s.ok());
    CHECK(s.message.find("k.cu:3: error: the emulator cannot run this code: ptx:16: bad number") ==
          0);
}

TEST_CASE("an instruction the emulator does not know is recorded against its function") {
    struct Case {
        const char* line;
        const char* message;
    };
    const Case cases[] = {
        {"frobnicate.s32 %r2, %r1;", "ptx:16: unknown instruction 'frobnicate.s32'"},
        {"add.wobbly.s32 %r2, %r1, 1;", "ptx:16: unknown modifier '.wobbly' in 'add.wobbly.s32'"},
        {"ld.global.v8.u32 {%r1, %r2, %r3, %r1, %r2, %r3, %r1, %r2}, [%rd2];",
         "ptx:16: vectors of more than 4 elements are not supported"},
        // Tensor-core forms the emulator does not implement (docs/emulator.md, "Tensor cores").
        {"mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%r1,%r2,%r3,%r1,%r2,%r3,%r1,%r2}, "
         "{%r1,%r2}, {%r1,%r2}, {%r1,%r2,%r3,%r1,%r2,%r3,%r1,%r2};",
         "ptx:16: 'mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32': this shape or type is not "
         "implemented (docs/emulator.md, \"Tensor cores\", lists what is)"},
        {"ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%rd2];",
         "ptx:16: 'ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8': this shape or type is not "
         "implemented (docs/emulator.md, \"Tensor cores\", lists what is)"},
        // A copy multicast to a cluster's blocks is refused, not skipped as a cache hint.
        {"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
         "[%r1], [%rd2], 16, [%r2], %r3;",
         "ptx:16: multicast to the blocks of a cluster is not implemented by the emulator: "
         "'cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster'"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.line);
        const auto r = ptx::parse(with_line(c.line));
        REQUIRE_MESSAGE(r.ok, r.error);
        const ptx::Function& fn = r.module.functions[0];
        REQUIRE(fn.unsupported.size() == 1);
        CHECK(fn.unsupported[0].message == c.message);
        CHECK(fn.unsupported[0].ptx_line == 16);
        CHECK(fn.unsupported[0].file == 1);
        CHECK(fn.unsupported[0].line == 3);  // the .loc before it
        CHECK(fn.code.size() == 5);          // the others, without it
    }
    // The module loads; the kernel's launch fails with the load error's words, naming it.
    emu::Emulator emulator;
    REQUIRE(emulator.load(with_line("frobnicate.s32 %r2, %r1;"), "k.cu").ok());
    const LaunchResult r = emulator.launch("k", "k", LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0},
                                           {KernelArg::of(DevicePtr(0))}, TraceOptions{});
    CHECK(r.status.code == StatusCode::compile_error);
    CHECK(r.status.message.rfind("k.cu:3: error: the emulator cannot run this code in kernel 'k': "
                                 "ptx:16: unknown instruction 'frobnicate.s32'\n  try: ",
                                 0) == 0);
}

TEST_CASE("shapes of PTX that NVRTC emits for the CUDA headers and debug info") {
    SUBCASE("a .section is skipped whole") {
        std::string text = with_line("add.s32 %r2, %r1, 1;");
        text += "\t.file\t1 \"k.cu\"\n\t.section\t.debug_str\n\t{\n$L__info_string0:\n.b8 "
                "95,90,0\n\n\t}\n";
        const auto r = ptx::parse(text);
        INFO(r.error);
        CHECK(r.ok);
    }
    SUBCASE("'.reg.b32 f' with no space, and registers without %") {
        const auto r = ptx::parse(with_line(
            "{.reg.b32 f;\n .reg .pred __$temp3;\n mov.b32 f, %r1;\n setp.lt.u32 __$temp3, f, 4;\n"
            " selp.u32 %r2, 1, 0, __$temp3;}"));
        INFO(r.error);
        REQUIRE(r.ok);
        const auto& fn = r.module.functions[0];
        CHECK(fn.register_names.size() == 4 + 3 + 1 + 1);  // %r0..3, %rd0..2, f, __$temp3
        CHECK(fn.registers.count("f") == 0);               // gone with its scope
    }
    SUBCASE("a vector operand spans lines") {
        const auto r = ptx::parse(with_line("mov.b64 %rd1, {%r1,\n %r2};"));
        INFO(r.error);
        REQUIRE(r.ok);
    }
}

TEST_CASE("the parser survives malformed input") {
    // Truncations and corruptions of a real kernel: each is ok or an error, never a crash or hang.
    const std::string text = read_file(test_data + "/ptx/control.ptx");
    REQUIRE(!text.empty());
    int errors = 0;
    for (std::size_t cut = 0; cut < text.size(); cut += text.size() / 97 + 1) {
        const auto r = ptx::parse(text.substr(0, cut));
        errors += !r.ok;
        if (!r.ok) CHECK(!r.error.empty());
    }
    CHECK(errors > 0);
    std::string corrupt = text;
    for (std::size_t i = 7; i < corrupt.size(); i += 131) corrupt[i] = "{}[];,.%@!|<>\"0"[i % 15];
    const auto r = ptx::parse(corrupt);
    CHECK_FALSE(r.ok);
    const char* const odd[] = {"",
                               "{",
                               "}",
                               ".entry",
                               ".visible .entry k(",
                               ".entry k() { ret; ",
                               "\"",
                               "/*",
                               ".reg .b32 %r<99999999999>;",
                               ".entry k() { .reg .b32 %r<99999999999>; }",
                               ".global .align 4 .b8 g[4] = {1,2,3,4,5,6,7,8};",
                               ".entry k() { @%p bra L; }"};
    for (const char* t : odd) {
        CAPTURE(t);
        const auto p = ptx::parse(t);
        if (!p.ok) CHECK(!p.error.empty());
    }
}

TEST_CASE("a __managed__ variable's .attribute(.managed) is read, and kernels use the variable") {
    const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.global .attribute(.managed) .align 4 .u32 counter = 5;
.global .attribute(.managed) .attribute(.unified(0x1, 0x2)) .align 8 .b8 both[16];
.visible .entry bump()
{
    .reg .b32 %r<3>;
    ld.global.u32 %r1, [counter];
    add.s32 %r2, %r1, 1;
    st.global.u32 [counter], %r2;
    ret;
}
)";
    const auto parsed = ptx::parse(ptx);
    REQUIRE_MESSAGE(parsed.ok, parsed.error);
    REQUIRE(parsed.module.globals.size() == 2);
    const ptx::Symbol& counter = parsed.module.globals[0];
    CHECK(counter.name == "counter");
    CHECK(counter.is_managed);
    CHECK(counter.space == ptx::Space::global);
    CHECK(counter.align == 4);
    REQUIRE(counter.init.size() >= 4);
    CHECK(counter.init[0] == 5);
    CHECK(parsed.module.globals[1].name == "both");
    CHECK(parsed.module.globals[1].is_managed);
    CHECK(parsed.module.globals[1].size == 16);
    // Anything else in .attribute(...) is an error that says what, and managed is .global only.
    const auto unknown =
        ptx::parse(ptx.substr(0, ptx.find(".global")) + ".global .attribute(.shiny) .u32 x;\n");
    CHECK_FALSE(unknown.ok);
    CHECK(unknown.error.find("unknown variable attribute '.shiny'") != std::string::npos);
    const auto constant =
        ptx::parse(ptx.substr(0, ptx.find(".global")) + ".const .attribute(.managed) .u32 x;\n");
    CHECK_FALSE(constant.ok);
    CHECK(constant.error.find("for .global variables only") != std::string::npos);

    // With no managed memory to place it in, the emulator allocates it as device memory.
    emu::Emulator emulator;
    REQUIRE(emulator.load(ptx, "managed.cu").ok());
    const auto symbol = emulator.symbol("counter");
    REQUIRE(symbol);
    TraceOptions trace;
    trace.enabled = false;
    REQUIRE(
        emulator.launch("bump", "bump", LaunchConfig{Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0}, {}, trace)
            .status.ok());
    std::uint32_t value = 0;
    REQUIRE(emulator.memory().copy_out(&value, symbol->address, 4));
    CHECK(value == 6);

    // With a place for it: the memory given, initialised only when fresh.
    std::vector<std::uint8_t> host(64, 0xAB);
    emu::EmulatorOptions options;
    bool fresh_given = true;
    options.place_managed = [&](const std::string& name, std::uint64_t size, bool* fresh) {
        *fresh = fresh_given;
        return reinterpret_cast<std::uint64_t>(host.data()) + (name == "counter" ? 0 : 32) +
               0 * size;
    };
    auto memory = std::make_shared<emu::DeviceMemory>();
    REQUIRE(memory->map_host(host.data(), host.size(), "managed"));
    emu::Emulator placed(options, memory);
    REQUIRE(placed.load(ptx, "managed.cu").ok());
    CHECK(placed.symbol("counter")->address == reinterpret_cast<std::uint64_t>(host.data()));
    CHECK(host[0] == 5);  // the initialiser, written into the fresh memory
    REQUIRE(placed.launch("bump", "bump", LaunchConfig{Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0}, {}, trace)
                .status.ok());
    CHECK(host[0] == 6);  // the kernel's store, where the host sees it
    fresh_given = false;
    emu::Emulator again(options, memory);
    REQUIRE(again.load(ptx, "managed.cu").ok());
    CHECK(host[0] == 6);  // a second module's copy leaves the value alone
}

TEST_CASE("the tensor-core instructions' modifiers are decoded in any order") {
    const auto r = ptx::parse(
        with_line("wmma.load.a.sync.aligned.col.m32n8k16.shared.f16 {%r1, %r2, %r3, %r1, %r2, "
                  "%r3, %r1, %r2}, [%rd2], %r1;\n"
                  "ldmatrix.sync.aligned.x4.m8n8.trans.shared::cta.b16 {%r1, %r2, %r3, %r0}, "
                  "[%r1];\n"
                  "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 {%r0, %r1, %r2, "
                  "%r3}, {%r1, %r2, %r3, %r0}, {%r1, %r2}, {%r0, %r1, %r2, %r3};"));
    REQUIRE_MESSAGE(r.ok, r.error);
    const ptx::Function& fn = r.module.functions[0];
    REQUIRE(fn.unsupported.empty());
    const ptx::Instruction& load = fn.code[3];
    CHECK(load.op == ptx::Opcode::wmma_load);
    CHECK(load.matrix.matrix == 'a');
    CHECK(load.matrix.a_col);
    CHECK((load.matrix.m == 32 && load.matrix.n == 8 && load.matrix.k == 16));
    CHECK(load.space == ptx::Space::shared);
    CHECK(load.operands[0].vec_count == 8);
    const ptx::Instruction& rows = fn.code[4];
    CHECK(rows.op == ptx::Opcode::ldmatrix);
    CHECK(rows.matrix.count == 4);
    CHECK(rows.matrix.trans);
    CHECK(rows.space == ptx::Space::shared);
    const ptx::Instruction& mma = fn.code[5];
    CHECK(mma.op == ptx::Opcode::mma);
    CHECK((mma.matrix.d == ptx::Type::s32 && mma.matrix.a == ptx::Type::u8 &&
           mma.matrix.b == ptx::Type::s8 && mma.matrix.c == ptx::Type::s32));
    CHECK(mma.matrix.b_col);
    CHECK_FALSE(mma.matrix.a_col);
    CHECK((mma.flags & ptx::f_satfinite) != 0);
}
