// The lesson model: what a lesson is (manifest entry + text + host side + exercise + solution) and
// the Session its host side runs against.
//
// A lesson's host side (lessons/NN-slug/lesson.cpp) has the same anatomy in every lesson:
//   CPU reference -> inputs (seeded, awkward sizes) -> launch -> validate -> performance checks.
// It registers itself with CUDALAB_LESSON("NN-slug", run_function).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/metrics.h"
#include "runtime/runtime.h"

namespace cudalab::lessons {

enum class CheckKind { correctness, performance };

struct Mismatch {
    std::size_t index = 0;
    std::string where;  // lesson's own coordinates when it gives them, e.g. "row 3, col 17"
    std::string expected;
    std::string actual;
    std::optional<Writer> writer;  // who stored it (emulator)
    bool writer_tracked = false;   // the backend records writers, so no writer means none wrote it
};

struct CheckResult {
    std::string name;
    CheckKind kind = CheckKind::correctness;
    bool passed = false;
    double value = 0;                  // correctness: mismatching elements; performance: the metric
    double threshold = 0;              // correctness: 0; performance: the bound
    std::string comparison = "<=";     // how value is held against threshold: "<=" or ">="
    std::string message;               // what happened, in words
    std::string advice;                // what to try when it failed
    std::vector<Mismatch> mismatches;  // first few
    double points = 1;                 // from the manifest ([lesson.points]); default 1
    bool fault = false;  // the kernel faulted or could not launch (message holds the diagnostic)
    bool timed = false;  // measured on a GPU (varies run to run), not a deterministic metric
    // false: the figure was taken on a wrong result, so reports show "not measured"
    bool measured = true;
    // The launch whose run this check measured (index into CheckReport::launches): correctness
    // checks the launch just before them, performance checks the one the lesson named with
    // Session::measure(). -1: none (the kernel faulted before any launch completed).
    int launch = -1;
};

// How a lesson lays a buffer out, so that the app draws it in its shape: an image of `cols` x
// `rows` pixels, a row-major matrix, or histogram bins (drawn as a heat map by count).
enum class ShapeKind { image, matrix, bins };
const char* shape_kind_name(ShapeKind k);

struct BufferShape {
    std::uint64_t address = 0, bytes = 0;  // the device allocation it describes
    std::uint32_t rows = 1, cols = 0;      // row-major; bins: one row of `cols` bins
    std::uint32_t element_bytes = 4;
    ShapeKind kind = ShapeKind::matrix;
    std::string name;  // as the lesson text calls it ("in", "bins")
    bool contains(std::uint64_t a) const { return a >= address && a < address + bytes; }
};

// One launch as the report lists it: the kernel, its shape and the deterministic figures of its
// trace (for graders and for validating the model against Nsight Compute).
struct LaunchSummary {
    std::string kernel;
    Dim3 grid, block;
    std::uint64_t thread_instructions = 0;
    std::uint64_t load_requests = 0, load_sectors = 0, store_requests = 0, store_sectors = 0;
    std::uint64_t shared_load_conflicts = 0, shared_store_conflicts = 0;
    std::uint64_t divergent_branches = 0;
    double branch_efficiency = 1;
};

// What one launch came to: the scaffolding every C++ lesson used to define for itself. `launched`
// false: it faulted or could not launch, and the session recorded why (the lesson returns).
// `correct` is the lesson's to set from its check; `launch` is its index among the session's
// launches (what Session::measure() takes); `figures` are its trace's (zero when the backend
// traced none: then `traced` is false). A lesson that needs more derives from it.
struct LaunchOutcome {
    bool launched = false;
    bool correct = false;
    int launch = -1;
    bool traced = false;
    LaunchStats stats;
    analysis::KernelFigures figures;
};

struct Tolerance {
    double atol = 0;
    double rtol = 0;
    double ulps = 0;  // floats: also equal when at most this many units in the last place apart
};

// Everything a lesson's host side can do. Failures (faults, mismatches) become CheckResults; the
// lesson code stays linear and readable.
class Session {
  public:
    Session(Runtime& runtime, std::shared_ptr<const compiler::CompileResult> module,
            std::uint64_t seed);

    Runtime& runtime() { return runtime_; }
    std::mt19937_64& rng() { return rng_; }
    const compiler::CompileResult& module() const { return *module_; }

