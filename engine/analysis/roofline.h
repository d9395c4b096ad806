// The roofline model: attainable FLOP/s = min(peak FLOP/s, arithmetic intensity x peak bandwidth).
// On a GPU the peaks are the device's measured ones; without one, a modelled sm_90 (H100 SXM
// datasheet: 67 TFLOP/s FP32, 3.35 TB/s HBM3).
#pragma once

#include <algorithm>
#include <string>

namespace cudalab::analysis {

struct Roofline {
    std::string device;
    double peak_flops = 0;             // FLOP/s
    double peak_bytes_per_second = 0;  // B/s
    double ridge() const {
        return peak_bytes_per_second > 0 ? peak_flops / peak_bytes_per_second : 0;
    }
    double attainable(double intensity) const {
        return std::min(peak_flops, intensity * peak_bytes_per_second);
    }
    bool memory_bound(double intensity) const { return intensity < ridge(); }
};

inline Roofline modelled_sm90() { return {"modelled sm_90 (H100 SXM datasheet)", 67e12, 3.35e12}; }

}  // namespace cudalab::analysis
