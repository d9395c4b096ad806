// The grid view's data: every block of the launch as a tile, placed as the programmer pictures
// the grid (x across, y down; z slices stacked), with its modelled SM, its wave of residency and
// whether it was traced in full. A 1D grid wraps into rows that fit the panel.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/trace.h"

namespace cudalab::viewmodel {

struct GridLayout {
    std::uint32_t columns = 1, rows = 1;
    float tile = 16;  // side of a tile, in the units the caller measured with
};

struct GridModel {
    std::uint32_t dims[3] = {1, 1, 1};
    std::uint32_t blocks = 0;
    std::uint32_t threads_per_block = 0;
    std::uint32_t num_sms = 0;
    std::uint32_t waves = 0;
    std::vector<std::uint8_t> traced;  // per block: 1 when it has detail events

    static GridModel build(const Trace& trace);
    bool is_1d() const { return dims[1] == 1 && dims[2] == 1; }

    // The largest tile (between min_tile and max_tile) that fits `width` x `height`; when even
    // min_tile does not fit, the rows overflow and the caller scrolls.
    GridLayout layout(float width, float height, float min_tile, float max_tile) const;
    // The block at a tile, or -1 (past the last block of a wrapped 1D grid).
    std::int64_t block_at(const GridLayout& layout, std::uint32_t column, std::uint32_t row) const;
    void tile_of(const GridLayout& layout, std::uint32_t block, std::uint32_t* column,
                 std::uint32_t* row) const;
};

}  // namespace cudalab::viewmodel
