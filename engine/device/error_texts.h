// The CUDA runtime's and driver's error names and descriptions, as an H200 with CUDA 13.0 gives
// them (tests/agreement/error_strings*). Both halves of the emulated runtime use them: the device
// process for its messages, the program's library to answer cudaGetErrorString and friends
// itself (they need no device, and work in a child after fork).
#pragma once

namespace cudalab::device {

// cudaGetErrorName / cudaGetErrorString: "unrecognized error code" for a code CUDA does not know.
const char* runtime_error_name(int code);
const char* runtime_error_string(int code);
// cuGetErrorName / cuGetErrorString: null for a code the driver does not know.
const char* driver_error_name(int code);
const char* driver_error_string(int code);

}  // namespace cudalab::device
