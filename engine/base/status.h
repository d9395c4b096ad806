// Status: how an operation that can fail for a reason outside cudalab (the learner's kernel, the
// driver, a file) reports it. Library code returns these; it never exits.
#pragma once

#include <string>

namespace cudalab {

enum class StatusCode {
    ok,
    compile_error,        // the learner's code did not compile
    kernel_fault,         // the kernel faulted (bad address, deadlock, budget, ...)
    bad_usage,            // the caller asked for something impossible (unknown kernel, bad args)
    backend_unavailable,  // e.g. no GPU driver
    io_error,
};

struct Status {
    StatusCode code = StatusCode::ok;
    std::string message;

    bool ok() const { return code == StatusCode::ok; }
    static Status success() { return {}; }
    static Status error(StatusCode code, std::string message) { return {code, std::move(message)}; }
};

}  // namespace cudalab
