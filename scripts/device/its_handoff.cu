// A handoff between two lanes of one warp through global memory: lane 1 sets a flag and waits
// for lane 0's acknowledgement, lane 0 waits for the flag. With the lanes run in lockstep (one
// path of the branch after the other) the first path spins for ever; under independent thread
// scheduling (sm_70+) both finish. The same kernel as tests/data/kernels/races/races.cu's
// its_handoff, which the emulator runs with `cudalab exec --its`; this program checks the GPU
// agrees (scripts/device/part4-check.sh). Prints "out[0]=42 out[1]=7" when both lanes finished.
#include <cstdio>

__global__ void its_handoff(const unsigned* in, unsigned* out) {
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

int main() {
    unsigned h_in[64], h_out[64];
    for (unsigned i = 0; i < 64; ++i) h_in[i] = i;
    unsigned *in, *out;
    cudaMalloc(&in, sizeof h_in);
    cudaMalloc(&out, sizeof h_out);
    cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    cudaMemset(out, 0, sizeof h_out);
    its_handoff<<<1, 32>>>(in, out);
    cudaError_t e = cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        std::printf("error: %s\n", cudaGetErrorName(e));
        return 1;
    }
    std::printf("out[0]=%u out[1]=%u\n", h_out[0], h_out[1]);
    return h_out[0] == 42 && h_out[1] == 7 ? 0 : 1;
}
