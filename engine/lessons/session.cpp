#include "lessons/lesson.h"

#include "analysis/metrics.h"
#include "backends/factory.h"
#include "base/hardware.h"
#include "compiler/compiler.h"
#include "ptx/parser.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <limits>
#include <memory>

namespace cudalab::lessons {

Session::Session(Runtime& runtime, std::shared_ptr<const compiler::CompileResult> module,
                 std::uint64_t seed)
    : runtime_(runtime), module_(std::move(module)), rng_(seed) {}

std::vector<float> Session::random_floats(std::size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng_);
    return v;
}

std::vector<int> Session::random_ints(std::size_t n, int lo, int hi) {
    std::uniform_int_distribution<int> d(lo, hi);
    std::vector<int> v(n);
    for (auto& x : v) x = d(rng_);
    return v;
}

std::vector<unsigned> Session::random_uints(std::size_t n, unsigned lo, unsigned hi) {
    std::uniform_int_distribution<unsigned> d(lo, hi);
    std::vector<unsigned> v(n);
    for (auto& x : v) x = d(rng_);
    return v;
}

namespace {

// The parameter types of a mangled kernel name, as C++ spells them with `const` and `__restrict__`
// dropped ("_Z9transposePKfPfii" -> {"float*", "float*", "int", "int"}); nothing for an
// unmangled (extern "C") name or one that does not demangle.
std::optional<std::vector<std::string>> parameter_types(const std::string& mangled) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> d(
        abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
    if (status != 0 || !d) return std::nullopt;
    const std::string s = d.get();
    const std::size_t open = s.find('('), close = s.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open)
        return std::nullopt;
    std::vector<std::string> types;
    std::string current;
    int depth = 0;
    auto finish = [&] {
        std::string t;
        std::istringstream words(current);
        std::string w;
        while (words >> w) {
            for (const char* drop : {"const", "__restrict__", "__restrict", "volatile"})
                for (std::size_t at; (at = w.find(drop)) != std::string::npos;)
                    w.erase(at, std::strlen(drop));
            if (w.empty()) continue;
            if (!t.empty() && w != "*" && w[0] != '*' && t.back() != '*') t += ' ';
            t += w;
        }
        if (!t.empty() && t != "void") types.push_back(t);
        current.clear();
    };
    for (std::size_t i = open + 1; i < close; ++i) {
        const char c = s[i];
        if (c == '<' || c == '(') ++depth;
        if (c == '>' || c == ')') --depth;
        if (c == ',' && depth == 0) {
            finish();
            continue;
        }
        current += c;
    }
    finish();
    return types;
}

}  // namespace

bool Session::check_signature(const std::string& kernel, const LaunchConfig& config,
                              const std::vector<std::string>& passed) {
    const compiler::KernelResources* k = module_ ? module_->kernel(kernel) : nullptr;
    if (!k) return true;  // the launch itself reports a missing kernel
    const auto declared = parameter_types(k->mangled_name);
    if (!declared) return true;
    std::ostringstream problem, fix;
    if (declared->size() != passed.size()) {
        problem << "kernel " << kernel << " is declared with " << declared->size() << " parameter"
                << (declared->size() == 1 ? "" : "s") << ", but the lesson passes "
                << passed.size();
        fix << "Keep the exercise's signature: the lesson's host side passes (";
        for (std::size_t i = 0; i < passed.size(); ++i)
            fix << (i ? ", " : "") << (passed[i].empty() ? "?" : passed[i]);
        fix << ").";
    } else {
        for (std::size_t i = 0; i < passed.size(); ++i) {
            if (passed[i].empty() || (*declared)[i] == passed[i]) continue;
            // Only plain types are compared: a template or struct parameter is the learner's
            // business.
            const std::string& d = (*declared)[i];
            if (d.find_first_of("<:") != std::string::npos) continue;
            problem << "parameter " << i + 1 << " of kernel " << kernel << " is declared `" << d
                    << "`, but the lesson passes "
                    << (passed[i].back() == '*'
                            ? "a buffer of " + passed[i].substr(0, passed[i].size() - 1) + " (`" +
                                  passed[i] + "`)"
                            : "a `" + passed[i] + "`");
            if (d.back() == '*' && passed[i].back() == '*')
                problem << ": the kernel would read and write its elements at the wrong size, past "
                           "the end of the buffer";
            fix << "Declare parameter " << i + 1 << " as `" << passed[i] << "`"
                << (passed[i].back() == '*'
                        ? " (or `const " + passed[i] + "` if the kernel only reads it)"
                        : "")
                << ", as the exercise does.";
            break;
        }
    }
    if (problem.str().empty()) return true;
    CheckResult c;
    c.name = "kernel " + kernel + " runs on grid " + config.grid.str() + " x block " +
             config.block.str();
    c.kind = CheckKind::correctness;
    c.passed = false;
    c.value = 1;
    c.fault = true;
    c.message = problem.str() + ".";
    c.advice = fix.str();
    add_check(std::move(c));
    stopped_ = true;
    return false;
}