    // Seeded random inputs.
    std::vector<float> random_floats(std::size_t n, float lo = -1.f, float hi = 1.f);
    std::vector<int> random_ints(std::size_t n, int lo, int hi);
    std::vector<unsigned> random_uints(std::size_t n, unsigned lo, unsigned hi);

    // Device memory; new buffers are filled with 0xFF bytes (NaN for floats, -1 for ints) so an
    // element the kernel never wrote shows up as a mismatch.
    template <class T> DeviceBuffer<T> to_device(const std::vector<T>& host) {
        DeviceBuffer<T> b = alloc<T>(host.size());
        if (b.ptr) runtime_.upload(b, host);
        return b;
    }
    template <class T> DeviceBuffer<T> alloc(std::size_t count) {
        DeviceBuffer<T> b;
        Status s = runtime_.allocate(count, &b);
        if (!s.ok()) {
            fail_infrastructure(s);
            return {};
        }
        std::vector<unsigned char> fill(b.bytes(), 0xFF);
        runtime_.backend().copy_to_device(b.ptr, fill.data(), fill.size());
        return b;
    }
    template <class T> std::vector<T> from_device(const DeviceBuffer<T>& b) {
        std::vector<T> host;
        Status s = runtime_.download(&host, b);
        if (!s.ok()) fail_infrastructure(s);
        return host;
    }

    // Launches a kernel of the learner's module. Returns false (and records a failed correctness
    // check carrying the diagnostic) when it faults or cannot launch.
    template <class... Args>
    bool launch(const std::string& kernel, Dim3 grid, Dim3 block, std::uint32_t dynamic_shared,
                const Args&... args) {
        if (stopped_) return false;
        LaunchConfig config{grid, block, dynamic_shared};
        // A kernel declared with other parameter types than the lesson passes (a double* for a
        // float buffer) would read past its buffers or misread its scalars: say so instead.
        if (!check_signature(kernel, config, {argument_type(args)...})) return false;
        LaunchResult r = runtime_.launch(kernel, config, trace_options_, args...);
        return record_launch(kernel, config, std::move(r));
    }
    // launch(), and what it came to (LaunchOutcome).
    template <class... Args>
    LaunchOutcome launch_outcome(const std::string& kernel, Dim3 grid, Dim3 block,
                                 std::uint32_t dynamic_shared, const Args&... args) {
        LaunchOutcome o;
        if (!launch(kernel, grid, block, dynamic_shared, args...)) return o;
        o.launched = true;
        o.launch = launch_index();
        if (last_launch_) o.stats = last_launch_->stats;
        if (const analysis::KernelFigures* f = kernel_figures(o.launch)) {
            o.figures = *f;
            o.traced = true;
        }
        return o;
    }
    // The same with the arguments already packed and their device-side types spelled out (data
    // lessons build them at run time); `types` as argument_type() spells them.
    bool launch_packed(const std::string& kernel, const LaunchConfig& config,
                       const std::vector<KernelArg>& args, const std::vector<std::string>& types);

    // Correctness: compares element by element within `tolerance` (Tolerance{}: exactly); reports
    // the first few mismatches with who wrote them. `where` (optional) turns an index into the
    // lesson's coordinates.
    template <class T>
    bool check_close(const std::string& name, const DeviceBuffer<T>& buffer,
                     const std::vector<T>& expected, Tolerance tolerance,
                     std::function<std::string(std::size_t)> where = nullptr) {
        return check_values(name, buffer, expected, tolerance, std::move(where));
    }

    // A performance figure means something only when the launch it was measured on computed the
    // right result: an empty kernel is fast. When it did not, the check fails saying so.
    struct MeasuredOn {
        bool correct = true;
        std::string result;     // what was wrong, e.g. "the total" ("..., but the total is wrong")
        std::string fix_first;  // the advice in that case
    };
    bool check_at_most(const std::string& name, double value, double threshold,
                       const std::string& message, const std::string& advice,
                       const MeasuredOn& measured_on);
    bool check_at_least(const std::string& name, double value, double threshold,
                        const std::string& message, const std::string& advice,
                        const MeasuredOn& measured_on);

