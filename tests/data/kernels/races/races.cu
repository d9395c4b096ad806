// Kernels for tests/race_detection_test.cpp: races the emulator's lockstep and block order hide,
// and their safe forms. Launched with 2 blocks of 64 threads on in (64 words) and out (64 words).

// The pre-Volta warp-synchronous tail of a reduction: lanes of one warp read what other lanes wrote
// one step earlier, with nothing between but `volatile`.
extern "C" __global__ void warp_volatile(const unsigned* in, unsigned* out) {
    __shared__ unsigned s[64];
    const unsigned t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    if (t < 32) {
        volatile unsigned* v = s;
        v[t] += v[t + 32];
        v[t] += v[t + 16];  // RACE(warp_volatile)
        v[t] += v[t + 8];
        if (t == 0) out[blockIdx.x] = v[0];
    }
}

// The same with __syncwarp() between every read and every write: safe.
extern "C" __global__ void warp_syncwarp(const unsigned* in, unsigned* out) {
    __shared__ unsigned s[64];
    const unsigned t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    if (t < 32) {
        unsigned v = s[t] + s[t + 32];
        for (unsigned d = 16; d > 0; d /= 2) {
            __syncwarp();
            s[t] = v;
            __syncwarp();
            v += s[t + d];
        }
        if (t == 0) out[blockIdx.x] = v;
    }
}

// A lane reads, another lane of the warp then overwrites the slot, with no __syncwarp: a
// write-after-read hazard (the writer may run first).
extern "C" __global__ void warp_write_after_read(const unsigned* in, unsigned* out) {
    __shared__ unsigned s[64];
    const unsigned t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    if (t < 32) {
        const unsigned next = s[(t + 1) % 32];
        s[t] = next;  // RACE(warp_write_after_read)
        __syncwarp();
        out[blockIdx.x * 32 + t] = s[t];
    }
}

// Every block adds into the same 64 words with a plain read-modify-write.
extern "C" __global__ void blocks_plain_merge(const unsigned* in, unsigned* out) {
    out[threadIdx.x] += in[threadIdx.x];  // RACE(blocks_plain_merge)
}

// The same with atomics: ordered.
extern "C" __global__ void blocks_atomic_merge(const unsigned* in, unsigned* out) {
    atomicAdd(&out[threadIdx.x], in[threadIdx.x]);
}

// A compare-and-swap loop starts from a plain read of a word other blocks update atomically: fine.
extern "C" __global__ void blocks_cas_max(const unsigned* in, unsigned* out) {
    unsigned old = out[0];
    while (old < in[threadIdx.x]) {
        const unsigned seen = atomicCAS(&out[0], old, in[threadIdx.x]);
        if (seen == old) break;
        old = seen;
    }
}

// The merge made "atomic" with an exchange: still read-then-replace, so one block's counts are lost.
extern "C" __global__ void blocks_exchange_merge(const unsigned* in, unsigned* out) {
    atomicExch(&out[threadIdx.x], out[threadIdx.x] + in[threadIdx.x]);  // RACE(blocks_exchange_merge)
}

// A lock taken with compare-and-swap and released with an exchange: ordered.
extern "C" __global__ void blocks_lock(const unsigned* in, unsigned* out) {
    if (threadIdx.x != 0) return;
    while (atomicCAS(&out[63], 0u, 1u) != 0u) {
    }
    out[blockIdx.x] += in[blockIdx.x];  // only this block writes out[blockIdx.x]
    atomicExch(&out[63], 0u);
}

// Each block writes its own half of out: no race.
extern "C" __global__ void blocks_own_halves(const unsigned* in, unsigned* out) {
    if (threadIdx.x < 32) out[blockIdx.x * 32 + threadIdx.x] = in[threadIdx.x];
}

// Reads `back` words before `in`: the test places a buffer it does not pass to the launch there.
extern "C" __global__ void stale_read(const unsigned* in, unsigned* out, int back) {
    if (blockIdx.x == 0) out[threadIdx.x] = in[int(threadIdx.x) - back];  // RACE(stale_read)
}

// The warp-synchronous tail through global memory: lane t adds what lane t + 16 stored one
// statement earlier, with nothing between but `volatile`. Each block has its own 32 words.
extern "C" __global__ void warp_global_volatile(const unsigned* in, unsigned* out) {
    const unsigned t = threadIdx.x;
    volatile unsigned* v = out + blockIdx.x * 32;
    if (t < 32) {
        v[t] = in[t] + in[t + 32];
        if (t < 16) v[t] += v[t + 16];  // RACE(warp_global_volatile)
    }
}

// The same with __syncwarp() between the stores and the loads: safe.
extern "C" __global__ void warp_global_syncwarp(const unsigned* in, unsigned* out) {
    const unsigned t = threadIdx.x;
    unsigned* v = out + blockIdx.x * 32;
    if (t < 32) {
        v[t] = in[t] + in[t + 32];
        __syncwarp();
        const unsigned other = t < 16 ? v[t + 16] : 0u;
        __syncwarp();
        if (t < 16) v[t] += other;
    }
}

// Independent thread scheduling: lane 0 waits for a flag that lane 1 sets in the other path of
// the branch, and lane 1 then waits for lane 0's answer. Run one path after the other (lockstep,
// either order) the first path waits for ever; with the paths taking turns both finish (the
// handoff Volta made possible).
extern "C" __global__ void its_handoff(const unsigned* in, unsigned* out) {
    volatile unsigned* flag = out + 62;
    volatile unsigned* ack = out + 63;
    if (blockIdx.x != 0) return;
    if (threadIdx.x == 0) {
        while (*flag == 0) {
        }
        *ack = 1;
        out[0] = *flag + 1;
    } else if (threadIdx.x == 1) {
        *flag = in[0] + 41;
        while (*ack == 0) {
        }
        out[1] = 7;
    }
}

// Independent thread scheduling: the two paths of a branch each take 8 tickets from one counter
// (different atomics, so the compiler keeps two loops); in lockstep one path takes 0-7 and the
// other 8-15, with the paths taking turns they interleave.
extern "C" __global__ void its_tickets(const unsigned* in, unsigned* out) {
    unsigned* counter = out + 63;
    if (blockIdx.x != 0 || threadIdx.x >= 2) return;
    if (threadIdx.x == 0) {
#pragma unroll 1
        for (int k = 0; k < 8; ++k) out[k] = atomicAdd(counter, 1u);
    } else {
#pragma unroll 1
        for (int k = 0; k < 8; ++k) out[8 + k] = atomicInc(counter, 0xffffffffu);
    }
}

// Independent thread scheduling: lanes 1-31 spin on a flag lane 0 sets after some work, and their
// loop has a branch of its own that splits them every pass. The spinning paths must still hand
// over to lane 0 now and then.
extern "C" __global__ void its_spin_with_branch(const unsigned* in, unsigned* out) {
    volatile unsigned* flag = out + 63;
    if (blockIdx.x != 0 || threadIdx.x >= 32) return;
    if (threadIdx.x == 0) {
        for (int k = 0; k < 50; ++k) out[40] += in[k];
        *flag = 1;
    } else {
        while (*flag == 0) {
            if (threadIdx.x & 1) atomicAdd(&out[threadIdx.x], 1u);
            else out[threadIdx.x] ^= 3u;
        }
    }
}
