// The compiler service as a learner meets it: kernels found by the names they wrote, the resources
// ptxas reports, kernel files that nvcc accepts, errors at file:line:column, and the cache.
#include "compiler/compiler.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

using namespace cudalab::compiler;

namespace {

bool has_error(const CompileResult& result) {
    return std::any_of(result.diagnostics.begin(), result.diagnostics.end(),
                       [](const Diagnostic& d) { return d.severity == cudalab::Severity::error; });
}

const char* const vector_add = R"(
__global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void __launch_bounds__(128) scale_c(float* x, float s) {
    x[threadIdx.x] *= s;
}
template <typename T> __global__ void scale(T* x, T s) { x[threadIdx.x] *= s; }
template __global__ void scale<float>(float*, float);
)";

}  // namespace

TEST_CASE("kernels are found by their source name, C++-mangled or extern \"C\"") {
    Compiler compiler;
    const auto result = compiler.compile(vector_add, "vadd.cu");
    INFO(result->error_text());
    REQUIRE(result->ok);
    CHECK(result->diagnostics.empty());  // ptxas' info lines are not diagnostics
    CHECK(result->mangled_name("vadd") == "_Z4vaddPKfS0_Pfi");
    CHECK(result->mangled_name("scale_c") == "scale_c");
    CHECK(result->mangled_name("scale<float>") == "_Z5scaleIfEvPT_S0_");
    CHECK(result->mangled_name("scale") == "_Z5scaleIfEvPT_S0_");  // the one instantiation
    CHECK(result->mangled_name("_Z4vaddPKfS0_Pfi") == "_Z4vaddPKfS0_Pfi");
    CHECK(result->mangled_name("missing").empty());
    REQUIRE(result->kernel("vadd") != nullptr);
    CHECK(result->kernel("vadd")->source_name == "vadd");
    CHECK(result->ptx.find(".entry _Z4vaddPKfS0_Pfi") != std::string::npos);
    CHECK(result->ptx.find(".loc") != std::string::npos);  // -lineinfo
}

TEST_CASE("source_name_of strips the parameter list and a template's return type") {
    CHECK(source_name_of("_Z4vaddPKfS0_Pfi") == "vadd");
    CHECK(source_name_of("_Z3addPfi") == "add");
    CHECK(source_name_of("_Z5scaleIfEvPT_") == "scale<float>");
    CHECK(source_name_of("_ZN7lessons6reduceEPKfPfi") == "lessons::reduce");
    CHECK(source_name_of("_ZN12_GLOBAL__N_16kernelEPf") == "(anonymous namespace)::kernel");
    CHECK(source_name_of("scale_c") == "scale_c");
    CHECK(source_name_of("_Znot_valid") == "_Znot_valid");
    CHECK(source_name_of("") == "");
}

TEST_CASE("ptxas resource usage per kernel") {
    Compiler compiler;
    const auto result = compiler.compile(R"(
__global__ void reverse_block(float* x) {
    __shared__ float tile[256];
    tile[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = tile[255 - threadIdx.x];
}
extern "C" __global__ void __launch_bounds__(128) bounded(float* x) { x[threadIdx.x] = 1.0f; }
)",
                                         "resources.cu");
    INFO(result->error_text());
    REQUIRE(result->ok);
    const KernelResources* reverse = result->kernel("reverse_block");
    REQUIRE(reverse != nullptr);
    CHECK(reverse->registers > 0);
    CHECK(reverse->static_shared_bytes == 1024);
    CHECK(reverse->barriers == 1);
    CHECK(reverse->spill_store_bytes == 0);
    CHECK(reverse->max_threads_per_block == 0);
    const KernelResources* bounded = result->kernel("bounded");
    REQUIRE(bounded != nullptr);
    CHECK(bounded->registers > 0);
    CHECK(bounded->static_shared_bytes == 0);
    CHECK(bounded->barriers == 0);
    CHECK(bounded->max_threads_per_block == 128);
}