    // Coalescing, judged by bytes moved against the bytes the data needs: `moved` 32-byte sectors
    // of global memory (reads or writes, atomics included) over the launches measured, against
    // `needed`, what a coalesced kernel moves for the same data (coalesced_sectors below). Extra
    // cheap requests only add sectors, so nothing can dilute it; a vectorised kernel moves the
    // same sectors as a scalar one and passes. The check's value is moved / needed.
    bool check_sectors_moved(const std::string& name, std::uint64_t moved, std::uint64_t needed,
                             const std::string& over, const std::string& advice,
                             const MeasuredOn& measured_on);

    // Performance: a deterministic metric against a bound.
    bool check_at_most(const std::string& name, double value, double threshold,
                       const std::string& message, const std::string& advice);
    bool check_at_least(const std::string& name, double value, double threshold,
                        const std::string& message, const std::string& advice);
    void add_check(CheckResult check);
    // What to try, for the check named `name` when it failed and says nothing yet (a data
    // lesson's [[compare]] advice).
    void advise(const std::string& name, const std::string& advice);
    // The performance checks that follow measure launch `index` (launch_index() right after it),
    // not the last one: the app opens on the launch a failing check measured, and the report
    // names it. Without it a check is attributed to the last launch before it.
    void measure(int index) { measured_launch_ = index; }
    // The index (into launches()) of the last launch that completed; -1 before any.
    int launch_index() const { return int(launches_.size()) - 1; }
    // For a check summed over several launches: the launch where what it counts is worst (the
    // most excess), the one the app shows for it. see() after each launch, measure(launch) before
    // the check.
    struct WorstLaunch {
        int launch = -1;
        double excess = 0;
        void see(int index, double value) {
            if (launch < 0 || value > excess) {
                launch = index;
                excess = value;
            }
        }
    };
    // Declares the shape of a buffer for the views (see BufferShape). Costs nothing otherwise.
    template <class T>
    void shape(const DeviceBuffer<T>& buffer, std::uint32_t rows, std::uint32_t cols,
               ShapeKind kind, std::string name = {}) {
        if (!buffer.ptr) return;
        shapes_.push_back(BufferShape{buffer.ptr, buffer.bytes(), rows, cols,
                                      std::uint32_t(sizeof(T)), kind, std::move(name)});
    }
    void shape(BufferShape shape) {
        if (shape.address) shapes_.push_back(std::move(shape));
    }
    const std::vector<BufferShape>& shapes() const { return shapes_; }
    // Shared memory read before any thread wrote it, in the last launch: the correctness check
    // named `launch_name` fails, saying so (a diagnostic never adds a check, so every submission
    // gets the same set of checks). The emulator starts
    // shared memory at 0, which can make such a kernel look right; on a GPU the slot holds
    // whatever was there before. Returns true when every read was of written memory.
    bool check_shared_initialised(const std::string& launch_name, const std::string& advice);

    // Timed runs (GPU backends only): warm-up, repeats timed with events, the median. On the
    // emulator this returns nothing and logs that timed checks need a GPU.
    template <class... Args>
    std::optional<TimedResult> time_kernel(const std::string& kernel, Dim3 grid, Dim3 block,
                                           std::uint32_t dynamic_shared, const Args&... args) {
        if (stopped_) return std::nullopt;
        std::vector<KernelArg> packed;
        (packed.push_back(Runtime::pack(args)), ...);
        return record_timing(kernel,
                             runtime_.backend().time_launch(
                                 kernel, LaunchConfig{grid, block, dynamic_shared}, packed, 3, 20));
    }
    std::optional<TimedResult> time_packed(const std::string& kernel, const LaunchConfig& config,
                                           const std::vector<KernelArg>& args) {
        if (stopped_) return std::nullopt;
        return record_timing(kernel, runtime_.backend().time_launch(kernel, config, args, 3, 20));
    }
    // True on a GPU backend, unless CUDALAB_NO_TIMING is set (profiling runs leave timing out).
    bool has_timing();
    // Achieved bandwidth (bytes moved / median time) as a fraction of the device's measured copy
    // bandwidth; achieved FLOP/s as a fraction of its measured FMA rate.
    bool check_bandwidth(const std::string& name, double bytes_moved, const TimedResult& t,
                         double min_fraction, const std::string& advice);
    bool check_flops(const std::string& name, double flops, const TimedResult& t,
                     double min_fraction, const std::string& advice);
    std::optional<DevicePeakFigures> device_peak();
    // cuBLAS SGEMM on the same device (GPU only; logs and returns nothing elsewhere).
    std::optional<TimedResult> reference_sgemm(int n);

