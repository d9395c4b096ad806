// thrust_algorithms: Thrust's device algorithms (sort, sort by key, reduce, inclusive and
// exclusive scan, transform, count) on a million elements, checked against the same work done on
// the host. Built twice: as is, and with -rdc=true, where every kernel's __shared__ storage
// becomes a module-scope symbol and CUB's many kernels share one module.
#include "check.h"

#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

struct is_odd {
    __host__ __device__ bool operator()(std::uint32_t x) const { return x & 1u; }
};

int main()
{
    const int n = 1 << 20;
    std::vector<std::uint32_t> h(n);
    std::uint32_t state = 12345;
    for (auto& x : h) {
        state = state * 1664525u + 1013904223u;
        x = state >> 8;
    }

    thrust::device_vector<std::uint32_t> d(h.begin(), h.end());
    thrust::sort(d.begin(), d.end());
    std::vector<std::uint32_t> sorted = h;
    std::sort(sorted.begin(), sorted.end());
    thrust::host_vector<std::uint32_t> back = d;
    EXPECT(std::equal(sorted.begin(), sorted.end(), back.begin()), "thrust::sort differs");

    thrust::device_vector<std::uint32_t> keys(h.begin(), h.end());
    thrust::device_vector<int> values(n);
    thrust::sequence(values.begin(), values.end());
    thrust::sort_by_key(keys.begin(), keys.end(), values.begin());
    thrust::host_vector<int> order = values;
    for (int i = 1; i < n; ++i)
        EXPECT(h[order[i - 1]] <= h[order[i]], "sort_by_key: element %d out of order", i);

    thrust::device_vector<std::uint32_t> small(n);
    thrust::transform(d.begin(), d.end(), small.begin(),
                      [] __device__(std::uint32_t x) { return x & 0xffu; });
    const unsigned long long sum =
        thrust::reduce(small.begin(), small.end(), 0ull, thrust::plus<unsigned long long>());
    unsigned long long want = 0;
    for (auto x : h) want += x & 0xffu;
    EXPECT(sum == want, "reduce: %llu, expected %llu", sum, want);

    thrust::device_vector<std::uint32_t> scanned(n);
    thrust::inclusive_scan(small.begin(), small.end(), scanned.begin());
    thrust::host_vector<std::uint32_t> hs = scanned;
    thrust::host_vector<std::uint32_t> hsmall = small;
    std::uint32_t running = 0;
    for (int i = 0; i < n; ++i) {
        running += hsmall[i];
        EXPECT(hs[i] == running, "inclusive_scan[%d] = %u, expected %u", i, hs[i], running);
    }
    thrust::exclusive_scan(small.begin(), small.end(), scanned.begin());
    hs = scanned;
    EXPECT(hs[0] == 0 && hs[n - 1] == running - hsmall[n - 1], "exclusive_scan differs");

    const long odd = thrust::count_if(d.begin(), d.end(), is_odd());
    const long want_odd = std::count_if(h.begin(), h.end(), [](std::uint32_t x) { return x & 1u; });
    EXPECT(odd == want_odd, "count_if: %ld, expected %ld", odd, want_odd);

    std::printf("thrust_algorithms: %d elements: PASS\n", n);
    return 0;
}