bool Session::record_launch(const std::string& kernel, const LaunchConfig& config, LaunchResult r) {
    totals_.warp_instructions += r.stats.warp_instructions;
    totals_.thread_instructions += r.stats.thread_instructions;
    totals_.seconds += r.stats.seconds;
    for (auto& w : r.warnings) log_.push_back("warning: " + w);
    printf_output_ += r.printf_output;
    if (!r.status.ok()) {
        CheckResult c;
        c.name = "kernel " + kernel + " runs on grid " + config.grid.str() + " x block " +
                 config.block.str();
        c.kind = CheckKind::correctness;
        c.passed = false;
        c.value = 1;
        c.fault = true;
        c.message = r.status.message;
        add_check(std::move(c));
        stopped_ = true;
        return false;
    }
    if (r.global_races > 0)
        pending_races_ += (pending_races_.empty() ? "" : "; ") + std::string("the launch of ") +
                          kernel + " on grid " + config.grid.str() +
                          " has a race between blocks (" + std::to_string(r.global_races) +
                          (r.global_races == 1 ? " access" : " accesses") +
                          "): " + r.first_global_race;
    LaunchSummary summary;
    summary.kernel = kernel;
    summary.grid = config.grid;
    summary.block = config.block;
    summary.thread_instructions = r.stats.thread_instructions;
    std::optional<analysis::KernelFigures> figures;
    if (r.trace) {
        figures = analysis::analyze(*r.trace);
        const analysis::Figures& f = figures->total;
        summary.load_requests = f.global_load_requests;
        summary.load_sectors = f.global_load_sectors;
        summary.store_requests = f.global_store_requests;
        summary.store_sectors = f.global_store_sectors;
        summary.shared_load_conflicts = f.shared_load_conflicts;
        summary.shared_store_conflicts = f.shared_store_conflicts;
        summary.divergent_branches = f.divergent_branches;
        summary.branch_efficiency = f.branch_efficiency();
    }
    launches_.push_back(summary);
    traces_.push_back(r.trace);
    figures_.push_back(figures);
    last_launch_ = std::move(r);
    return true;
}

bool Session::launch_packed(const std::string& kernel, const LaunchConfig& config,
                            const std::vector<KernelArg>& args,
                            const std::vector<std::string>& types) {
    if (stopped_) return false;
    if (!check_signature(kernel, config, types)) return false;
    LaunchResult r = runtime_.backend().launch(kernel, config, args, trace_options_);
    return record_launch(kernel, config, std::move(r));
}

double Session::ulps_apart(double a, double b, std::size_t bytes) {
    if (std::isnan(a) || std::isnan(b)) return INFINITY;
    // Floats ordered as integers: the sign-magnitude bits turned into a monotonic scale.
    auto ordered = [bytes](double v) -> long long {
        if (bytes == 4) {
            const float f = float(v);
            std::int32_t i;
            std::memcpy(&i, &f, 4);
            return i < 0 ? (long long)(std::int32_t(0x80000000u) - i) : (long long)i;
        }
        std::int64_t i;
        std::memcpy(&i, &v, 8);
        return i < 0 ? (long long)(std::numeric_limits<std::int64_t>::min() - i) : (long long)i;
    };
    const long long x = ordered(a), y = ordered(b);
    return x > y ? double(x) - double(y) : double(y) - double(x);
}

void Session::fail_infrastructure(const Status& s) {
    CheckResult c;
    c.name = "device memory";
    c.passed = false;
    c.value = 1;
    c.message = s.message;
    add_check(std::move(c));
}

namespace {
// A performance check: `value` against `threshold` by `comparison` ("<=" or ">=").
CheckResult bounded(const std::string& name, double value, double threshold, const char* comparison,
                    bool passed, std::string message, std::string advice) {
    CheckResult c;
    c.name = name;
    c.kind = CheckKind::performance;
    c.value = value;
    c.threshold = threshold;
    c.comparison = comparison;
    c.passed = passed;
    c.message = std::move(message);
    c.advice = std::move(advice);
    return c;
}
}  // namespace

bool Session::check_at_most(const std::string& name, double value, double threshold,
                            const std::string& message, const std::string& advice) {
    add_check(bounded(name, value, threshold, "<=", value <= threshold, message, advice));
    return value <= threshold;
}

