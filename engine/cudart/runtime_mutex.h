// The runtime's lock: recursive, like std::recursive_mutex, and able to let go of every level
// its owner holds while that thread waits for the device thread (executor.h), which needs the
// lock to finish what it runs.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace cudalab::cudart {

class RuntimeMutex {
  public:
    void lock() {
        const std::thread::id me = std::this_thread::get_id();
        std::unique_lock l(m_);
        if (owner_ == me) {
            ++depth_;
            return;
        }
        free_.wait(l, [&] { return depth_ == 0; });
        owner_ = me;
        depth_ = 1;
    }

    bool try_lock() {
        const std::thread::id me = std::this_thread::get_id();
        std::lock_guard l(m_);
        if (owner_ == me) {
            ++depth_;
            return true;
        }
        if (depth_ != 0) return false;
        owner_ = me;
        depth_ = 1;
        return true;
    }

    void unlock() {
        {
            std::lock_guard l(m_);
            if (--depth_ > 0) return;
            owner_ = std::thread::id();
        }
        free_.notify_one();
    }

    // Lets go of every level this thread holds and says how many (0: it held none).
    int release_all() {
        int levels = 0;
        {
            std::lock_guard l(m_);
            if (owner_ != std::this_thread::get_id()) return 0;
            levels = depth_;
            depth_ = 0;
            owner_ = std::thread::id();
        }
        free_.notify_one();
        return levels;
    }

    // Takes back what release_all() let go of.
    void reacquire(int levels) {
        if (levels <= 0) return;
        std::unique_lock l(m_);
        free_.wait(l, [&] { return depth_ == 0; });
        owner_ = std::this_thread::get_id();
        depth_ = levels;
    }

  private:
    std::mutex m_;
    std::condition_variable free_;
    std::thread::id owner_;
    int depth_ = 0;
};

}  // namespace cudalab::cudart
