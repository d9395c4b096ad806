// `cudalab run` and `cudalab build`: whole CUDA programs (host code, kernels, main). Contract (keep
// stable; docs/programs.md describes it for learners):
//   cudalab run [OPTIONS] PROG.cu [MORE.cu|.cpp|.o ...] [NVCC OPTIONS] [-- PROGRAM ARGS...]
//   cudalab run [OPTIONS] --exe ./prog [PROGRAM ARGS...]
//   cudalab build [-o FILE] [NVCC OPTIONS] PROG.cu [MORE ...]
// Exit: the program's own code; 2 could not build or start (compile error, bad usage, no nvcc,
// backend unavailable); 121 task limit, 122 CPU-time limit, 123 output limit, 124 wall-clock
// limit, 125 memory limit; 128+N killed by signal N (139: segfault).
// The arguments are parsed here rather than by CLI11: nvcc's options (-I dir, -Xcompiler ..., -O3)
// pass through untouched, which CLI11's model of options does not allow.
#pragma once

namespace cli {

// argv[1] is "run" or "build".
int run_program_command(int argc, char** argv);

}  // namespace cli
