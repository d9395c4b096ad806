#include "emulator/worker_pool.h"

#include <unistd.h>

#include <exception>
#include <utility>

namespace cudalab::emu {

WorkerPool& WorkerPool::shared() {
    static WorkerPool* pool = new WorkerPool;
    return *pool;
}

// Called with the lock held: runs job indices until none are left. An exception from a job (the
// emulator turns kernel faults into results, so this is std::bad_alloc and the like) is kept for
// run() to rethrow once every job has stopped: the jobs share the caller's stack frame.
void WorkerPool::take_jobs(std::unique_lock<std::mutex>& lock) {
    while (next_ < count_) {
        const unsigned index = next_++;
        ++running_;
        lock.unlock();
        std::exception_ptr error;
        try {
            (*job_)(index);
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        if (error && !error_) error_ = error;
        --running_;
    }
    if (running_ == 0) finished_.notify_all();
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_)
        if (t.joinable()) t.join();
}

std::size_t WorkerPool::threads() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return threads_.size();
}

// The generation a thread has seen is the one it was started in, not the one it finds when it
// first takes the lock: run() announces its launch (++generation_) right after starting the
// threads it needs, and a thread that read the generation only then would sleep through the very
// launch it was started for (every process's first launch ran on the calling thread alone).
void WorkerPool::serve(std::uint64_t seen) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return generation_ != seen || stopping_; });
        if (stopping_) return;
        seen = generation_;
        take_jobs(lock);
    }
}

void WorkerPool::run(unsigned n, const std::function<void(unsigned)>& job) {
    if (n <= 1) {
        if (n == 1) job(0);
        return;
    }
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock() || (owner_pid_ != 0 && owner_pid_ != getpid())) {
        std::vector<std::exception_ptr> errors(n);
        auto guarded = [&](unsigned w) {
            try {
                job(w);
            } catch (...) {
                errors[w] = std::current_exception();
            }
        };
        std::vector<std::thread> threads;
        for (unsigned w = 1; w < n; ++w) threads.emplace_back(guarded, w);
        guarded(0);
        for (auto& t : threads) t.join();
        for (auto& e : errors)
            if (e) std::rethrow_exception(e);
        return;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    owner_pid_ = getpid();
    while (threads_.size() + 1 < n)
        threads_.emplace_back([this, seen = generation_] { serve(seen); });
    job_ = &job;
    count_ = n;
    next_ = 0;
    error_ = nullptr;
    ++generation_;
    wake_.notify_all();
    take_jobs(lock);  // the caller works too
    finished_.wait(lock, [&] { return next_ >= count_ && running_ == 0; });
    job_ = nullptr;
    if (std::exception_ptr error = std::exchange(error_, nullptr)) std::rethrow_exception(error);
}

}  // namespace cudalab::emu
