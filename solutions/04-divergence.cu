// Lesson 04 — divergence: one instruction per warp (reference solution).
//
// Interleaved stereo samples: even i is the left channel, odd i the right. Each channel gets its
// own curve. Instead of thread i taking sample i (which puts both channels in every warp), each
// warp takes 32 samples of ONE channel, so every branch a warp meets goes the same way for all of
// its lanes.

// Soft saturation for the left channel: x - x^3/3 + x^5/5 - ... (32 terms of an odd series,
// Horner form).
__device__ float left_curve(float x)
{
    float x2 = x * x;
    float p = 0.0f;
    for (int k = 31; k >= 0; --k)
        p = fmaf(p, x2, (k % 2 ? -1.0f : 1.0f) / (2 * k + 1));
    return p * x;
}

// Expansion for the right channel: e^x - 1, from 16 terms of its series,
// 1 + x(1 + x/2(1 + x/3(...))) - 1.
__device__ float right_curve(float x)
{
    float p = 1.0f;
    for (int k = 16; k >= 1; --k)
        p = fmaf(p, x * (1.0f / k), 1.0f);
    return p - 1.0f;
}

__global__ void stereo_curves(const float* in, float* out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;

    // Warps are 32 consecutive threads. Number them over the whole grid and pair them up: of each
    // pair, the even warp takes the 32 left samples of 32 frames (64 samples) and the odd warp the
    // 32 right samples of the same frames. Blocks of 256 threads hold 4 whole pairs, so no pair is
    // split between blocks, and a grid of one thread per sample has enough pairs to cover n.
    int warp = t / 32;
    int lane = t % 32;
    int channel = warp % 2;                       // 0: left, 1: right; the same for all 32 lanes
    int i = (warp / 2) * 64 + 2 * lane + channel; // frame (warp / 2) * 32 + lane, this channel

    if (i < n) {
        // `channel` is warp-uniform, so this branch never splits a warp: the warp runs one curve
        // with all its lanes. (Only the guard above can split a warp, in the last pair, where
        // some lanes' samples are past n.) The price: a warp now reads every other float, so its
        // loads and stores touch 8 sectors instead of 4 (lesson 05); here the lanes are busy.
        if (channel == 0) {
            out[i] = left_curve(in[i]);
        } else {
            out[i] = right_curve(in[i]);
        }
    }
}