    // The integer a learner's file sets with `__device__ int NAME = VALUE;` (e.g. the block size a
    // lesson asks them to choose), read from the compiled module; nothing if there is none.
    std::optional<long long> module_integer(const std::string& name) const;

    // The whole-kernel figures of launch `index` (analysis::analyze of its trace), what a
    // performance check sums over launches; null when the backend traced none.
    const analysis::Figures* figures(int index) const {
        const analysis::KernelFigures* k = kernel_figures(index);
        return k ? &k->total : nullptr;
    }
    // The same per source line too (analysis::analyze).
    const analysis::KernelFigures* kernel_figures(int index) const {
        return index >= 0 && index < int(figures_.size()) && figures_[std::size_t(index)]
                   ? &*figures_[std::size_t(index)]
                   : nullptr;
    }
    // The last successful launch (trace, stats), for performance checks.
    const LaunchResult* last_launch() const { return last_launch_ ? &*last_launch_ : nullptr; }
    // Totals over every launch of this session.
    const LaunchStats& totals() const { return totals_; }
    void set_trace_options(TraceOptions options) { trace_options_ = std::move(options); }

    const std::vector<CheckResult>& checks() const { return checks_; }
    const std::vector<LaunchSummary>& launches() const { return launches_; }
    // The trace of every completed launch, parallel to launches() (null entries: not traced).
    const std::vector<std::shared_ptr<const Trace>>& traces() const { return traces_; }
    const std::string& printf_output() const { return printf_output_; }
    // True once a launch faulted: later launches would only repeat the diagnostic.
    bool stopped() const { return stopped_; }
    std::vector<std::string>& log() { return log_; }  // informational lines ("n = 4099: ok")
    bool failed() const;

    // The C++ type an argument has on the device side: "float*" for a DeviceBuffer<float>, "int"
    // for an int; "" for a type the check does not know (then it is not compared).
    template <class T> static std::string argument_type(const DeviceBuffer<T>&) {
        const std::string t = scalar_type<T>();
        return t.empty() ? t : t + "*";
    }
    template <class T> static std::string argument_type(const T&) { return scalar_type<T>(); }

  private:
    template <class T> static std::string scalar_type() {
        if constexpr (std::is_same_v<T, float>) return "float";
        else if constexpr (std::is_same_v<T, double>) return "double";
        else if constexpr (std::is_same_v<T, int>) return "int";
        else if constexpr (std::is_same_v<T, unsigned>) return "unsigned int";
        else if constexpr (std::is_same_v<T, unsigned char>) return "unsigned char";
        else if constexpr (std::is_same_v<T, char>) return "char";
        else if constexpr (std::is_same_v<T, long long>) return "long long";
        else if constexpr (std::is_same_v<T, unsigned long long>) return "unsigned long long";
        else return "";
    }
    bool check_signature(const std::string& kernel, const LaunchConfig& config,
                         const std::vector<std::string>& passed);
    bool record_launch(const std::string& kernel, const LaunchConfig& config, LaunchResult r);
    std::optional<TimedResult> record_timing(const std::string& kernel, TimedResult t);
    bool check_fraction(const std::string& name, double achieved, double peak, const char* unit,
                        const TimedResult& t, double min_fraction, const std::string& advice);
    void fail_infrastructure(const Status& s);
    template <class T>
    bool check_values(const std::string& name, const DeviceBuffer<T>& buffer,
                      const std::vector<T>& expected, Tolerance tolerance,
                      std::function<std::string(std::size_t)> where);
    static std::string format_value(double v, bool is_float);
    // Units in the last place between two floats (bytes 4) or doubles (8); infinite across NaN.
    static double ulps_apart(double a, double b, std::size_t bytes);

