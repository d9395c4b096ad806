// One kernel per emulator diagnostic (tests/emulator_faults_test.cpp). The line of each fault is
// marked with a FAULT(name) comment; the test finds it there and expects it in the message.
// Launched with 2 blocks of 64 threads: in = 64 words, out = 64 words, unless the test says else.
#include <cassert>

extern "C" __global__ void oob_global_load(const unsigned* in, unsigned* out) {
    const unsigned t = threadIdx.x;
    out[t] = in[t + 60];  // FAULT(oob_global_load)
}

extern "C" __global__ void oob_global_store(const unsigned* in, unsigned* out) {
    const unsigned t = threadIdx.x;
    out[t * 2] = in[t];  // FAULT(oob_global_store)
}

extern "C" __global__ void null_pointer(const unsigned* in, unsigned* out) {
    unsigned* p = reinterpret_cast<unsigned* const*>(out)[0];  // out starts zeroed: a null pointer
    p[threadIdx.x] = 1;  // FAULT(null_pointer)
}

extern "C" __global__ void oob_shared(const unsigned* in, unsigned* out) {
    __shared__ unsigned tile[64];
    tile[threadIdx.x * 2] = in[threadIdx.x];  // FAULT(oob_shared)
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x];
}

extern "C" __global__ void oob_local(const unsigned* in, unsigned* out) {
    unsigned scratch[8];
    for (int i = 0; i < 8; ++i) scratch[i] = in[i];
    scratch[in[threadIdx.x] % 8u + 5000u] = 1;  // FAULT(oob_local)
    out[threadIdx.x] = scratch[in[threadIdx.x] % 8u];
}

extern "C" __global__ void misaligned_global(const unsigned* in, unsigned* out) {
    const unsigned* p = reinterpret_cast<const unsigned*>(reinterpret_cast<const char*>(in) + 2);
    out[threadIdx.x] = p[threadIdx.x];  // FAULT(misaligned_global)
}

extern "C" __global__ void misaligned_shared(const unsigned* in, unsigned* out) {
    __shared__ unsigned tile[65];
    tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    const unsigned* p = reinterpret_cast<const unsigned*>(reinterpret_cast<const char*>(tile) + 1 + (in[0] & 0));
    out[threadIdx.x] = p[threadIdx.x];  // FAULT(misaligned_shared)
}

extern "C" __global__ void use_after_free(const unsigned* in, unsigned* out) {
    out[threadIdx.x] = in[threadIdx.x];  // FAULT(use_after_free)
}

extern "C" __global__ void endless_loop(const unsigned* in, unsigned* out) {
    unsigned i = threadIdx.x;
    while (in[0] != 12345u) i += 3;  // FAULT(endless_loop)
    out[threadIdx.x] = i;
}

extern "C" __global__ void barrier_deadlock(const unsigned* in, unsigned* out) {
    if (threadIdx.x < 32) {
        asm volatile("bar.sync 1;");  // FAULT(barrier_deadlock)
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = in[threadIdx.x];
}

extern "C" __global__ void divergent_barrier(const unsigned* in, unsigned* out) {
    __shared__ unsigned tile[64];
    tile[threadIdx.x] = in[threadIdx.x];
    if (threadIdx.x < 32) {
        __syncthreads();  // FAULT(divergent_barrier_other)
        out[threadIdx.x] = tile[threadIdx.x + 32];
    } else {
        __syncthreads();  // FAULT(divergent_barrier)
        out[threadIdx.x] = tile[threadIdx.x - 32];
    }
}

extern "C" __global__ void shared_race(const unsigned* in, unsigned* out) {
    __shared__ unsigned tile[64];
    const unsigned t = threadIdx.x;
    const unsigned neighbour = tile[(t + 32) % 64];  // FAULT(shared_race)
    tile[t] = in[t];  // FAULT(shared_race_other)
    out[t] = neighbour;
}

// A counter updated atomically, then read by one thread with no barrier: the other warps may not
// have added yet.
extern "C" __global__ void atomic_then_read(const unsigned* in, unsigned* out) {
    __shared__ unsigned count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    atomicAdd(&count, 1u);  // FAULT(atomic_then_read)
    if (threadIdx.x == 0) out[0] = count;  // FAULT(atomic_then_read_other)
}

// Slots zeroed, then updated atomically by another warp with no barrier between.
extern "C" __global__ void write_then_atomic(const unsigned* in, unsigned* out) {
    __shared__ unsigned slots[64];
    slots[threadIdx.x] = 0;  // FAULT(write_then_atomic)
    atomicAdd(&slots[63 - threadIdx.x], 1u);  // FAULT(write_then_atomic_other)
    __syncthreads();
    out[threadIdx.x] = slots[threadIdx.x];
}

extern "C" __global__ void uninitialised_shared(const unsigned* in, unsigned* out) {
    __shared__ unsigned tile[64];
    if (threadIdx.x < 32) tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x];  // FAULT(uninitialised_shared)
}

