// Each level instantiates the next twice with different arguments: 2^N instantiations.
template <int N, int M> struct Bomb {
    static __device__ int value() { return Bomb<N - 1, 2 * M>::value() + Bomb<N - 1, 2 * M + 1>::value(); }
};
template <int M> struct Bomb<0, M> {
    static __device__ int value() { return M; }
};
__global__ void k(int* out) { *out = Bomb<40, 0>::value(); }
