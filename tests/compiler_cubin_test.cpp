// The cubin reader agrees with ptxas's own report on every lesson kernel, so that when NVRTC's log
// lacks the report (compiler/cubin_resources.h) the figures the lessons use stay the same.
#include <doctest/doctest.h>

#include <algorithm>
#include <iterator>

#include <nvrtc.h>

#include "compiler/compiler.h"
#include "compiler/cubin_resources.h"
#include "lessons/course.h"
#include "support.h"

using namespace cudalab;

TEST_CASE("registers, shared memory, barriers and frame from the cubin equal ptxas's report") {
    lessons::Course course;
    REQUIRE(lessons::load_course(lessons::find_course_root(), &course).ok());
    compiler::Compiler compiler;
    std::vector<std::string> files;
    for (const auto& l : course.lessons)
        if (!l.is_program())
            files.push_back(l.solution_path);  // a program lesson's solution is built by nvcc
    files.push_back(course.root + "/lessons/12-occupancy/wrong/spills.cu");
    int compared = 0;
    for (const auto& path : files) {
        CAPTURE(path);
        auto reported = compiler.compile_file(path);
        REQUIRE(reported->ok);
        // The same source through NVRTC directly, keeping the cubin.
        std::string source = test_support::read_file(path);
        nvrtcProgram p;
        REQUIRE(nvrtcCreateProgram(&p, source.c_str(), "k.cu", 0, nullptr, nullptr) ==
                NVRTC_SUCCESS);
        const char* options[] = {"--gpu-architecture=sm_90", "-std=c++17"};
        if (nvrtcCompileProgram(p, 2, options) != NVRTC_SUCCESS) {  // a file that needs the shims
            nvrtcDestroyProgram(&p);
            continue;
        }
        std::size_t size = 0;
        nvrtcGetCUBINSize(p, &size);
        std::vector<char> cubin(size);
        nvrtcGetCUBIN(p, cubin.data());
        nvrtcDestroyProgram(&p);
        auto from_cubin = compiler::cubin_resources(cubin, 90);
        for (const auto& k : reported->kernels) {
            CAPTURE(k.source_name);
            REQUIRE(from_cubin.count(k.mangled_name));
            const auto& c = from_cubin.at(k.mangled_name);
            CHECK(c.registers == k.registers);
            CHECK(c.static_shared_bytes == k.static_shared_bytes);
            CHECK(c.barriers == k.barriers);
            CHECK(c.stack_frame_bytes == k.stack_frame_bytes);
            ++compared;
        }
    }
    MESSAGE("compared " << compared << " kernels");
    CHECK(compared >= 12);
}

TEST_CASE("the cubin reader refuses what is not a cubin") {
    CHECK(compiler::cubin_resources({}, 90).empty());
    CHECK(compiler::cubin_resources(std::vector<char>(200, 'x'), 90).empty());
    std::vector<char> truncated(70, 0);  // an ELF64 header cut short: magic, class, data, version
    const char start[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    std::copy(std::begin(start), std::end(start), truncated.begin());
    CHECK(compiler::cubin_resources(truncated, 90).empty());
}
