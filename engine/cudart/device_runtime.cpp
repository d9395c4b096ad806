// Definitions of device-runtime functions, given to a module in PTX in place of the declaration
// nvcc leaves for the linker (on a GPU, cudadevrt or the driver provides them).
#include "cudart/device_runtime.h"

#include <regex>

namespace cudalab::cudart::device_runtime {

std::string prepare(const std::string& ptx) {
    if (ptx.find("cudaGraphSetConditional") == std::string::npos) return ptx;
    // nvcc declares it as `.extern .func cudaGraphSetConditional(.param .b64 P0, .param .b32 P1);`
    static const std::regex declaration(
        R"(\.extern\s+\.func\s+cudaGraphSetConditional\s*\(\s*\.param\s+\.b64\s+(\w+)\s*,\s*\.param\s+\.b32\s+(\w+)\s*\)\s*;)");
    return std::regex_replace(ptx, declaration,
                              ".func cudaGraphSetConditional(.param .b64 $1, .param .b32 $2)\n"
                              "{\n"
                              "\t.reg .b64 %cudalab_handle;\n"
                              "\t.reg .b32 %cudalab_value;\n"
                              "\tld.param.b64 %cudalab_handle, [$1];\n"
                              "\tld.param.b32 %cudalab_value, [$2];\n"
                              "\tst.global.b32 [%cudalab_handle], %cudalab_value;\n"
                              "\tret;\n"
                              "}");
}

}  // namespace cudalab::cudart::device_runtime
