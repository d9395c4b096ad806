// Runtime: the host-side API a lesson is written against, over any Backend (made by
// backends/factory.h, which is not part of this interface module). It reads like the CUDA
// runtime on purpose (allocate, copy, launch, copy back), so the lesson's host code teaches the
// host <-> device flow of lesson 02.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/backend.h"

namespace cudalab {

template <class T> struct DeviceBuffer {
    DevicePtr ptr = 0;
    std::size_t count = 0;
    std::size_t bytes() const { return count * sizeof(T); }
};

class Runtime {
  public:
    explicit Runtime(std::unique_ptr<Backend> backend);
    ~Runtime();
    Backend& backend() { return *backend_; }
    const Backend& backend() const { return *backend_; }

    // Frees every allocation made through this runtime.
    void release_all();

    template <class T> Status allocate(std::size_t count, DeviceBuffer<T>* out) {
        out->count = count;
        Status s = backend_->allocate(count * sizeof(T), &out->ptr);
        if (s.ok()) allocations_.push_back(out->ptr);
        return s;
    }
    template <class T> Status upload(const DeviceBuffer<T>& dst, const std::vector<T>& src) {
        return backend_->copy_to_device(dst.ptr, src.data(),
                                        std::min(dst.bytes(), src.size() * sizeof(T)));
    }
    template <class T> Status download(std::vector<T>* dst, const DeviceBuffer<T>& src) {
        dst->resize(src.count);
        return backend_->copy_to_host(dst->data(), src.ptr, src.bytes());
    }

    // launch("vector_add", config, trace_options, a, b, c, n): buffers pass their device address,
    // scalars their bytes, in order.
    template <class... Args>
    LaunchResult launch(const std::string& kernel, const LaunchConfig& config,
                        const TraceOptions& trace, const Args&... args) {
        std::vector<KernelArg> packed;
        (packed.push_back(pack(args)), ...);
        return backend_->launch(kernel, config, packed, trace);
    }

    template <class T> static KernelArg pack(const DeviceBuffer<T>& b) {
        return KernelArg::of(b.ptr);
    }
    template <class T> static KernelArg pack(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>, "kernel arguments are plain values");
        return KernelArg::of(v);
    }

  private:
    std::unique_ptr<Backend> backend_;
    std::vector<DevicePtr> allocations_;
};

}  // namespace cudalab
