// File utilities every layer may use (the GPU backend's peak cache, the progress store, the app's
// editor): writes that a crash or a concurrent reader never sees half done.
#pragma once

#include <string>

namespace cudalab {

// Writes `contents` to `path` atomically: a temporary file in the same folder, then rename().
// Creates the folder when missing. False, with the reason in `error`, when it cannot.
bool write_file_atomically(const std::string& path, const std::string& contents,
                           std::string* error = nullptr);

}  // namespace cudalab
