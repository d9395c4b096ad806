#include "cudart/executor.h"

#include <array>

#include "cudart/work.h"

namespace cudalab::cudart {

namespace {
thread_local const QueuedWork* now_running = nullptr;
thread_local bool call_may_queue = false;
}  // namespace

bool Executor::queue_allowed() { return call_may_queue; }

QueueScope::QueueScope(bool allowed) : saved_(call_may_queue) { call_may_queue = allowed; }

QueueScope::~QueueScope() { call_may_queue = saved_; }

Executor& Executor::get() {
    static Executor* e = new Executor;  // never destroyed: stop() ends the thread
    return *e;
}

bool Executor::may_queue(std::string_view api) {
    // Calls that queue work, and calls that only make or ask about runtime objects (which the
    // device thread does not touch while a kernel runs): a launch followed by
    // cudaGetLastError() must not wait for the kernel.
    static constexpr std::array<std::string_view, 55> names = {
        "cudaLaunchKernel",
        "cudaLaunchKernel_ptsz",
        "__cudaLaunchKernel",
        "__cudaLaunchKernel_ptsz",
        "cudaLaunchKernelExC",
        "cudaLaunchKernelExC_ptsz",
        "cuLaunchKernel",
        "cuLaunchKernel_ptsz",
        "cuLaunchKernelEx",
        "cuLaunchKernelEx_ptsz",
        "__cudaPushCallConfiguration",
        "__cudaPopCallConfiguration",
        "cudaEventRecord",
        "cudaEventRecord_ptsz",
        "cudaEventRecordWithFlags",
        "cudaEventRecordWithFlags_ptsz",
        "cuEventRecord",
        "cuEventRecord_ptsz",
        "cuEventRecordWithFlags",
        "cuEventRecordWithFlags_ptsz",
        "cudaStreamWaitEvent",
        "cudaStreamWaitEvent_ptsz",
        "cuStreamWaitEvent",
        "cuStreamWaitEvent_ptsz",
        "cudaLaunchHostFunc",
        "cudaLaunchHostFunc_ptsz",
        "cudaStreamAddCallback",
        "cudaStreamAddCallback_ptsz",
        "cuLaunchHostFunc",
        "cudaMemcpyAsync",
        "cudaMemcpyAsync_ptsz",
        "cudaMemsetAsync",
        "cudaMemsetAsync_ptsz",
        "cuMemcpyHtoDAsync",
        "cuMemcpyDtoHAsync",
        "cuMemcpyDtoDAsync",
        "cuMemsetD8Async",
        "cuMemsetD32Async",
        "cudaGetLastError",
        "cudaPeekAtLastError",
        "cudaGetDevice",
        "cudaGetDeviceCount",
        "cudaGetDeviceProperties",
        "cudaDeviceGetAttribute",
        "cudaEventCreate",
        "cudaEventCreateWithFlags",
        "cudaStreamCreate",
        "cudaStreamCreateWithFlags",
        "cudaStreamCreateWithPriority",
        "cudaDriverGetVersion",
        "cudaRuntimeGetVersion",
        "cuCtxGetCurrent",
        "cuDeviceGet",
        "cuDeviceGetAttribute",
        "cuDeviceGetCount",
    };
    for (std::string_view n : names)
        if (n == api) return true;
    return false;
}

const QueuedWork* Executor::running() { return now_running; }

void Executor::push(QueuedWork w) {
    {
        std::lock_guard l(m_);
        if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
        queue_.push_back(std::move(w));
    }
    wake_.notify_one();
}

void Executor::loop() {
    Runtime& rt = Runtime::get();
    for (;;) {
        QueuedWork w;
        {
            std::unique_lock l(m_);
            wake_.wait(l, [&] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;
            w = std::move(queue_.front());
            queue_.pop_front();
            busy_ = true;
        }
        {
            std::lock_guard lock(rt.mutex);
            now_running = &w;
            rt.current_device() = w.device;
            Timeline::issuing = w.call;
            // A fault of earlier work has lost the context: later work on the device does not
            // run, as on a GPU (host functions and callbacks still do, told the error).
            const bool on_device = w.work.kind == Work::Kind::kernel ||
                                   w.work.kind == Work::Kind::copy ||
                                   w.work.kind == Work::Kind::set;
            if (!on_device || !rt.sticky(w.stream->device)) {
                if (const int e = run_work(w.stream, w.work, w.api, false))
                    // Checked before it was queued, so this is rare (the device ran out of
                    // something meanwhile); the call that issued it has returned already.
                    rt.warn(std::string(w.api) + " (queued at " + site_of(w.stack) +
                            ") failed when the device ran it: " + cudaGetErrorName(cudaError_t(e)));
            }
            for (std::uint8_t* to : w.expected) rt.ordering.forget_expected(to);
            now_running = nullptr;
        }
        {
            std::lock_guard l(m_);
            busy_ = false;
            if (queue_.empty()) idle_.notify_all();
        }
    }
}

void Executor::drain() {
    if (!enabled_ || now_running) return;
    Runtime& rt = Runtime::get();
    for (bool idle = false; !idle;) {
        {
            std::lock_guard l(m_);
            if (idle_locked()) break;
        }
        const int levels = rt.mutex.release_all();
        {
            std::unique_lock l(m_);
            idle_.wait(l, [&] { return idle_locked(); });
        }
        rt.mutex.reacquire(levels);
        // Another thread of the program may have queued more between the two: the device
        // thread cannot start it while this one holds the lock, but it may have started already.
        std::lock_guard l(m_);
        idle = idle_locked() || levels == 0;
    }
    std::lock_guard lock(rt.mutex);
    rt.say_held();
}

void Executor::stop() {
    drain();
    {
        std::lock_guard l(m_);
        stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

LetOthersIn::LetOthersIn() {
    if (now_running) levels_ = Runtime::get().mutex.release_all();
}

LetOthersIn::~LetOthersIn() {
    if (levels_) Runtime::get().mutex.reacquire(levels_);
}

}  // namespace cudalab::cudart
