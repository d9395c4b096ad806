// `cudalab exec`: run any kernel file without writing host code (the playground, and the base of
// differential tests against a GPU). Contract (keep stable):
//   cudalab exec FILE.cu --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] [--shared BYTES]
//       [--arg SPEC]... [--backend emu|gpu|auto] [--out DIR] [--json] [--trace FILE]
//   SPEC: scalar TYPE:VALUE or buffer TYPE[N]:INIT; TYPE in i32 u32 i64 u64 f32 f64;
//   INIT: zeros | iota | file:PATH (raw little-endian). With --out, buffer argument K's final
//   contents go to DIR/argK.bin. Exit 0 ran; 1 the kernel faulted (or reached a limit); 2 compile
//   error or bad usage (every number is range-checked, files and output paths before the run).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/strict_parse.h"

namespace cli {

struct ExecArgs {
    std::string file;
    std::string kernel;
    std::string grid = "1";
    std::string block = "1";
    std::string shared = "0";
    std::string cluster;  // thread block cluster X[,Y[,Z]] (sm_90); empty: none
    std::vector<std::string> args;
    std::string backend = "auto";
    std::string out_dir;
    bool json = false;
    std::string trace_file;
    LimitFlags limits;
    // --its: independent thread scheduling (a divergent branch's paths take turns in an order
    // drawn from --its-seed).
    bool its = false;
    std::uint64_t its_seed = 1;
};

// The --budget, --memory-limit, ... flags on a command (check and exec share them).
void add_limit_options(CLI::App* cmd, LimitFlags& flags, bool per_check);

void add_exec_options(CLI::App* cmd, ExecArgs& a);
int run_exec(const ExecArgs& a);

}  // namespace cli
