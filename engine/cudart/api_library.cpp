// The library API of CUDA 12 and later (cudaLibrary*/cuLibrary*, cudaKernel_t/CUkernel): a library
// is a module loaded without a context, whose kernels are handles any context may launch. Here
// there is one address space and a module serves every device, so a library is a driver module
// (api_driver.cpp loads it), and a kernel handle is the module's function, registered as the
// driver's functions are: cuLaunchKernel and cudaLaunchKernel both take it.
#include <cuda.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "cudart/api.h"
#include "cudart/program_link.h"

using namespace cudalab;
using namespace cudalab::cudart;

namespace {

struct Library {
    CUmodule module = nullptr;
    std::map<std::string, Function*> kernels;  // handed out: one handle per name
};

std::map<const Library*, std::unique_ptr<Library>>& libraries() {
    static std::map<const Library*, std::unique_ptr<Library>> all;
    return all;
}

Library* library_of(const void* handle) {
    auto it = libraries().find(static_cast<const Library*>(handle));
    return it == libraries().end() ? nullptr : it->second.get();
}

Function* kernel_of(const void* handle) {
    auto it = Runtime::get().functions.find(handle);
    return it == Runtime::get().functions.end() ? nullptr : it->second.get();
}

CUresult load(CUlibrary* library, CUresult loaded, CUmodule module) {
    if (loaded != CUDA_SUCCESS) return loaded;
    auto l = std::make_unique<Library>();
    l->module = module;
    *library = reinterpret_cast<CUlibrary>(l.get());
    libraries()[l.get()] = std::move(l);
    return CUDA_SUCCESS;
}

CUresult get_kernel(CUkernel* kernel, CUlibrary library, const char* name) {
    Library* l = library_of(library);
    if (!kernel || !l || !name) return CUDA_ERROR_INVALID_VALUE;
    if (auto it = l->kernels.find(name); it != l->kernels.end()) {
        *kernel = reinterpret_cast<CUkernel>(it->second);
        return CUDA_SUCCESS;
    }
    CUfunction f = nullptr;
    if (CUresult e = cuModuleGetFunction(&f, l->module, name)) return e;
    l->kernels[name] = reinterpret_cast<Function*>(f);
    *kernel = reinterpret_cast<CUkernel>(f);
    return CUDA_SUCCESS;
}

// The module's emulator (the module serves every device alike).
emu::Emulator* emulator_of(Library* l) {
    Runtime& rt = Runtime::get();
    std::string error;
    return rt.emulator_for(*reinterpret_cast<Module*>(l->module), rt.current_device(), &error);
}

CUresult kernel_count(unsigned* count, CUlibrary library) {
    Library* l = library_of(library);
    if (!count || !l) return CUDA_ERROR_INVALID_VALUE;
    emu::Emulator* e = emulator_of(l);
    *count = e ? unsigned(e->kernel_names().size()) : 0;
    return CUDA_SUCCESS;
}

CUresult enumerate_kernels(CUkernel* kernels, unsigned count, CUlibrary library) {
    Library* l = library_of(library);
    if (!kernels || !l) return CUDA_ERROR_INVALID_VALUE;
    emu::Emulator* e = emulator_of(l);
    if (!e) return CUDA_ERROR_INVALID_VALUE;
    const auto names = e->kernel_names();
    for (unsigned i = 0; i < count && i < names.size(); ++i)
        if (CUresult r = get_kernel(&kernels[i], library, names[i].c_str())) return r;
    return CUDA_SUCCESS;
}

CUresult get_managed(CUdeviceptr* address, size_t* bytes, CUlibrary library, const char* name) {
    Library* l = library_of(library);
    if (!l || !name) return CUDA_ERROR_INVALID_VALUE;
    emu::Emulator* e = emulator_of(l);
    const auto* m = reinterpret_cast<Module*>(l->module);
    auto it = m->managed_variables.find(name);
    auto s = e ? e->symbol(name) : std::nullopt;
    // A __managed__ variable only: a __device__ one is not managed memory.
    if (it == m->managed_variables.end() || !s) return CUDA_ERROR_NOT_FOUND;
    if (address) *address = it->second;
    if (bytes) *bytes = s->size;
    return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

// [SECTION] Driver API
// -------------------------------------------------------------------------------

// partly: JIT and library options are accepted and not used
CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option*, void**,
                           unsigned int, CUlibraryOption*, void**, unsigned int) {
    CUDALAB_API("cuLibraryLoadData");
    if (!library || !code) return CUDA_ERROR_INVALID_VALUE;
    CUmodule m = nullptr;
    const CUresult e = cuModuleLoadDataEx(&m, code, 0, nullptr, nullptr);
    return load(library, e, m);
}

// partly: JIT and library options are accepted and not used
CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* path, CUjit_option*, void**,
                               unsigned int, CUlibraryOption*, void**, unsigned int) {
    CUDALAB_API("cuLibraryLoadFromFile");
    if (!library || !path) return CUDA_ERROR_INVALID_VALUE;
    CUmodule m = nullptr;
    const CUresult e = cuModuleLoad(&m, path);
    return load(library, e, m);
}