TEST_CASE("a kernel file that nvcc accepts compiles: standard and CUDA headers resolve") {
    Compiler compiler;
    const auto result = compiler.compile(R"(
#include <cstdio>
#include <cstdint>
#include <cmath>
#include <climits>
#include <cfloat>
#include <cassert>
#include <limits>
#include <type_traits>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
static_assert(sizeof(uint32_t) == 4 && sizeof(int64_t) == 8, "fixed-width types");
static_assert(std::is_same<std::uint8_t, unsigned char>::value, "std:: spellings");
static_assert(std::numeric_limits<int>::max() == INT_MAX, "limits agree");
__global__ void norms(const float* x, float* out, int64_t n) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    assert(x != nullptr);
    float v = sqrtf(fabsf(x[i])) + std::sqrt(x[i] * x[i]) + std::min(x[i], FLT_MAX);
    if (i == 0) printf("n=%lld first=%f\n", (long long)n, v);
    out[i] = __half2float(__float2half(v)) + static_cast<float>(M_PI) * 0.0f - INFINITY * 0.0f;
}
)",
                                         "headers.cu");
    INFO(result->error_text());
    CHECK(result->ok);
    CHECK_FALSE(has_error(*result));
    CHECK(result->kernel("norms") != nullptr);
}

TEST_CASE("std:: math and min/max work with no #include, as under nvcc") {
    Compiler compiler;
    const auto result = compiler.compile(
        "__global__ void k(float* x) { x[0] = std::sqrt(x[1]) + std::max(x[2], 0.0f); }\n",
        "bare.cu");
    INFO(result->error_text());
    CHECK(result->ok);
}

TEST_CASE("a syntax error names the learner's file, line and column") {
    Compiler compiler;
    const auto result = compiler.compile("__global__ void k(float* x) {\n"
                                         "    int i = threadIdx.x;\n"
                                         "    x[i] = y + 1.0f;\n"
                                         "}\n",
                                         "ex.cu");
    CHECK_FALSE(result->ok);
    REQUIRE(result->diagnostics.size() == 1);
    const Diagnostic& d = result->diagnostics.front();
    CHECK(d.file == "ex.cu");
    CHECK(d.line == 3);
    CHECK(d.column == 12);  // the 'y'
    CHECK(d.severity == cudalab::Severity::error);
    CHECK(d.message == "identifier \"y\" is undefined");
    CHECK(d.context.find("x[i] = y + 1.0f;") != std::string::npos);
    CHECK(d.context.find('^') != std::string::npos);
    const std::string text = result->error_text();
    CHECK(text.find("ex.cu:3:12: error: identifier \"y\" is undefined") != std::string::npos);
}

TEST_CASE("columns count a tab as one byte, and an undefined type in a later line is found") {
    Compiler compiler;
    const auto result = compiler.compile(
        "__global__ void k(float* x) {\n\tx[0] = 1;\n\tuint32_t n = 0;\n}\n", "tabs.cu");
    REQUIRE_FALSE(result->diagnostics.empty());
    CHECK(result->diagnostics.front().line == 3);
    CHECK(result->diagnostics.front().column == 2);
    CHECK(result->error_text().find("tabs.cu:3:2: error:") != std::string::npos);
}

TEST_CASE("warnings are reported and do not fail the compile") {
    Compiler compiler;
    const auto result = compiler.compile(
        "__global__ void k(float* x) {\n  int unused = 3;\n  x[0] = 1;\n}\n", "warn.cu");
    CHECK(result->ok);
    REQUIRE(result->diagnostics.size() == 1);
    CHECK(result->diagnostics[0].severity == cudalab::Severity::warning);
    CHECK(result->diagnostics[0].line == 2);
    CHECK(result->diagnostics[0].column == 7);
    CHECK(result->error_text().empty());
}

TEST_CASE("a missing header is a catastrophic error reported as an error at its #include") {
    Compiler compiler;
    const auto result =
        compiler.compile("#include <no_such_header.h>\n__global__ void k() {}\n", "inc.cu");
    CHECK_FALSE(result->ok);
    REQUIRE(result->diagnostics.size() == 1);
    CHECK(result->diagnostics[0].severity == cudalab::Severity::error);
    CHECK(result->diagnostics[0].line == 1);
    CHECK(result->diagnostics[0].message.find("no_such_header.h") != std::string::npos);
}

