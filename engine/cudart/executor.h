// The device thread: stream work that runs after the call that issued it has returned, as a GPU
// runs it, while the program's host code carries on.
//
// In the device process a kernel launch (and an event record or wait in a stream) is checked in
// the call, so that the launch's own errors still come back from it, and then queued; the call
// answers at once. One thread runs the queue in issue order, the same order and the same code
// (run_work) as a call that runs its work itself, so the modelled timeline, the race checks and
// the records are what they would be; only the real time moves. Every other call first waits
// until the queue is empty (drain), so it sees the device as the work left it: a synchronising
// call reports what a queued kernel did (its fault, its printf) as CUDA does. The program's
// data follows the same rule (ordering.h keeps copies to the host until they are waited for).
//
// While a queued kernel runs on the emulator the device thread lets go of the runtime's lock, so
// the program's next launches are checked and queued meanwhile; nothing else runs until the queue
// is empty. Work that needs the program during the call (host functions, copies through pageable
// memory, managed or mirrored memory, injected faults) is not queued: its call drains the queue
// and runs it as before.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cudart/state.h"

namespace cudalab::cudart {

// One piece of queued work, with what it keeps of the call that issued it.
struct QueuedWork {
    Stream* stream = nullptr;
    Work work;
    const char* api = "";
    double issue_time = 0;   // the host's modelled clock when the call issued it
    int device = 0;          // the issuing thread's current device
    CallStack stack;         // the program's call, for messages and race reports
    std::uint64_t call = 0;  // its number, for the timeline's order (Timeline::issuing)
    // A copy to page-locked memory: the rows whose place among deferred copies is held
    // (Ordering::expect), released if it runs without deferring them.
    std::vector<std::uint8_t*> expected;
};

class Executor {
  public:
    static Executor& get();

    // The device process turns the queue on; elsewhere (and until then) work runs in its call.
    void enable() { enabled_ = true; }
    bool enabled() const { return enabled_; }

    // Whether a call of this name may run while queued work is pending: launches, event records
    // and waits (which may queue theirs), and calls that only make or ask about runtime objects.
    // Every other call drains first.
    static bool may_queue(std::string_view api);
    // Whether the call being served on this thread is one of those (set by QueueScope).
    static bool queue_allowed();

    // Queues `w`; the caller holds the runtime's lock. Starts the device thread on first use.
    void push(QueuedWork w);
    // Returns once the queue is empty and nothing of it runs, with the runtime's lock held as
    // the caller held it. Messages the device thread held back are said then.
    void drain();
    // At the program's end: drains and stops the thread.
    void stop();

    // On the device thread, the work it is running (null elsewhere).
    static const QueuedWork* running();

  private:
    void loop();
    bool idle_locked() const { return queue_.empty() && !busy_; }

    bool enabled_ = false;
    std::mutex m_;
    std::condition_variable wake_, idle_;
    std::deque<QueuedWork> queue_;
    bool busy_ = false;
    bool stopping_ = false;
    std::thread thread_;
};

// For the program's call being served on this thread: whether its work may be queued.
class QueueScope {
  public:
    explicit QueueScope(bool allowed);
    ~QueueScope();
    QueueScope(const QueueScope&) = delete;
    QueueScope& operator=(const QueueScope&) = delete;

  private:
    bool saved_;
};

// On the device thread, around the emulation of a queued kernel: lets other threads take the
// runtime's lock (to queue more work) and takes it back. Does nothing on any other thread.
class LetOthersIn {
  public:
    LetOthersIn();
    ~LetOthersIn();
    LetOthersIn(const LetOthersIn&) = delete;
    LetOthersIn& operator=(const LetOthersIn&) = delete;

  private:
    int levels_ = 0;
};

}  // namespace cudalab::cudart