CUresult cuLibraryUnload(CUlibrary library) {
    CUDALAB_API("cuLibraryUnload");
    Library* l = library_of(library);
    if (!l) return CUDA_ERROR_INVALID_VALUE;
    // The module stays: kernel handles the program still holds keep naming its code.
    libraries().erase(l);
    return CUDA_SUCCESS;
}

CUresult cuLibraryGetKernel(CUkernel* kernel, CUlibrary library, const char* name) {
    CUDALAB_API("cuLibraryGetKernel");
    return get_kernel(kernel, library, name);
}

CUresult cuLibraryGetKernelCount(unsigned int* count, CUlibrary library) {
    CUDALAB_API("cuLibraryGetKernelCount");
    return kernel_count(count, library);
}

CUresult cuLibraryEnumerateKernels(CUkernel* kernels, unsigned int count, CUlibrary library) {
    CUDALAB_API("cuLibraryEnumerateKernels");
    return enumerate_kernels(kernels, count, library);
}

CUresult cuLibraryGetModule(CUmodule* module, CUlibrary library) {
    CUDALAB_API("cuLibraryGetModule");
    Library* l = library_of(library);
    if (!module || !l) return CUDA_ERROR_INVALID_VALUE;
    *module = l->module;
    return CUDA_SUCCESS;
}

CUresult cuLibraryGetGlobal(CUdeviceptr* address, size_t* bytes, CUlibrary library,
                            const char* name) {
    CUDALAB_API("cuLibraryGetGlobal");
    Library* l = library_of(library);
    if (!l) return CUDA_ERROR_INVALID_VALUE;
    return cuModuleGetGlobal(address, bytes, l->module, name);
}

CUresult cuLibraryGetManaged(CUdeviceptr* address, size_t* bytes, CUlibrary library,
                             const char* name) {
    CUDALAB_API("cuLibraryGetManaged");
    return get_managed(address, bytes, library, name);
}

CUresult cuKernelGetFunction(CUfunction* function, CUkernel kernel) {
    CUDALAB_API("cuKernelGetFunction");
    if (!function || !kernel_of(kernel)) return CUDA_ERROR_INVALID_VALUE;
    *function = reinterpret_cast<CUfunction>(kernel);  // one context per device: the same code
    return CUDA_SUCCESS;
}

CUresult cuKernelGetLibrary(CUlibrary* library, CUkernel kernel) {
    CUDALAB_API("cuKernelGetLibrary");
    if (!library) return CUDA_ERROR_INVALID_VALUE;
    for (const auto& [key, l] : libraries())
        for (const auto& [name, f] : l->kernels)
            if (f == reinterpret_cast<Function*>(kernel)) {
                *library = reinterpret_cast<CUlibrary>(l.get());
                return CUDA_SUCCESS;
            }
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuKernelGetAttribute(int* value, CUfunction_attribute attr, CUkernel kernel, CUdevice) {
    CUDALAB_API("cuKernelGetAttribute");
    if (!kernel_of(kernel)) return CUDA_ERROR_INVALID_HANDLE;
    return cuFuncGetAttribute(value, attr, reinterpret_cast<CUfunction>(kernel));
}

// partly: the attribute is the kernel's on every device, whichever device is named
CUresult cuKernelSetAttribute(CUfunction_attribute attr, int value, CUkernel kernel, CUdevice) {
    CUDALAB_API("cuKernelSetAttribute");
    if (!kernel_of(kernel)) return CUDA_ERROR_INVALID_HANDLE;
    return CUresult(cudaFuncSetAttribute(kernel, cudaFuncAttribute(attr), value));
}

CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice device) {
    CUDALAB_API("cuKernelSetCacheConfig");
    if (!kernel_of(kernel)) return CUDA_ERROR_INVALID_HANDLE;
    if (device < 0 || device >= rt.device_count) return CUDA_ERROR_INVALID_DEVICE;
    return CUresult(cudaFuncSetCacheConfig(kernel, cudaFuncCache(config)));
}