TEST_CASE("too much static shared memory fails with a reason, though ptxas prints none") {
    Compiler compiler;
    const auto result =
        compiler.compile("__global__ void big(float* x) {\n"
                         "  __shared__ float t[20000];\n"
                         "  t[threadIdx.x] = 1; __syncthreads(); x[0] = t[(int)x[1]];\n}\n",
                         "big.cu");
    CHECK_FALSE(result->ok);
    REQUIRE(has_error(*result));
    CHECK(result->error_text().find("'big'") != std::string::npos);
    CHECK(result->error_text().find("80000 bytes") != std::string::npos);
}

TEST_CASE("an unknown architecture is an error that lists the supported ones") {
    Compiler compiler;
    CompileOptions options;
    options.arch = "sm_10";
    const auto result = compiler.compile("__global__ void k() {}\n", "arch.cu", options);
    CHECK_FALSE(result->ok);
    REQUIRE(has_error(*result));
    CHECK(result->error_text().find("sm_90") != std::string::npos);
}

TEST_CASE("the cache returns the same result for the same source, path and options") {
    Compiler compiler;
    const std::string source = "__global__ void k(float* x) { x[0] = 2.0f; }\n";
    const auto first = compiler.compile(source, "cache.cu");
    REQUIRE(first->ok);
    CHECK_FALSE(first->from_cache);
    CHECK(first->seconds > 0);
    const auto second = compiler.compile(source, "cache.cu");
    CHECK(second->from_cache);
    CHECK(second->seconds == 0);
    CHECK(second->ptx == first->ptx);
    CHECK(compiler.compile(source, "cache.cu") == second);  // the very same object

    CHECK_FALSE(compiler.compile(source, "other.cu")->from_cache);
    CompileOptions no_lineinfo;
    no_lineinfo.lineinfo = false;
    CHECK_FALSE(compiler.compile(source, "cache.cu", no_lineinfo)->from_cache);
    CHECK_FALSE(compiler.compile(source + " ", "cache.cu")->from_cache);
}

TEST_CASE("concurrent compiles of the same source all succeed") {
    Compiler compiler;
    const std::string source = "__global__ void k(int* x) { atomicAdd(x, 1); }\n";
    std::vector<std::shared_ptr<const CompileResult>> results(4);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < results.size(); ++i) {
        threads.emplace_back([&, i] { results[i] = compiler.compile(source, "atomic.cu"); });
    }
    for (std::thread& thread : threads) thread.join();
    for (const auto& result : results) {
        REQUIRE(result != nullptr);
        CHECK(result->ok);
        CHECK(result->mangled_name("k") == "_Z1kPi");
    }
}

TEST_CASE("compile_file: a missing file is a failed result naming the file") {
    Compiler compiler;
    const std::string path = "/nonexistent/cudalab/missing.cu";
    const auto result = compiler.compile_file(path);
    CHECK_FALSE(result->ok);
    REQUIRE(result->diagnostics.size() == 1);
    CHECK(result->diagnostics[0].file == path);
    CHECK(result->diagnostics[0].severity == cudalab::Severity::error);
    CHECK(result->diagnostics[0].message.find("cannot read") != std::string::npos);
    CHECK(result->error_text().find(path) != std::string::npos);
}

TEST_CASE("untrusted input does not crash the service") {
    Compiler compiler;
    std::string garbage;
    for (int i = 0; i < 4096; ++i) garbage += static_cast<char>(1 + (i * 7919) % 255);
    const auto noise = compiler.compile(garbage, "noise.cu");
    CHECK_FALSE(noise->ok);
    CHECK(has_error(*noise));

    const auto nul = compiler.compile(std::string("__global__ void k() {}\n\0x", 25), "nul.cu");
    CHECK_FALSE(nul->ok);
    REQUIRE(nul->diagnostics.size() == 1);
    CHECK(nul->diagnostics[0].line == 2);

    const auto empty = compiler.compile("", "");
    CHECK(empty->ok);
    CHECK(empty->kernels.empty());
}

TEST_CASE("nvrtc_version names NVRTC and its version") {
    Compiler compiler;
    CHECK(compiler.nvrtc_version().rfind("NVRTC ", 0) == 0);
    CHECK(compiler.nvrtc_version().find('.') != std::string::npos);
}
