// CUDA arrays as the emulated runtime keeps them (api_texture.cpp): a device allocation laid out
// row by row, slice by slice (a layered array's layers and a cubemap's faces are its slices), with
// the channel format a texture or surface reads it in. The handle a program holds
// (cudaArray_t, CUarray) is the record's address in the device process, checked against the
// records before every use.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "emulator/texture.h"

namespace cudalab::cudart {

struct MipmappedArray;

struct Array {
    std::uint64_t base = 0;  // device address of element (0, 0, 0)
    cudaChannelFormatDesc desc{};
    cudaExtent extent{};  // as allocated (0 for the dimensions the shape lacks)
    unsigned flags = 0;   // cudaArrayLayered, cudaArrayCubemap, cudaArraySurfaceLoadStore, ...
    emu::TexelFormat format;
    emu::TextureLevel level;  // the layout: width x height x (depth, layers or faces)
    std::uint8_t dims = 1;
    int device = 0;
    const MipmappedArray* owner = nullptr;  // a mipmapped array's level: freed with it
};

// The live array a handle names, or null (a handle never made, or freed).
const Array* find_array(const void* handle);

// A copy's side that is a CUDA array, as a pitched pointer into its memory: what cudaMemcpy3D
// works on. `position` in elements of the array (x) and rows and slices (y, z); the extent's
// width from elements to bytes. cudaErrorInvalidResourceHandle for a handle that is no array,
// cudaErrorInvalidValue for a region outside it.
cudaError_t array_region(const void* handle, cudaPos position, cudaExtent* extent,
                         std::uint8_t** at, std::uint64_t* pitch, std::uint64_t* slice);

}  // namespace cudalab::cudart
