// Dynamic parallelism (CUDA 12+ semantics, -rdc=true -lcudadevrt): kernels launching kernels.
//  1. a recursive quicksort: each grid partitions its range and launches one child grid per side
//     into two device-side streams (cudaStreamNonBlocking), down to an insertion sort;
//  2. a depth-3 tree: every thread of a level launches a grid of the next, which records its path;
//  3. a tail launch (cudaStreamTailLaunch) sees everything its parent and the parent's
//     fire-and-forget children wrote;
//  4. a launch of a bad configuration fails with cudaErrorInvalidConfiguration in the device
//     thread's cudaGetLastError, and the parent goes on.
// Every result is checked on the host.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

__global__ void quicksort(unsigned* data, int lo, int hi, int depth) {
    if (hi - lo <= 16 || depth >= 16) {  // small range (or deep): insertion sort
        for (int i = lo + 1; i <= hi; ++i) {
            unsigned v = data[i];
            int j = i - 1;
            while (j >= lo && data[j] > v) {
                data[j + 1] = data[j];
                --j;
            }
            data[j + 1] = v;
        }
        return;
    }
    // Lomuto partition around the middle element.
    const int mid = lo + (hi - lo) / 2;
    unsigned t = data[mid];
    data[mid] = data[hi];
    data[hi] = t;
    const unsigned pivot = data[hi];
    int store = lo;
    for (int i = lo; i < hi; ++i)
        if (data[i] < pivot) {
            t = data[i];
            data[i] = data[store];
            data[store] = t;
            ++store;
        }
    data[hi] = data[store];
    data[store] = pivot;
    cudaStream_t left, right;
    cudaStreamCreateWithFlags(&left, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&right, cudaStreamNonBlocking);
    if (lo < store - 1) quicksort<<<1, 1, 0, left>>>(data, lo, store - 1, depth + 1);
    if (store + 1 < hi) quicksort<<<1, 1, 0, right>>>(data, store + 1, hi, depth + 1);
    cudaStreamDestroy(left);
    cudaStreamDestroy(right);
}

// Level `level` of a tree: block b, thread t record the node's id at its place, and each thread
// of a level below 3 launches a grid of 2 blocks x 2 threads for its children.
__global__ void tree(int* nodes, int level, int base) {
    const int id = base * 4 + 1 + blockIdx.x * 2 + threadIdx.x;  // node i's children: 4i+1..4i+4
    nodes[id] = level * 1000 + id;
    if (level < 3) tree<<<2, 2>>>(nodes, level + 1, id);
}

__global__ void tail_check(const int* values, int n, int* out) {
    int sum = 0;
    for (int i = 0; i < n; ++i) sum += values[i];
    *out = sum;
}

__global__ void fill(int* values, int value) { values[blockIdx.x * blockDim.x + threadIdx.x] = value; }

__global__ void tail_parent(int* values, int n, int* out) {
    values[threadIdx.x] = 1;  // the parent's own half
    if (threadIdx.x == 0) {
        fill<<<1, n / 2, 0, cudaStreamFireAndForget>>>(values + n / 2, 2);
        tail_check<<<1, 1, 0, cudaStreamTailLaunch>>>(values, n, out);
    }
}

__global__ void bad_launch(int* codes) {
    fill<<<1, 4096>>>(nullptr, 0);  // 4096 threads per block: more than any GPU allows
    const cudaError_t e = cudaGetLastError();
    codes[0] = int(e);
    codes[1] = int(cudaGetLastError());  // cleared by the first
    printf("device says: %s\n", cudaGetErrorName(e));
}

int main() {
    // 1. quicksort
    const int n = 2000;
    std::vector<unsigned> h(n);
    unsigned s = 12345;
    for (auto& v : h) {
        s = s * 1664525u + 1013904223u;
        v = s >> 8;
    }
    unsigned* d;
    CHECK(cudaMalloc(&d, n * sizeof(unsigned)));
    CHECK(cudaMemcpy(d, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    quicksort<<<1, 1>>>(d, 0, n - 1, 0);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> sorted(n);
    CHECK(cudaMemcpy(sorted.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::sort(h.begin(), h.end());
    const bool sort_ok = sorted == h;
    std::printf("quicksort of %d values: %s\n", n, sort_ok ? "sorted" : "NOT sorted");

    // 2. depth-3 tree under root 0: levels 1..3 have 4, 16, 64 nodes, ids 1..84, each written once
    const int nodes_n = 1 + 4 + 16 + 64;
    int* nodes;
    CHECK(cudaMalloc(&nodes, nodes_n * sizeof(int)));
    CHECK(cudaMemset(nodes, 0xff, nodes_n * sizeof(int)));
    tree<<<2, 2>>>(nodes, 1, 0);
    CHECK(cudaDeviceSynchronize());
    std::vector<int> hn(nodes_n);
    CHECK(cudaMemcpy(hn.data(), nodes, nodes_n * sizeof(int), cudaMemcpyDeviceToHost));
    // Expected: a node i at level L has the children 4i+1..4i+4 at level L+1.
    std::vector<int> expect(nodes_n, -1);
    std::vector<int> level_ids{0};
    for (int level = 1; level <= 3; ++level) {
        std::vector<int> next;
        for (int base : level_ids)
            for (int c = 0; c < 4; ++c) {
                const int id = base * 4 + 1 + c;
                expect[id] = level * 1000 + id;
                next.push_back(id);
            }
        level_ids = next;
    }
    int tree_grids = 0;
    for (int i = 0; i < nodes_n; ++i) tree_grids += expect[i] >= 0;
    const bool tree_ok = hn == expect;
    std::printf("tree of 3 levels: %d nodes %s\n", tree_grids, tree_ok ? "written" : "WRONG");

    // 3. tail launch after a fire-and-forget child
    const int m = 64;
    int *values, *out;
    CHECK(cudaMalloc(&values, m * sizeof(int)));
    CHECK(cudaMalloc(&out, sizeof(int)));
    CHECK(cudaMemset(values, 0, m * sizeof(int)));
    tail_parent<<<1, m / 2>>>(values, m, out);
    CHECK(cudaDeviceSynchronize());
    int sum = 0;
    CHECK(cudaMemcpy(&sum, out, sizeof(int), cudaMemcpyDeviceToHost));
    const bool tail_ok = sum == m / 2 * 1 + m / 2 * 2;
    std::printf("tail launch saw sum %d (expected %d)\n", sum, m / 2 * 3);

    // 4. a child launch with a bad configuration
    int* codes;
    CHECK(cudaMalloc(&codes, 2 * sizeof(int)));
    bad_launch<<<1, 1>>>(codes);
    CHECK(cudaDeviceSynchronize());
    int hc[2];
    CHECK(cudaMemcpy(hc, codes, sizeof hc, cudaMemcpyDeviceToHost));
    // (cudaLaunchDevice documents cudaErrorInvalidConfiguration; any error is accepted, cleared once.)
    const bool bad_ok = hc[0] != int(cudaSuccess) && hc[1] == int(cudaSuccess);
    std::printf("bad child launch: %s, then %s\n", cudaGetErrorName(cudaError_t(hc[0])),
                cudaGetErrorName(cudaError_t(hc[1])));

    CHECK(cudaFree(d));
    CHECK(cudaFree(nodes));
    CHECK(cudaFree(values));
    CHECK(cudaFree(out));
    CHECK(cudaFree(codes));
    const bool ok = sort_ok && tree_ok && tail_ok && bad_ok;
    std::printf("dynamic_parallelism: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
