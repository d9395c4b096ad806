#include "runtime/runtime.h"

#include <cstdio>

namespace cudalab {

std::string Dim3::str() const {
    char text[48];  // snprintf: GCC 12 warns falsely (-Wrestrict) on the operator+ chain here
    std::snprintf(text, sizeof text, "(%u,%u,%u)", x, y, z);
    return text;
}

Runtime::Runtime(std::unique_ptr<Backend> backend) : backend_(std::move(backend)) {}

Runtime::~Runtime() { release_all(); }

void Runtime::release_all() {
    for (DevicePtr p : allocations_) backend_->release(p);
    allocations_.clear();
}

}  // namespace cudalab