    Runtime& runtime_;
    std::shared_ptr<const compiler::CompileResult> module_;
    std::mt19937_64 rng_;
    TraceOptions trace_options_;
    std::optional<LaunchResult> last_launch_;
    LaunchStats totals_;
    std::vector<CheckResult> checks_;
    std::vector<std::string> log_;
    std::string printf_output_;
    bool stopped_ = false;
    std::optional<DevicePeakFigures> peak_;
    std::vector<LaunchSummary> launches_;
    std::vector<std::shared_ptr<const Trace>> traces_;
    std::vector<std::optional<analysis::KernelFigures>> figures_;
    std::vector<BufferShape> shapes_;
    int measured_launch_ = -1;
    // Races between blocks found in launches whose result no check has compared yet: the next
    // correctness check fails with them (a diagnostic never adds a check).
    std::string pending_races_;
};

// The 32-byte sectors a coalesced kernel moves over a row-major array of `rows` rows of `width`
// elements of `element_bytes` each, when its warps take `segment` consecutive elements of a row at
// a time, starting at column 0, segment, 2 * segment, ... (buffers start on a 256-byte boundary).
// Rows that do not start on a sector boundary cost what they cost a good kernel too.
std::uint64_t coalesced_sectors(std::uint64_t rows, std::uint64_t width, std::uint64_t segment,
                                std::uint64_t element_bytes = 4);

using LessonRun = std::function<void(Session&)>;

// Registration (static, from each lessons/NN-slug/lesson.cpp).
struct HostSide {
    std::string id;
    LessonRun run;
};
std::vector<HostSide>& registered_host_sides();
struct Registrar {
    Registrar(const char* id, LessonRun run) {
        registered_host_sides().push_back({id, std::move(run)});
    }
};
#define CUDALAB_LESSON(id, run_function)                                                           \
    static ::cudalab::lessons::Registrar cudalab_lesson_registrar_ { id, run_function }

// ---- template definitions ----

template <class T>
bool Session::check_values(const std::string& name, const DeviceBuffer<T>& buffer,
                           const std::vector<T>& expected, Tolerance tolerance,
                           std::function<std::string(std::size_t)> where) {
    constexpr bool is_float = std::is_floating_point_v<T>;
    std::vector<T> got = from_device(buffer);
    CheckResult c;
    c.name = name;
    c.kind = CheckKind::correctness;
    std::size_t bad = 0;
    std::size_t n = std::min(got.size(), expected.size());
    for (std::size_t i = 0; i < n; ++i) {
        double e = double(expected[i]), a = double(got[i]);
        bool ok;
        if constexpr (is_float) {
            ok = (a == e) || (std::isnan(a) && std::isnan(e)) ||
                 (std::abs(a - e) <= tolerance.atol + tolerance.rtol * std::abs(e)) ||
                 (tolerance.ulps > 0 && ulps_apart(e, a, sizeof(T)) <= tolerance.ulps);
        } else {
            ok = expected[i] == got[i];
        }
        if (ok) continue;
        if (++bad <= 3) {  // a few: graders must not be handed the expected values
            Mismatch m;
            m.index = i;
            if (where) m.where = where(i);
            m.expected = format_value(e, is_float);
            m.actual = format_value(a, is_float);
            m.writer = runtime_.backend().last_writer(buffer.ptr + i * sizeof(T));
            m.writer_tracked = runtime_.backend().tracks_writers();
            c.mismatches.push_back(std::move(m));
        }
    }
    c.value = double(bad);
    c.threshold = 0;
    c.passed = bad == 0 && got.size() == expected.size();
    std::ostringstream msg;
    if (c.passed) msg << n << " of " << n << " elements match";
    else msg << bad << " of " << n << " elements differ";
    if (is_float && (tolerance.atol > 0 || tolerance.rtol > 0))
        msg << " (tolerance " << tolerance.atol << " + " << tolerance.rtol << "*|expected|)";
    if (is_float && tolerance.ulps > 0) msg << " (tolerance " << tolerance.ulps << " ulps)";
    c.message = msg.str();
    if (!pending_races_.empty()) {
        c.passed = false;
        c.value = std::max(c.value, 1.0);
        c.message += (c.mismatches.empty() ? ", but " : "; and ") + pending_races_;
        c.advice =
            "Blocks run at the same time on a GPU: give each block its own elements to write, and "
            "combine what several blocks contribute with atomicAdd or in a second kernel.";
        pending_races_.clear();
    }
    const bool passed = c.passed;
    add_check(std::move(c));
    return passed;
}

}  // namespace cudalab::lessons
