// A texture fetch (inline PTX here; tex2D() and friends make the same instruction): the emulator
// cannot read it, and says where.
extern "C" __global__ void texture_fetch(const unsigned long long* in, float* out) {
    float r, g, b, a;
    asm volatile("tex.1d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5}];" : "=f"(r), "=f"(g), "=f"(b), "=f"(a) : "l"(in[0]), "r"(int(threadIdx.x)));  // FAULT(texture_fetch)
    out[threadIdx.x] = r + g + b + a;
}
