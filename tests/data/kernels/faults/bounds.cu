// Accesses outside the emulator's buffers, one kernel per state space and operation
// (tests/emulator_faults_test.cpp, issue 23): each must be the emulator's fault at the marked
// line, never a read or write of the host memory next to the buffer. Negative indices are the
// dangerous ones: an offset just below 2^64 plus the access's size wraps round to a small number.
// Thread 0 makes the bad access (index threadIdx.x - 1 is -1 for it); the others stay inside.
// Launched with 2 blocks of 64 threads: in = 64 words, out = 64 words.
#include <cstdint>

__constant__ unsigned table[16];

extern "C" __global__ void shared_atomic_negative(const unsigned* in, unsigned* out) {
    __shared__ unsigned hist[64];
    hist[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&hist[int(threadIdx.x) - 1], 1u);  // FAULT(shared_atomic_negative)
    __syncthreads();
    out[threadIdx.x] = hist[threadIdx.x];
}

extern "C" __global__ void shared_red_negative(const unsigned* in, unsigned* out) {
    __shared__ unsigned long long hist[64];
    hist[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&hist[int(threadIdx.x) - 1], 1ull);  // FAULT(shared_red_negative)
    __syncthreads();
    out[threadIdx.x] = unsigned(hist[threadIdx.x]);
}

extern "C" __global__ void shared_cas_negative(const unsigned* in, unsigned* out) {
    __shared__ unsigned hist[64];
    hist[threadIdx.x] = 0;
    __syncthreads();
    out[threadIdx.x] = atomicCAS(&hist[int(threadIdx.x) - 1], 0u, in[threadIdx.x]);  // FAULT(shared_cas_negative)
}

extern "C" __global__ void shared_store_negative(const unsigned* in, unsigned* out) {
    __shared__ unsigned tile[64];
    tile[int(threadIdx.x) - 1] = in[threadIdx.x];  // FAULT(shared_store_negative)
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x];
}

extern "C" __global__ void shared_vector_negative(const unsigned* in, unsigned* out) {
    __shared__ uint4 tile[64];
    tile[threadIdx.x] = make_uint4(in[threadIdx.x], 0, 0, 0);
    __syncthreads();
    const uint4 v = tile[int(threadIdx.x) - 1];  // FAULT(shared_vector_negative)
    out[threadIdx.x] = v.x + v.w;
}

extern "C" __global__ void generic_shared_negative(const unsigned* in, unsigned* out) {
    __shared__ unsigned tile[64];
    tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    unsigned long long p;
    asm("cvta.shared.u64 %0, %1;" : "=l"(p) : "l"((unsigned long long)(threadIdx.x * 4) - 4));
    unsigned v;
    asm volatile("atom.add.u32 %0, [%1], 1;" : "=r"(v) : "l"(p));  // FAULT(generic_shared_negative)
    out[threadIdx.x] = v;
}

extern "C" __global__ void global_wrapping(const unsigned* in, unsigned* out) {
    // An address 4 bytes below 2^64: plus 4 it is 0.
    unsigned* p = reinterpret_cast<unsigned*>(std::uintptr_t(0) - 4 * (threadIdx.x == 0) + (in[0] & 0));
    if (threadIdx.x == 0) atomicAdd(p, 1u);  // FAULT(global_wrapping)
    out[threadIdx.x] = in[threadIdx.x];
}

extern "C" __global__ void global_store_wrapping(const unsigned* in, unsigned* out) {
    unsigned long long* p = reinterpret_cast<unsigned long long*>(std::uintptr_t(0) - 8 + (in[0] & 0));
    if (threadIdx.x == 0) *p = in[1];  // FAULT(global_store_wrapping)
    out[threadIdx.x] = in[threadIdx.x];
}

extern "C" __global__ void local_negative(const unsigned* in, unsigned* out) {
    unsigned scratch[8];
    for (int i = 0; i < 8; ++i) scratch[i] = in[i];
    scratch[int(in[threadIdx.x] % 8u) - int(in[threadIdx.x] % 8u) - 1 + int(threadIdx.x)] = 1;  // FAULT(local_negative)
    out[threadIdx.x] = scratch[in[threadIdx.x] % 8u];
}

extern "C" __global__ void constant_negative(const unsigned* in, unsigned* out) {
    out[threadIdx.x] = table[int(threadIdx.x) - 1];  // FAULT(constant_negative)
}

extern "C" __global__ void param_negative(const unsigned* in, unsigned* out) {
    unsigned v;
    asm volatile("{ .reg .u64 a; mov.u64 a, param_negative_param_0; ld.param.u32 %0, [a+-4]; }" : "=r"(v));  // FAULT(param_negative)
    out[threadIdx.x] = v;
}

extern "C" __global__ void wide_load(const unsigned* in, unsigned* out) {
    unsigned long long lo, hi;
    asm volatile("{ .reg .b128 v; ld.global.b128 v, [%2]; mov.b128 {%0, %1}, v; }" : "=l"(lo), "=l"(hi) : "l"(in));  // FAULT(wide_load)
    out[threadIdx.x] = unsigned(lo + hi);
}

extern "C" __global__ void cp_async_negative(const unsigned* in, unsigned* out) {
    __shared__ alignas(16) unsigned tile[64];
    // A 64-bit shared address 16 bytes before the array for threads 0-3.
    const unsigned long long dst = __cvta_generic_to_shared(&tile[(threadIdx.x / 4) * 4]) - 16;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"l"(dst), "l"(&in[(threadIdx.x / 4) * 4]));  // FAULT(cp_async_negative)
    asm volatile("cp.async.wait_all;");
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x];
}

extern "C" __global__ void mbarrier_negative(const unsigned* in, unsigned* out) {
    __shared__ unsigned long long bars[4];
    const unsigned bar = unsigned(__cvta_generic_to_shared(&bars[0])) - 8 + (in[0] & 0);
    if (threadIdx.x == 0) asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(bar));  // FAULT(mbarrier_negative)
    __syncthreads();
    out[threadIdx.x] = in[threadIdx.x];
}
