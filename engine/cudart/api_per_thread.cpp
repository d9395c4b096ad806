// The per-thread default stream spellings of runtime calls (nvcc --default-stream per-thread,
// or CUDA_API_PER_THREAD_DEFAULT_STREAM, renames calls to *_ptds / *_ptsz). Each is its plain
// call with the default stream meaning the calling thread's own. The rest are defined beside
// their plain forms.
#include <cuda.h>

#include "cudart/api.h"

namespace {
cudaStream_t own(cudaStream_t s) { return s ? s : cudaStreamPerThread; }
}  // namespace

extern "C" {

cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t e, cudaStream_t s, unsigned int f) {
    return cudaEventRecordWithFlags(e, own(s), f);
}
cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t* out, cudaGraph_t g,
                                                cudaGraphInstantiateParams* p) {
    return cudaGraphInstantiateWithParams(out, g, p);
}
cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t g, cudaStream_t s) {
    return cudaGraphUpload(g, own(s));
}
cudaError_t cudaMallocFromPoolAsync_ptsz(void** p, size_t n, cudaMemPool_t pool, cudaStream_t s) {
    return cudaMallocFromPoolAsync(p, n, pool, own(s));
}
cudaError_t cudaMemPrefetchAsync_ptsz(const void* p, size_t n, cudaMemLocation l, unsigned int f,
                                      cudaStream_t s) {
    return cudaMemPrefetchAsync(p, n, l, f, own(s));
}
cudaError_t cudaMemcpy2DAsync_ptsz(void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h,
                                   cudaMemcpyKind k, cudaStream_t st) {
    return cudaMemcpy2DAsync(d, dp, s, sp, w, h, k, own(st));
}
cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms* p, cudaStream_t s) {
    return cudaMemcpy3DAsync(p, own(s));
}
cudaError_t cudaMemset2DAsync_ptsz(void* d, size_t p, int v, size_t w, size_t h, cudaStream_t s) {
    return cudaMemset2DAsync(d, p, v, w, h, own(s));
}
cudaError_t cudaMemset3DAsync_ptsz(cudaPitchedPtr p, int v, cudaExtent e, cudaStream_t s) {
    return cudaMemset3DAsync(p, v, e, own(s));
}
cudaError_t cudaMemset3D_ptds(cudaPitchedPtr p, int v, cudaExtent e) {
    return cudaMemset3D(p, v, e);
}
cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t s, void* p, size_t n, unsigned int f) {
    return cudaStreamAttachMemAsync(own(s), p, n, f);
}
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t s, cudaStreamCaptureStatus* st,
                                          unsigned long long* id, cudaGraph_t* g,
                                          const cudaGraphNode_t** d, const cudaGraphEdgeData** e,
                                          size_t* n) {
    return cudaStreamGetCaptureInfo(own(s), st, id, g, d, e, n);
}
cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t s, int* d) {
    return cudaStreamGetDevice(own(s), d);
}
cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t s, unsigned int* f) {
    return cudaStreamGetFlags(own(s), f);
}
cudaError_t cudaStreamGetId_ptsz(cudaStream_t s, unsigned long long* id) {
    return cudaStreamGetId(own(s), id);
}
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t s, int* p) {
    return cudaStreamGetPriority(own(s), p);
}

CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                             unsigned by, unsigned bz, unsigned shared, CUstream s, void** params,
                             void** extra) {
    return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s ? s : CU_STREAM_PER_THREAD, params,
                          extra);
}
CUresult cuStreamSynchronize_ptsz(CUstream s) {
    return cuStreamSynchronize(s ? s : CU_STREAM_PER_THREAD);
}
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr d, const void* s, size_t n) {
    return cuMemcpyHtoD(d, s, n);
}
CUresult cuMemcpyDtoH_v2_ptds(void* d, CUdeviceptr s, size_t n) { return cuMemcpyDtoH(d, s, n); }
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr d, CUdeviceptr s, size_t n) {
    return cuMemcpyDtoD(d, s, n);
}

}  // extern "C"
