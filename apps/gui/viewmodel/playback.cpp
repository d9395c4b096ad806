#include "viewmodel/playback.h"

#include <algorithm>
#include <cmath>

namespace cudalab::viewmodel {

void Playback::reset(std::size_t steps) {
    steps_ = steps;
    if (steps_ == 0) {
        position_ = -1;
        playing_ = false;
        return;
    }
    position_ = std::clamp<std::int64_t>(position_, 0, std::int64_t(steps_) - 1);
    carry_ = 0;
}

void Playback::play() {
    if (steps_ == 0) return;
    if (position_ >= std::int64_t(steps_) - 1) position_ = 0;  // play again from the start
    playing_ = true;
    carry_ = 0;
}

void Playback::set_speed(double steps_per_second) {
    speed_ = std::clamp(steps_per_second, 0.5, 100000.0);
}

bool Playback::seek(std::int64_t position) {
    if (steps_ == 0) return false;
    std::int64_t p = std::clamp<std::int64_t>(position, 0, std::int64_t(steps_) - 1);
    bool changed = p != position_;
    position_ = p;
    return changed;
}

bool Playback::step(std::int64_t delta) { return seek(position_ + delta); }

bool Playback::advance(double seconds) {
    if (!playing_ || steps_ == 0) return false;
    carry_ += seconds * speed_;
    const double whole = std::floor(carry_);
    if (whole < 1) return false;
    carry_ -= whole;
    const std::int64_t before = position_;
    seek(position_ + std::int64_t(whole));
    if (position_ >= std::int64_t(steps_) - 1) playing_ = false;  // stop at the end
    return position_ != before;
}

}  // namespace cudalab::viewmodel
