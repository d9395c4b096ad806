// The threads a launch's blocks run on (engine/emulator/worker_pool.h).
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
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