bool Session::check_at_least(const std::string& name, double value, double threshold,
                             const std::string& message, const std::string& advice) {
    add_check(bounded(name, value, threshold, ">=", value >= threshold, message, advice));
    return value >= threshold;
}

// A figure measured on a wrong result fails as "not measured", whatever its value: it means
// nothing (an empty kernel is fast), and showing it beside its bound would show a met bound on a
// FAIL line.
namespace {
CheckResult not_measured(const std::string& name, double threshold, const char* comparison,
                         const std::string& message, const Session::MeasuredOn& measured_on) {
    CheckResult c = bounded(name, std::nan(""), threshold, comparison, false,
                            "not measured: " + measured_on.result +
                                " is wrong, so the figure would mean nothing (" + message + ")",
                            measured_on.fix_first);
    c.measured = false;
    return c;
}
}  // namespace

bool Session::check_at_most(const std::string& name, double value, double threshold,
                            const std::string& message, const std::string& advice,
                            const MeasuredOn& measured_on) {
    if (measured_on.correct) return check_at_most(name, value, threshold, message, advice);
    add_check(not_measured(name, threshold, "<=", message, measured_on));
    return false;
}

bool Session::check_at_least(const std::string& name, double value, double threshold,
                             const std::string& message, const std::string& advice,
                             const MeasuredOn& measured_on) {
    if (measured_on.correct) return check_at_least(name, value, threshold, message, advice);
    add_check(not_measured(name, threshold, ">=", message, measured_on));
    return false;
}

std::uint64_t coalesced_sectors(std::uint64_t rows, std::uint64_t width, std::uint64_t segment,
                                std::uint64_t element_bytes) {
    if (segment == 0) return 0;
    std::uint64_t sectors = 0;
    for (std::uint64_t r = 0; r < rows; ++r)
        for (std::uint64_t c = 0; c < width; c += segment) {
            const std::uint64_t first = (r * width + c) * element_bytes;
            const std::uint64_t end = (r * width + std::min(width, c + segment)) * element_bytes;
            sectors += (end - 1) / hw::sector_bytes - first / hw::sector_bytes + 1;
        }
    return sectors;
}

bool Session::check_sectors_moved(const std::string& name, std::uint64_t moved,
                                  std::uint64_t needed, const std::string& over,
                                  const std::string& advice, const MeasuredOn& measured_on) {
    // Slack (10%) for warps whose lanes are on different passes of a loop the compiler unrolled
    // (lesson 02's solution moves 1.4% more than the minimum that way); a kernel whose warps
    // scatter moves 2 to 32 times what it needs.
    constexpr double kSlack = 1.10;
    const double ratio = needed ? double(moved) / double(needed) : (moved ? 1e9 : 0.0);
    char text[160];
    std::snprintf(text, sizeof text,
                  "%llu sectors of %u bytes moved where the data needs %llu (%.2fx), ",
                  (unsigned long long)moved, hw::sector_bytes, (unsigned long long)needed, ratio);
    return check_at_most(name, ratio, kSlack, text + over, advice, measured_on);
}

void Session::add_check(CheckResult check) {
    // A fault belongs to no completed launch; a performance check to the launch the lesson
    // measured; anything else to the launch just before it.
    if (check.launch < 0 && !check.fault)
        check.launch = check.kind == CheckKind::performance && measured_launch_ >= 0
                           ? measured_launch_
                           : launch_index();
    for (const auto& c : checks_)
        if (c.name == check.name) {
            // Two checks with one name would be ambiguous in grade reports: a lesson bug.
            check.name += " (" + std::to_string(checks_.size() + 1) + ")";
            break;
        }
    checks_.push_back(std::move(check));
}

void Session::advise(const std::string& name, const std::string& advice) {
    for (auto it = checks_.rbegin(); it != checks_.rend(); ++it)
        if (it->name == name) {
            if (!it->passed && it->advice.empty()) it->advice = advice;
            return;
        }
}

bool Session::check_shared_initialised(const std::string& launch_name, const std::string& advice) {
    if (!last_launch_ || last_launch_->uninitialised_shared_reads == 0) return true;
    const std::string why =
        last_launch_->first_uninitialised_shared_read +
        ". The emulator starts shared memory at 0, which can make this look right; on a GPU the "
        "slot holds garbage.";
    // The launch's own correctness check fails with the diagnostic: the set of checks stays the
    // same for every submission.
    for (auto it = checks_.rbegin(); it != checks_.rend(); ++it) {
        if (it->name != launch_name || it->kind != CheckKind::correctness) continue;
        it->passed = false;
        it->value = std::max(it->value, 1.0);
        it->message += "; and it read shared memory no thread had written: " + why;
        it->advice = advice;
        return false;
    }
    CheckResult c;  // no such check (a lesson bug): say so rather than lose the diagnostic
    c.name = launch_name;
    c.kind = CheckKind::correctness;
    c.passed = false;
    c.value = double(last_launch_->uninitialised_shared_reads);
    c.message = why;
    c.advice = advice;
    add_check(std::move(c));
    return false;
}

