// SHA-256 (FIPS 180-4), for the keys of the program build cache. A cryptographic hash because a
// grading machine may share one cache between submissions: with a weak hash one student could
// craft a source whose key collides with another's and have that one's binary run instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cudalab::programs {

class Sha256 {
  public:
    Sha256();
    void update(const void* data, std::size_t size);
    void update(std::string_view s) { update(s.data(), s.size()); }
    // A length-prefixed field, so that ("ab","c") and ("a","bc") hash differently.
    void field(std::string_view s);
    std::string hex();  // finishes; the object is spent afterwards

  private:
    void block(const std::uint8_t* p);
    std::uint32_t h_[8];
    std::uint8_t buf_[64];
    std::size_t used_ = 0;
    std::uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view data);

}  // namespace cudalab::programs
