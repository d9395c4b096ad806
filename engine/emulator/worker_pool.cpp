#include "emulator/worker_pool.h"

#include <unistd.h>

namespace cudalab::emu {

WorkerPool& WorkerPool::shared() {
    static WorkerPool* pool = new WorkerPool;
    return *pool;
}

// Called with the lock held: runs job indices until none are left.
void WorkerPool::take_jobs(std::unique_lock<std::mutex>& lock) {
    while (next_ < count_) {
        const unsigned index = next_++;
        ++running_;
        lock.unlock();
        (*job_)(index);
        lock.lock();
        --running_;
    }
    if (running_ == 0) finished_.notify_all();
}

void WorkerPool::serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    std::uint64_t seen = generation_;
    for (;;) {
        wake_.wait(lock, [&] { return generation_ != seen; });
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
        std::vector<std::thread> threads;
        for (unsigned w = 1; w < n; ++w) threads.emplace_back(job, w);
        job(0);
        for (auto& t : threads) t.join();
        return;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    owner_pid_ = getpid();
    while (threads_.size() + 1 < n) threads_.emplace_back([this] { serve(); });
    job_ = &job;
    count_ = n;
    next_ = 1;  // index 0 is the caller's
    ++generation_;
    wake_.notify_all();
    lock.unlock();
    job(0);
    lock.lock();
    take_jobs(lock);
    finished_.wait(lock, [&] { return next_ >= count_ && running_ == 0; });
    job_ = nullptr;
}

}  // namespace cudalab::emu