extern "C" __global__ void shuffle_after_return(const unsigned* in, unsigned* out) {
    if (threadIdx.x % 2) return;
    out[threadIdx.x] = __shfl_sync(0xffffffffu, in[threadIdx.x], 0);  // FAULT(shuffle_after_return)
}

extern "C" __global__ void failed_assert(const unsigned* in, unsigned* out) {
    const unsigned v = in[threadIdx.x];
    assert(v % 7u != 3u);  // FAULT(failed_assert)
    out[threadIdx.x] = v;
}

__device__ __noinline__ unsigned runaway(unsigned* trail, unsigned n) {
    trail[threadIdx.x] = n;
    return n == 0xffffffffu ? 0u : runaway(trail, n + 1) * runaway(trail, n ^ 3u);  // FAULT(runaway)
}

extern "C" __global__ void stack_overflow(const unsigned* in, unsigned* out) {
    out[threadIdx.x] = runaway(out, in[threadIdx.x] & 1u);
}

extern "C" __global__ void unsupported_instruction(const unsigned* in, unsigned* out) {
    float a, b;  // a vector atomic (sm_90): two floats added in one operation
    asm volatile("atom.global.v2.f32.add {%0, %1}, [%2], {%3, %4};" : "=f"(a), "=f"(b) : "l"(out), "f"(float(in[threadIdx.x])), "f"(1.0f));  // FAULT(unsupported_instruction)
    out[threadIdx.x] = unsigned(a + b);
}

// A race carried over a loop iteration: the barrier separates the write and the read of one pass,
// but warp 0, done with its pass, writes the next pass's value while warp 1 still reads.
extern "C" __global__ void loop_carried_race(const unsigned* in, unsigned* out) {
    __shared__ unsigned tile[64];
    const unsigned t = threadIdx.x;
    unsigned acc = 0;
    for (unsigned i = 0; i < (in[0] & 3u) + 2u; ++i) {
        tile[t] = acc + in[t];  // FAULT(loop_carried_other)
        __syncthreads();
        acc += tile[63 - t];  // FAULT(loop_carried_race)
    }
    out[t] = acc;
}

// A __syncthreads() inside a branch that half of each warp takes: the other half, still running,
// goes past it to the next __syncthreads(). On a GPU the two halves meet at different barriers.
extern "C" __global__ void barrier_in_branch(const unsigned* in, unsigned* out) {
    __shared__ unsigned tile[64];
    const unsigned t = threadIdx.x;
    tile[t] = in[t];
    if (t % 32 < 16) {
        __syncthreads();  // FAULT(barrier_in_branch)
        out[t] = tile[63 - t];
    }
    __syncthreads();  // FAULT(barrier_in_branch_other)
    out[t] += tile[t];
}

// The same barrier after half of each warp returned: exited threads count as arrived (sm_70 and
// later), so this is fine.
extern "C" __global__ void barrier_after_return(const unsigned* in, unsigned* out) {
    __shared__ unsigned tile[64];
    const unsigned t = threadIdx.x;
    if (t % 32 >= 16) return;
    tile[t] = in[t];
    __syncthreads();
    out[t] = tile[t ^ 1];
}