// The kernel's name as its module has it (mangled, for a C++ kernel), in memory the program reads
// and that lives as long as the process.
CUresult cuKernelGetName(const char** name, CUkernel kernel) {
    CUDALAB_API("cuKernelGetName");
    Function* f = kernel_of(kernel);
    if (!name || !f) return CUDA_ERROR_INVALID_VALUE;
    static std::map<const Function*, void*> names;
    auto it = names.find(f);
    if (it == names.end()) {
        void* text = link::share(f->entry.size() + 1);
        if (!text) return CUDA_ERROR_OUT_OF_MEMORY;
        std::memcpy(text, f->entry.c_str(), f->entry.size() + 1);
        it = names.emplace(f, text).first;
    }
    *name = static_cast<const char*>(it->second);
    return CUDA_SUCCESS;
}

// [SECTION] Runtime API
// ------------------------------------------------------------------------------

// partly: JIT and library options are accepted and not used
cudaError_t cudaLibraryLoadData(cudaLibrary_t* library, const void* code, cudaJitOption*, void**,
                                unsigned int, cudaLibraryOption*, void**, unsigned int) {
    CUDALAB_API("cudaLibraryLoadData");
    if (cudaError_t e = device_gate()) return fail(e);
    return result(cuLibraryLoadData(reinterpret_cast<CUlibrary*>(library), code, nullptr, nullptr,
                                    0, nullptr, nullptr, 0));
}

// partly: JIT and library options are accepted and not used
cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t* library, const char* path, cudaJitOption*,
                                    void**, unsigned int, cudaLibraryOption*, void**,
                                    unsigned int) {
    CUDALAB_API("cudaLibraryLoadFromFile");
    if (cudaError_t e = device_gate()) return fail(e);
    return result(cuLibraryLoadFromFile(reinterpret_cast<CUlibrary*>(library), path, nullptr,
                                        nullptr, 0, nullptr, nullptr, 0));
}

cudaError_t cudaLibraryUnload(cudaLibrary_t library) {
    CUDALAB_API("cudaLibraryUnload");
    return result(cuLibraryUnload(reinterpret_cast<CUlibrary>(library)));
}

cudaError_t cudaLibraryGetKernel(cudaKernel_t* kernel, cudaLibrary_t library, const char* name) {
    CUDALAB_API("cudaLibraryGetKernel");
    // CUDA_ERROR_NOT_FOUND and cudaErrorSymbolNotFound are both 500.
    return result(get_kernel(reinterpret_cast<CUkernel*>(kernel),
                             reinterpret_cast<CUlibrary>(library), name));
}

cudaError_t cudaLibraryGetKernelCount(unsigned int* count, cudaLibrary_t library) {
    CUDALAB_API("cudaLibraryGetKernelCount");
    return result(kernel_count(count, reinterpret_cast<CUlibrary>(library)));
}

cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t* kernels, unsigned int count,
                                        cudaLibrary_t library) {
    CUDALAB_API("cudaLibraryEnumerateKernels");
    return result(enumerate_kernels(reinterpret_cast<CUkernel*>(kernels), count,
                                    reinterpret_cast<CUlibrary>(library)));
}

cudaError_t cudaLibraryGetGlobal(void** address, size_t* bytes, cudaLibrary_t library,
                                 const char* name) {
    CUDALAB_API("cudaLibraryGetGlobal");
    CUdeviceptr p = 0;
    const CUresult e = cuLibraryGetGlobal(&p, bytes, reinterpret_cast<CUlibrary>(library), name);
    if (e == CUDA_SUCCESS && address) *address = reinterpret_cast<void*>(p);
    return result(e);
}

cudaError_t cudaLibraryGetManaged(void** address, size_t* bytes, cudaLibrary_t library,
                                  const char* name) {
    CUDALAB_API("cudaLibraryGetManaged");
    CUdeviceptr p = 0;
    const CUresult e = get_managed(&p, bytes, reinterpret_cast<CUlibrary>(library), name);
    if (e == CUDA_SUCCESS && address) *address = reinterpret_cast<void*>(p);
    return result(e);
}

cudaError_t cudaGetKernel(cudaKernel_t* kernel, const void* entry) {
    CUDALAB_API("cudaGetKernel");
    if (!kernel) return fail(cudaErrorInvalidValue);
    // The stub of a kernel the program registered is already the key of its function.
    if (!kernel_of(entry)) return fail(cudaErrorInvalidDeviceFunction);
    *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(entry));
    return cudaSuccess;
}

// partly: the attribute is the kernel's on every device, whichever device is named
cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, cudaFuncAttribute attr, int value,
                                            int device) {
    CUDALAB_API("cudaKernelSetAttributeForDevice");
    if (device < 0 || device >= rt.device_count) return fail(cudaErrorInvalidDevice);
    if (!kernel_of(kernel)) return fail(cudaErrorInvalidDeviceFunction);
    return cudaFuncSetAttribute(kernel, attr, value);
}

}  // extern "C"