const char* shape_kind_name(ShapeKind k) {
    switch (k) {
    case ShapeKind::image: return "image";
    case ShapeKind::matrix: return "matrix";
    case ShapeKind::bins: return "bins";
    }
    return "matrix";
}

bool Session::failed() const {
    for (const auto& c : checks_)
        if (!c.passed) return true;
    return false;
}

std::string Session::format_value(double v, bool is_float) {
    char buf[64];
    if (!is_float) std::snprintf(buf, sizeof buf, "%.0f", v);
    else if (std::isnan(v)) return "nan";
    else std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

std::optional<TimedResult> Session::record_timing(const std::string& kernel, TimedResult t) {
    if (t.status.code == StatusCode::backend_unavailable) {
        log_.push_back("timed checks skipped: they need a GPU (--backend gpu)");
        return std::nullopt;
    }
    if (!t.status.ok()) {
        CheckResult c;
        c.name = "kernel " + kernel + " runs on the GPU (timed)";
        c.passed = false;
        c.fault = true;
        c.value = 1;
        c.message = t.status.message;
        add_check(std::move(c));
        stopped_ = true;
        return std::nullopt;
    }
    return t;
}

std::optional<TimedResult> Session::reference_sgemm(int n) {
    return record_timing("cublasSgemm", time_reference_sgemm(runtime_.backend(), n));
}

std::optional<long long> Session::module_integer(const std::string& name) const {
    ptx::ParseResult parsed = ptx::parse(module_->ptx);
    if (!parsed.ok) return std::nullopt;
    for (const auto& g : parsed.module.globals) {
        if (g.name != name || g.space != ptx::Space::global || g.init.empty()) continue;
        long long v = 0;
        std::size_t bytes = std::min<std::size_t>(g.init.size(), 8);
        for (std::size_t i = 0; i < bytes; ++i) v |= (long long)g.init[i] << (8 * i);
        if (bytes == 4) v = (long long)(std::int32_t)v;
        return v;
    }
    return std::nullopt;
}

bool Session::has_timing() {
    const char* off = std::getenv("CUDALAB_NO_TIMING");
    return runtime_.backend().name() == "gpu" && !(off && *off);
}

std::optional<DevicePeakFigures> Session::device_peak() {
    if (!peak_) peak_ = runtime_.backend().device_peak();
    return peak_;
}

bool Session::check_fraction(const std::string& name, double achieved, double peak,
                             const char* unit, const TimedResult& t, double min_fraction,
                             const std::string& advice) {
    CheckResult c;
    c.name = name;
    c.kind = CheckKind::performance;
    c.timed = true;
    c.comparison = ">=";
    c.threshold = min_fraction;
    c.value = peak > 0 ? achieved / peak : 0;
    c.passed = peak > 0 && c.value >= min_fraction;
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "%.1f %s of the device's measured %.1f %s (%.0f%%); median of %d runs, %.3f ms",
                  achieved / 1e9, unit, peak / 1e9, unit, c.value * 100, t.repeats,
                  t.median_seconds * 1e3);
    c.message = buf;
    c.advice = advice;
    bool passed = c.passed;
    add_check(std::move(c));
    return passed;
}

bool Session::check_bandwidth(const std::string& name, double bytes_moved, const TimedResult& t,
                              double min_fraction, const std::string& advice) {
    auto peak = device_peak();
    double achieved = t.median_seconds > 0 ? bytes_moved / t.median_seconds : 0;
    return check_fraction(name, achieved, peak ? peak->copy_bytes_per_second : 0, "GB/s", t,
                          min_fraction, advice);
}

bool Session::check_flops(const std::string& name, double flops, const TimedResult& t,
                          double min_fraction, const std::string& advice) {
    auto peak = device_peak();
    double achieved = t.median_seconds > 0 ? flops / t.median_seconds : 0;
    return check_fraction(name, achieved, peak ? peak->fma_flops : 0, "GFLOP/s", t, min_fraction,
                          advice);
}

std::vector<HostSide>& registered_host_sides() {
    static std::vector<HostSide> sides;
    return sides;
}

}  // namespace cudalab::lessons
