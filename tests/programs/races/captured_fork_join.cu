// Stream capture across two streams: the second stream's kernel reads what the first stream's
// kernel writes. The clean twin forks with an event after the writer; the racy one forks before.
// expect: write-read A B
#include "common.h"

int main() {
    const int n = 1 << 12;
    int *a = nullptr, *b = nullptr;
    CHECK(cudaMalloc(&a, n * sizeof(int)));
    CHECK(cudaMalloc(&b, n * sizeof(int)));
    cudaStream_t main_stream, side;
    CHECK(cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(main_stream, cudaStreamCaptureModeGlobal));
#ifndef FIXED
    CHECK(cudaEventRecord(fork, main_stream));
    CHECK(cudaStreamWaitEvent(side, fork, 0));
#endif
    fill<<<n / 256, 256, 0, main_stream>>>(a, n, 4);  // A
#ifdef FIXED
    CHECK(cudaEventRecord(fork, main_stream));
    CHECK(cudaStreamWaitEvent(side, fork, 0));
#endif
    add_one<<<n / 256, 256, 0, side>>>(a, b, n);  // B
    CHECK(cudaEventRecord(join, side));
    CHECK(cudaStreamWaitEvent(main_stream, join, 0));
    CHECK(cudaStreamEndCapture(main_stream, &graph));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, main_stream));
    CHECK(cudaStreamSynchronize(main_stream));
    std::printf("done\n");
    return 0;
}
