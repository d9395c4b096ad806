// A CUDA 12 style prefetch and advice (the device as an int): CUDA 13 takes a cudaMemLocation.
int main()
{
    float* p = nullptr;
    cudaMallocManaged(&p, 1024);
    cudaMemPrefetchAsync(p, 1024, 0, 0);
    return 0;
}
