// The memory view's data: the global buffers a trace touched, each as cells of its element size in
// rows of one 128-byte line (four 32-byte sectors), with how often and from which step each cell
// was touched; and, per step, the current warp instruction's 32 lane addresses with the sectors
// and lines they fall in.
//
// The trace does not name buffers. A buffer is found as the union of the address ranges of the
// instructions that touch it (ranges of different allocations never overlap). It is named after
// the kernel parameter its address comes from, following the PTX back from the load or store
// (add, mad, cvta, mov ... to ld.param _param_N) to the N-th parameter in the source's signature;
// failing that, after the array indexed on the source line ("c[i] = a[i] + b[i]": stores to c,
// loads from a then b); failing that, "buffer 1", "buffer 2", ... by address.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/memory_rules.h"
#include "lessons/lesson.h"
#include "trace/trace.h"

namespace cudalab::viewmodel {

constexpr std::uint32_t kNoEvent = std::numeric_limits<std::uint32_t>::max();

struct MemoryRegion {
    std::string name;
    std::uint64_t first_address = 0;   // the lowest byte a traced access touched
    std::uint64_t begin = 0, end = 0;  // shown range, whole 128-byte lines
    std::uint32_t element_bytes = 4;   // the commonest access width
    bool loaded = false, stored = false, atomic = false;
    std::vector<std::uint32_t> source_lines;  // lines of the instructions that touch it
    // Per element of [begin, end): traced accesses, and the first event (index into
    // Trace::events) that touched it. Empty when the region is too large to keep per element.
    std::vector<std::uint32_t> touches;
    std::vector<std::uint32_t> first_event;
    std::uint32_t max_touches = 0;
    // The shape the lesson declared for this buffer (lessons::BufferShape): then the region is the
    // whole allocation and the view draws it `shape_rows` x `shape_cols`. 0: no shape, drawn in
    // 128-byte lines.
    std::uint32_t shape_rows = 0, shape_cols = 0;
    lessons::ShapeKind shape_kind = lessons::ShapeKind::matrix;
    std::string declared_name;  // the lesson's name for it
    bool shaped() const { return shape_cols != 0; }

    std::uint32_t elements_per_row() const { return 128 / element_bytes; }
    std::uint64_t rows() const { return (end - begin) / 128; }
    std::uint64_t elements() const { return (end - begin) / element_bytes; }
    // Element index counted from first_address (the buffer's start when block 0 was traced).
    std::int64_t index_of(std::uint64_t address) const {
        return (std::int64_t(address) - std::int64_t(first_address)) / std::int64_t(element_bytes);
    }
};

struct MemoryModel {
    std::vector<MemoryRegion> regions;  // by address
    int region_of(std::uint64_t address) const;
    // `shapes`: the lesson's declared buffer shapes (may be empty); a buffer with one is kept
    // whole.
    static MemoryModel build(const Trace& trace, std::string_view source,
                             const std::vector<lessons::BufferShape>& shapes = {});
};

// One warp instruction's memory access, ready to draw.
struct AccessView {
    bool valid = false;
    MemSpace space = MemSpace::global;
    MemOp op = MemOp::load;
    std::uint32_t bytes_per_lane = 4;
    std::uint32_t mask = 0;
    std::array<std::uint64_t, 32> address{};
    int region = -1;
    std::vector<std::uint64_t> sectors;  // 32-byte sector addresses touched, ascending, distinct
    std::vector<std::uint64_t> lines;    // 128-byte line addresses touched
    analysis::GlobalAccessCost cost;     // from the analysis (what the checks count)
    std::uint32_t source_line = 0;
    std::string instruction;  // PTX text
};

// The access of Trace::events[event_index], if it has one.
AccessView access_at(const Trace& trace, const MemoryModel& model, std::size_t event_index);

// The kernel parameter (0-based) the address of the memory instruction at `pc` is computed from,
// by following its address register back through the PTX of the same function; -1 if unknown.
int parameter_of_address(const Trace& trace, std::uint32_t pc);
// The parameter names of `kernel` as declared in the source: "k(const float* a, int n)" -> {a, n}.
std::vector<std::string> kernel_parameter_names(std::string_view source, const std::string& kernel);

// Array names indexed on a source line, split into those written (left of the assignment) and
// those read: "c[i] = a[i] + b[i];" -> stored {c}, loaded {a, b}; "x[i] += y[j]" -> x in both.
struct IndexedNames {
    std::vector<std::string> stored, loaded;
};
IndexedNames indexed_names(std::string_view line);

}  // namespace cudalab::viewmodel
