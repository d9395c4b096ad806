// Lesson 04 — divergence: one instruction per warp.
//
// `in` holds stereo audio, interleaved the usual way: left, right, left, right, ... Sample i
// belongs to the left channel when i is even and to the right channel when i is odd. Each channel
// gets its own transfer curve (the two functions below; leave them as they are):
//
//     out[i] = left_curve(in[i])    for even i
//     out[i] = right_curve(in[i])   for odd i
//
// n, the number of samples, may be odd (the last frame then has only its left sample). The host
// side launches one thread per sample: (n + 255) / 256 blocks of 256 threads.
//
// As shipped the kernel is CORRECT but every warp diverges: its even lanes want one curve and its
// odd lanes the other, so the warp runs both, each with half of its lanes switched off. The
// performance checks count the branches that split a warp (only the bounds guard may) and the
// warp instructions issued per sample (each warp should issue one curve, not both).
//
// Run the checks with:  cudalab check 04-divergence

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
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    // TODO: thread i takes sample i, so the lanes of every warp alternate left, right, left, ...
    //       and the branch below splits every warp in two. Give each WARP one channel instead:
    //       work out which warp and lane this thread is (from its global id, as in lesson 01),
    //       let the warp's number choose the channel, and let the lane choose which frame of the
    //       channel, so that the 32 lanes of a warp take 32 samples of the same channel.
    //       Every sample must still be handled exactly once.
    if (i < n) {
        if (i % 2 == 0) {
            out[i] = left_curve(in[i]);
        } else {
            out[i] = right_curve(in[i]);
        }
    }
}
