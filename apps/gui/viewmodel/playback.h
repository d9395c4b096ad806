// The playhead over one block's steps: play, pause, step, seek and speed. Pure state; the app
// calls advance() once per frame with the frame's duration.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudalab::viewmodel {

class Playback {
  public:
    // A new set of steps; the position is kept where it was, clamped into range.
    void reset(std::size_t steps);
    std::size_t steps() const { return steps_; }
    std::int64_t position() const { return position_; }  // 0 .. steps-1; -1 when there are none

    bool playing() const { return playing_; }
    void play();
    void pause() { playing_ = false; }
    void toggle() { playing_ ? pause() : play(); }

    double speed() const { return speed_; }  // steps per second
    void set_speed(double steps_per_second);

    // Each returns true when the position changed.
    bool seek(std::int64_t position);
    bool step(std::int64_t delta);
    bool advance(double seconds);

  private:
    std::size_t steps_ = 0;
    std::int64_t position_ = -1;
    bool playing_ = false;
    double speed_ = 30.0;
    double carry_ = 0.0;  // fractional steps not yet taken
};

}  // namespace cudalab::viewmodel
