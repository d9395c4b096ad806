// Eight 1 GB __device__ arrays: each within the per-variable limit, 8 GB together.
__device__ char a0[1 << 30], a1[1 << 30], a2[1 << 30], a3[1 << 30];
__device__ char a4[1 << 30], a5[1 << 30], a6[1 << 30], a7[1 << 30];
__global__ void k(int* out) { out[0] = a0[out[1]] + a1[1] + a2[2] + a3[3] + a4[4] + a5[5] + a6[6] + a7[7]; }
