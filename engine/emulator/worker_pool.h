// Threads that run a launch's blocks. They are started once per process and then wait between
// launches: starting fresh threads for every launch cost about 40 us, a twentieth of the run of a
// small kernel such as the benchmark's SAXPY.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cudalab::emu {

class WorkerPool {
  public:
    // The process's pool (never destroyed: its idle threads end with the process).
    static WorkerPool& shared();
    // A pool of its own (the tests make fresh ones); its threads end when it is destroyed.
    WorkerPool() = default;
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    // Runs job(0) .. job(n - 1) and returns when all have finished; the calling thread runs jobs
    // too. If a job throws, the first exception is rethrown here after every job has stopped. A
    // second launch arriving while the pool is busy, or a forked child (which has none of the
    // parent's threads), gets threads of its own for the call instead.
    void run(unsigned n, const std::function<void(unsigned)>& job);

    // Threads the pool has started so far (besides the callers of run()).
    std::size_t threads() const;

  private:
    // `seen`: the generation the thread was started in, before run() announced the launch it was
    // started for; the thread serves every generation after it.
    void serve(std::uint64_t seen);
    void take_jobs(std::unique_lock<std::mutex>& lock);

    std::mutex busy_;  // held for a whole run()
    mutable std::mutex mutex_;
    std::condition_variable wake_, finished_;
    std::vector<std::thread> threads_;
    const std::function<void(unsigned)>* job_ = nullptr;
    unsigned next_ = 0, count_ = 0, running_ = 0;
    std::uint64_t generation_ = 0;
    std::exception_ptr error_;
    int owner_pid_ = 0;
    bool stopping_ = false;
};

}  // namespace cudalab::emu
