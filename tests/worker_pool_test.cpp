// The threads a launch's blocks run on (engine/emulator/worker_pool.h).
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "emulator/worker_pool.h"

using cudalab::emu::WorkerPool;

TEST_CASE("the worker pool runs every job index exactly once, launch after launch") {
    for (unsigned n : {1u, 2u, 3u, 8u, 2u}) {
        std::vector<std::atomic<int>> runs(n);
        WorkerPool::shared().run(n, [&](unsigned i) { runs[i].fetch_add(1); });
        for (unsigned i = 0; i < n; ++i) CHECK(runs[i].load() == 1);
    }
}

TEST_CASE("a job's exception reaches the caller after every other job has finished") {
    std::atomic<int> finished{0};
    auto job = [&](unsigned i) {
        if (i == 1) throw std::runtime_error("job 1 failed");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        finished.fetch_add(1);
    };
    CHECK_THROWS_WITH_AS(WorkerPool::shared().run(4, job), "job 1 failed", std::runtime_error);
    CHECK(finished.load() == 3);  // nothing still running on the caller's (gone) stack frame
    // The pool still works afterwards.
    std::atomic<int> sum{0};
    WorkerPool::shared().run(3, [&](unsigned i) { sum.fetch_add(int(i) + 1); });
    CHECK(sum.load() == 6);
}

TEST_CASE("two launches at once from different threads both complete") {
    std::atomic<int> a{0}, b{0};
    std::thread other([&] {
        WorkerPool::shared().run(4, [&](unsigned) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            a.fetch_add(1);
        });
    });
    WorkerPool::shared().run(4, [&](unsigned) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        b.fetch_add(1);
    });
    other.join();
    CHECK(a.load() == 4);
    CHECK(b.load() == 4);
}

// n jobs that must all be running at once to finish: each waits at one barrier for the other n - 1
// (bounded, so that a pool that runs them one after another fails the test instead of hanging it).
// A fresh pool's first launch is the case that went wrong: the threads started for it read the
// launch's generation only after run() had announced it, slept through it, and the caller ran
// every job alone (issue 25).
TEST_CASE("n jobs of a pool's first launch run at once: they meet at one barrier") {
    for (unsigned n : {2u, 4u, 8u}) {
        CAPTURE(n);
        WorkerPool pool;
        std::mutex mutex;
        std::condition_variable all_here;
        unsigned arrived = 0;
        bool gave_up = false;
        pool.run(n, [&](unsigned) {
            std::unique_lock<std::mutex> lock(mutex);
            if (++arrived == n) all_here.notify_all();
            // After the first timeout the others need not wait too: the test has failed.
            if (!all_here.wait_for(lock, std::chrono::seconds(10),
                                   [&] { return arrived >= n || gave_up; }))
                gave_up = true;
        });
        CHECK_FALSE(gave_up);
        CHECK(arrived == n);
        CHECK(pool.threads() == n - 1);
        // And the next launch of the same pool too.
        arrived = 0;
        pool.run(n, [&](unsigned) {
            std::unique_lock<std::mutex> lock(mutex);
            if (++arrived == n) all_here.notify_all();
            if (!all_here.wait_for(lock, std::chrono::seconds(10),
                                   [&] { return arrived >= n || gave_up; }))
                gave_up = true;
        });
        CHECK_FALSE(gave_up);
    }
}
