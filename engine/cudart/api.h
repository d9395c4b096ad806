// What every API translation unit shares: the call prologue (lock, timeline entry, the driver
// version check) and error bookkeeping as the CUDA runtime does it.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "cudart/state.h"
#include "cudart/work.h"

namespace cudalab::cudart {

// One API call in progress: holds the runtime's lock and, when the timeline is on, records the
// call on the host's row with its modelled duration.
class ApiCall {
  public:
    explicit ApiCall(const char* name);
    ~ApiCall();
    Runtime& rt;
    const char* name;

  private:
    std::lock_guard<RuntimeMutex> lock_;
    double start_;
    double wall_start_;
    bool outermost_;
};

// Remembers a failure as the thread's last error (cudaGetLastError) and returns it.
cudaError_t fail(cudaError_t e);
inline cudaError_t result(int e) { return e ? fail(cudaError_t(e)) : cudaSuccess; }

// The error a call that needs the device must return before doing anything: an emulated driver
// older than the runtime, or the current device's sticky error once it has been reported by a
// synchronising call. `synchronising`: this call is one (it reports a new sticky error).
cudaError_t device_gate(bool synchronising = false);

// Says once, on stderr, that a function is not implemented; returns cudaErrorNotSupported.
cudaError_t not_supported(const char* function, const char* detail = nullptr);

Stream* stream_or_null(cudaStream_t s);

// The driver API may be used: cuInit was called, or the runtime has initialised a device (as
// CUDA's runtime initialises the driver and makes the primary context current).
bool driver_ready();
// Whether the program has called the runtime yet (which initialises the driver).
bool runtime_started();

}  // namespace cudalab::cudart

#define CUDALAB_API(name)                                                                          \
    ::cudalab::cudart::ApiCall call_(name);                                                        \
    ::cudalab::cudart::Runtime& rt = call_.rt;                                                     \
    (void)rt
