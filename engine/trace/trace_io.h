// Saving and loading a trace (`cudalab exec --trace FILE`, then `cudalab gui --trace FILE`).
// A small binary format: magic "CUDALAB-TRACE", a version, then each table as a count and its
// records. Little-endian, as written by the host that ran the kernel.
#pragma once

#include <string>

#include "trace/trace.h"

namespace cudalab {

bool write_trace(const Trace& trace, const std::string& path, std::string* error);
bool read_trace(const std::string& path, Trace* trace, std::string* error);

}  // namespace cudalab
