// A fetch from a multisample texture (inline PTX: CUDA makes no multisample textures, and the
// emulator runs every other texture fetch): the emulator cannot read it, and says where, when a
// kernel that reaches it is launched. The module's other kernels still run.
extern "C" __global__ void texture_fetch(const unsigned long long* in, float* out) {
    float r, g, b, a;
    asm volatile("tex.2dms.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %5, %5, %5}];" : "=f"(r), "=f"(g), "=f"(b), "=f"(a) : "l"(in[0]), "r"(int(threadIdx.x)));  // FAULT(texture_fetch)
    out[threadIdx.x] = r + g + b + a;
}

// The same instruction in a function that is not inlined: a kernel that calls it cannot run either.
__device__ __noinline__ float fetch_through(unsigned long long texture, int i) {
    float r, g, b, a;
    asm volatile("tex.2dms.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %5, %5, %5}];" : "=f"(r), "=f"(g), "=f"(b), "=f"(a) : "l"(texture), "r"(i));  // FAULT(fetch_through)
    return r + g + b + a;
}

extern "C" __global__ void calls_texture_fetch(const unsigned long long* in, float* out) {
    out[threadIdx.x] = fetch_through(in[0], int(threadIdx.x));
}

// Nothing the emulator cannot run: this one works.
extern "C" __global__ void plain_copy(const unsigned long long* in, float* out) {
    out[threadIdx.x] = float(in[threadIdx.x] & 0xffu);
}
