// Memory: every state space. Local arrays indexed at run time (the stack depot), __constant__
// data, static and dynamic (extern) shared memory, generic pointers that may point to shared,
// global or local memory, vector loads and stores (.v2 / .v4), read-only loads (.nc), narrow
// loads with sign extension, and struct copies.

__constant__ unsigned table[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
__constant__ float weights[4] = {0.5f, -1.25f, 2.0f, 0.125f};
__device__ unsigned global_counter_base = 100;
__device__ int global_array[8] = {10, 20, 30, 40, 50, 60, 70, 80};

struct Pair {
    int key;
    float value;
    double extra;
};

__device__ __noinline__ unsigned sum_generic(const unsigned* p, int n) {  // p: any space
    unsigned s = 0;
    for (int i = 0; i < n; ++i) s += p[i] * unsigned(i + 1);
    return s;
}

extern "C" __global__ void spaces(const unsigned* in, unsigned* out) {
    __shared__ unsigned tile[128];
    const int t = threadIdx.x;
    const int g = blockIdx.x * blockDim.x + t;
    unsigned local[12];
    for (int i = 0; i < 12; ++i) local[i] = in[g] * unsigned(i) + unsigned(i);
    const unsigned pick = local[in[g] % 12u];  // dynamic index: local memory
    tile[t] = in[g] ^ 0x5a5a5a5au;
    __syncthreads();
    unsigned* o = out + g * 12;
    o[0] = pick;
    o[1] = table[in[g] & 15] + table[t & 15];
    o[2] = __float_as_uint(weights[t & 3] * float(t));
    o[3] = tile[(t + 1) % blockDim.x] + tile[blockDim.x - 1 - t];
    o[4] = sum_generic(tile + (t & ~3), 4);    // generic -> shared
    o[5] = sum_generic(in + (g & ~3), 4);      // generic -> global
    o[6] = sum_generic(local + 4, 6);          // generic -> local
    o[7] = global_counter_base + unsigned(global_array[t & 7]);
    o[8] = unsigned(__ldg((const int*)in + (g ^ 1)));  // ld.global.nc
    o[9] = unsigned(((const signed char*)in)[g * 4 + 1]) + unsigned(((const short*)in)[g * 2 + 1]);
    o[10] = unsigned(((const unsigned char*)in)[g * 4 + 3]);
    Pair p = {int(in[g]), float(t) * 0.5f, double(g)};
    Pair q = p;
    q.key += 1;
    o[11] = unsigned(q.key) + unsigned(q.value) + unsigned(q.extra);
}

extern "C" __global__ void vectors(const float4* in, float4* out) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    float4 v = in[g];  // ld.global.v4.f32
    v.x += 1.0f;
    v.y *= 2.0f;
    v.z -= v.w;
    out[2 * g] = v;    // st.global.v4.f32
    const float2* half = reinterpret_cast<const float2*>(in);
    const float2 h = half[2 * g + 1];  // ld.global.v2.f32
    const double2 d2 = make_double2(double(h.x), double(h.y));
    reinterpret_cast<double2*>(out)[2 * g + 1] = make_double2(d2.y, d2.x);  // st.global.v2.f64
    const int4 i4 = __ldg(reinterpret_cast<const int4*>(in) + (g ^ 1));   // ld.global.nc.v4
    (void)i4;
}

extern "C" __global__ void dynamic_shared(const unsigned* in, unsigned* out) {
    extern __shared__ unsigned buffer[];  // size from the launch (manifest: 1024 bytes)
    const int t = threadIdx.x;
    buffer[t] = in[blockIdx.x * blockDim.x + t];
    buffer[t + blockDim.x] = buffer[t] * 3u;
    __syncthreads();
    unsigned s = 0;
    for (int i = 0; i < 2 * int(blockDim.x); i += 17) s += buffer[(i + t) % (2 * blockDim.x)];
    out[blockIdx.x * blockDim.x + t] = s;
}
