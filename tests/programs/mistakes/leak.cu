// A learner's mistake: device memory never freed.
#include <cstdio>

int main()
{
    for (int i = 0; i < 3; ++i) {
        float* device = nullptr;
        cudaMalloc(&device, 4096);
    }
    std::printf("leak: done\n");
    return 0;
}
