#include "viewmodel/grid_model.h"

#include <algorithm>
#include <cmath>

namespace cudalab::viewmodel {

GridModel GridModel::build(const Trace& trace) {
    GridModel g;
    for (int i = 0; i < 3; ++i) g.dims[i] = std::max<std::uint32_t>(1, trace.kernel.grid[i]);
    g.blocks = g.dims[0] * g.dims[1] * g.dims[2];
    g.threads_per_block = trace.kernel.block[0] * trace.kernel.block[1] * trace.kernel.block[2];
    g.num_sms = trace.kernel.num_sms;
    for (std::uint32_t w : trace.block_wave) g.waves = std::max(g.waves, w + 1);
    g.traced.assign(g.blocks, 0);
    for (std::uint32_t b : trace.detail_blocks)
        if (b < g.blocks) g.traced[b] = 1;
    return g;
}

GridLayout GridModel::layout(float width, float height, float min_tile, float max_tile) const {
    GridLayout l;
    if (blocks == 0) return l;
    if (!is_1d()) {
        l.columns = dims[0];
        l.rows = dims[1] * dims[2];
        float fit = std::min(width / float(l.columns), height / float(l.rows));
        l.tile = std::clamp(std::floor(fit), min_tile, max_tile);
        return l;
    }
    // 1D: try every column count, keep the one with the largest tile that fits.
    float best = 0;
    std::uint32_t best_columns = 1;
    const std::uint32_t max_columns = std::max<std::uint32_t>(
        1, std::min<std::uint32_t>(blocks, std::uint32_t(width / std::max(1.0f, min_tile))));
    for (std::uint32_t c = 1; c <= max_columns; ++c) {
        std::uint32_t r = (blocks + c - 1) / c;
        float t = std::min(width / float(c), height / float(r));
        if (t > best + 1e-3f) {
            best = t;
            best_columns = c;
        }
    }
    l.tile = std::clamp(std::floor(best), min_tile, max_tile);
    // With the tile clamped, use as many columns as fit so rows fill the width.
    l.columns =
        std::max<std::uint32_t>(1, std::min<std::uint32_t>(blocks, std::uint32_t(width / l.tile)));
    if (l.tile >= max_tile) l.columns = std::min(l.columns, std::max(best_columns, l.columns));
    l.rows = (blocks + l.columns - 1) / l.columns;
    return l;
}

std::int64_t GridModel::block_at(const GridLayout& l, std::uint32_t column,
                                 std::uint32_t row) const {
    if (column >= l.columns || row >= l.rows) return -1;
    if (!is_1d()) {
        // rows: y within each z slice, slices one below the other
        std::uint32_t z = row / dims[1], y = row % dims[1];
        return std::int64_t(column) +
               std::int64_t(dims[0]) * (std::int64_t(y) + std::int64_t(dims[1]) * z);
    }
    std::uint64_t b = std::uint64_t(row) * l.columns + column;
    return b < blocks ? std::int64_t(b) : -1;
}

void GridModel::tile_of(const GridLayout& l, std::uint32_t block, std::uint32_t* column,
                        std::uint32_t* row) const {
    if (!is_1d()) {
        *column = block % dims[0];
        *row = (block / dims[0]) % dims[1] + dims[1] * (block / (dims[0] * dims[1]));
        return;
    }
    *column = block % l.columns;
    *row = block / l.columns;
}

}  // namespace cudalab::viewmodel
