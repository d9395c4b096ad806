#include "report/report.h"

#include "analysis/metrics.h"
#include "report/sanitize.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace cudalab::report {

using lessons::CheckKind;
using lessons::CheckReport;
using lessons::CheckResult;

namespace {

struct Colors {
    const char *green, *red, *yellow, *dim, *bold, *reset;
};
Colors colors(bool on) {
    if (on) return {"\033[32m", "\033[31m", "\033[33m", "\033[2m", "\033[1m", "\033[0m"};
    return {"", "", "", "", "", ""};
}

std::string number(double v) {
    char buf[64];
    if (std::isnan(v)) return "n/a";
    if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
    else if (std::fabs(v) >= 100) std::snprintf(buf, sizeof buf, "%.0f", v);
    else if (std::fabs(v) >= 1) std::snprintf(buf, sizeof buf, "%.2f", v);
    else std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string writer_text(const lessons::Mismatch& m) {
    if (!m.writer) return m.writer_tracked ? "  (no thread wrote it)" : "";
    return "  (written by block " + m.writer->block.str() + ", thread " + m.writer->thread.str() +
           ")";
}

std::string indent(const std::string& s, const std::string& pad) {
    std::string out;
    std::istringstream in(s);
    std::string line;
    while (std::getline(in, line)) out += pad + line + "\n";
    return out;
}

std::string check_detail(const CheckResult& c) {
    std::ostringstream o;
    if (c.kind == CheckKind::performance && c.measured)
        o << "value " << number(c.value) << ", needs " << c.comparison << " " << number(c.threshold)
          << ": ";
    o << c.message;
    return o.str();
}

}  // namespace

std::string text(const CheckReport& unsafe, const TextStyle& style) {
    const CheckReport r = sanitized(unsafe);  // learner bytes: valid UTF-8, no escapes, bounded
    Colors k = colors(style.color);
    std::ostringstream o;
    o << k.bold << r.lesson << k.reset << "  " << r.title << "\n";
    o << k.dim << "  file     " << r.source << "\n";
    if (!r.backend.empty()) {
        o << "  backend  " << r.backend;
        if (!r.backend_note.empty()) o << " (" << r.backend_note << ")";
        o << "\n";
        char buf[200], compile[64];
        // A cached compile took no time now; say how long it took when it ran.
        if (r.program) {
            // nvcc's build cache keeps no record of how long the build took.
            if (r.compile_cached) std::snprintf(compile, sizeof compile, "build (nvcc) cached");
            else
                std::snprintf(compile, sizeof compile, "build (nvcc) %.0f ms",
                              r.compile_seconds * 1000);
            std::snprintf(buf, sizeof buf, "  time     %s, runs %.0f ms\n", compile,
                          r.run_seconds * 1000);
        } else {
            if (r.compile_cached)
                std::snprintf(compile, sizeof compile, "compile cached, %.0f ms when compiled",
                              r.compiled_seconds * 1000);
            else
                std::snprintf(compile, sizeof compile, "compile %.0f ms", r.compile_seconds * 1000);
            std::snprintf(buf, sizeof buf,
                          "  time     %s, run %.0f ms (%llu thread instructions)\n", compile,
                          r.run_seconds * 1000, (unsigned long long)r.totals.thread_instructions);
        }
        o << buf;
        o << "  seed     " << r.seed << " (--seed " << r.seed << " repeats these inputs)\n";
    }
    o << k.reset;
    if (!r.status.ok()) {
        const char* what = r.status.code == StatusCode::compile_error ? "does not compile"
                                                                      : "could not be checked";
        o << "\n" << k.red << "  ERROR" << k.reset << "  " << r.source << " " << what << ":\n";
        o << indent(r.status.message, "    ");
        if (r.status.code == StatusCode::compile_error)
            o << "  Fix the first error first; later ones often follow from it.\n";
        return o.str();
    }
    o << "\n";
    for (const auto& c : r.checks) {
        o << "  " << (c.passed ? k.green : k.red) << (c.passed ? "PASS" : "FAIL") << k.reset << "  "
          << c.name;
        if (c.kind == CheckKind::performance && !c.measured)
            o << k.dim << "  [not measured]" << k.reset;
        else if (c.kind == CheckKind::performance)
            o << k.dim << "  [" << number(c.value) << "; needs " << c.comparison << " "
              << number(c.threshold) << "]" << k.reset;
        o << "\n";
        if (!c.passed || style.verbose) {
            o << indent(c.message, "        ");
            // Which launch the figure came from: a lesson runs several, the app opens on this one.
            if (c.kind == CheckKind::performance && r.launches.size() > 1 && c.launch >= 0)
                o << k.dim << "        measured on " << r.launch_label(c.launch)
                  << " (cudalab gui --launch " << c.launch + 1 << ")" << k.reset << "\n";
            for (const auto& m : c.mismatches) {
                o << "        "
                  << (m.where.empty() ? "element " + std::to_string(m.index) : m.where)
                  << ": expected " << m.expected << ", got " << m.actual << writer_text(m) << "\n";
            }
            if (!c.passed && !c.advice.empty())
                o << k.yellow << "        try: " << k.reset << c.advice << "\n";
        }
    }
    for (const auto& line : r.log) o << k.dim << "  " << line << k.reset << "\n";
    if (!r.printf_output.empty()) {
        o << (r.program ? "\n  the program's output (last run):\n" : "\n  device printf output:\n");
        std::string shown = safe_text(r.printf_output, 4000);
        o << indent(shown, "    | ");
    }
    int passed = 0;
    for (const auto& c : r.checks) passed += c.passed;
    o << "\n  " << (r.passed ? k.green : k.red) << passed << " of " << r.checks.size()
      << " checks passed" << k.reset;
    if (r.passed) o << " — lesson complete.\n";
    else o << ". Stuck? `cudalab hint " << r.lesson << "` shows the next hint.\n";
    return o.str();
}

std::string text_summary(const std::vector<CheckReport>& unsafe, const TextStyle& style) {
    std::vector<CheckReport> reports;
    for (const auto& r : unsafe) reports.push_back(sanitized(r));
    Colors k = colors(style.color);
    std::ostringstream o;
    int passed = 0;
    double score = 0, max_score = 0;
    for (const auto& r : reports) {
        passed += r.passed;
        score += r.score();
        max_score += r.max_score();
        const char* verdict = !r.status.ok() ? "ERROR" : r.passed ? "PASS" : "FAIL";
        const char* color = !r.status.ok() ? k.red : r.passed ? k.green : k.red;
        int ok = 0;
        for (const auto& c : r.checks) ok += c.passed;
        char buf[256];
        std::snprintf(buf, sizeof buf, "%-22s %s%-5s%s %2d/%-2zu checks  %s\n", r.lesson.c_str(),
                      color, verdict, k.reset, ok, r.checks.size(), r.title.c_str());
        o << buf;
    }
    o << "\n"
      << passed << " passed, " << (int(reports.size()) - passed) << " failed (score "
      << number(score) << "/" << number(max_score) << ")\n";
    return o.str();
}

std::string launch_text(const CheckReport& r, int index, const std::string& source,
                        const TextStyle& style) {
    Colors k = colors(style.color);
    std::ostringstream o;
    if (index < 0 || index >= int(r.launches.size())) {
        o << "  no launch " << index + 1 << ": this run completed " << r.launches.size()
          << " launch" << (r.launches.size() == 1 ? "" : "es") << "\n";
        return o.str();
    }
    o << k.bold << "  " << r.launch_label(index) << k.reset << "\n";
    bool any = false;
    for (const auto& c : r.checks) {
        if (c.launch != index) continue;
        any = true;
        o << "    " << (c.passed ? k.green : k.red) << (c.passed ? "PASS" : "FAIL") << k.reset
          << "  " << c.name;
        if (c.kind == CheckKind::performance)
            o << k.dim << "  [" << number(c.value) << "; needs " << c.comparison << " "
              << number(c.threshold) << "]" << k.reset;
        o << "\n";
    }
    if (!any) o << k.dim << "    no check measured this launch" << k.reset << "\n";
    const auto& trace =
        index < int(r.launch_traces.size()) ? r.launch_traces[std::size_t(index)] : nullptr;
    if (!trace) {
        o << k.dim << "    (the " << r.backend << " backend traced no figures)" << k.reset << "\n";
        return o.str();
    }
    std::vector<std::string> lines;
    {
        std::istringstream in(source);
        std::string l;
        while (std::getline(in, l)) lines.push_back(l);
    }
    const analysis::KernelFigures kf = analysis::analyze(*trace);
    o << k.dim << "    line  ld sect/req  st sect/req  bank confl.  split branches  source"
      << k.reset << "\n";
    for (const auto& lf : kf.lines) {
        const auto& f = lf.figures;
        const bool global = f.global_load_requests || f.global_store_requests;
        if (!global && !f.shared_requests && !f.divergent_branches) continue;
        char buf[160];
        auto ratio = [](std::uint64_t a, std::uint64_t b) {
            return b ? number(double(a) / double(b)) : std::string("-");
        };
        std::snprintf(buf, sizeof buf, "    %4u  %11s  %11s  %11s  %14s  ", lf.line,
                      ratio(f.global_load_sectors, f.global_load_requests).c_str(),
                      ratio(f.global_store_sectors, f.global_store_requests).c_str(),
                      f.shared_requests ? number(double(f.bank_conflicts())).c_str() : "-",
                      f.branches ? number(double(f.divergent_branches)).c_str() : "-");
        std::string text = lf.line >= 1 && lf.line <= lines.size() ? lines[lf.line - 1] : "";
        const std::size_t first = text.find_first_not_of(" \t");
        text = first == std::string::npos ? "" : text.substr(first);
        if (text.size() > 60) text = text.substr(0, 57) + "...";
        o << buf << safe_text(text)
          << "\n";  // the learner's line: any bytes, made safe for a terminal
    }
    return o.str();
}

nlohmann::json json(const CheckReport& unsafe) {
    const CheckReport r = sanitized(unsafe);  // nlohmann::json refuses invalid UTF-8 when dumping
    nlohmann::json j;
    j["lesson"] = r.lesson;
    j["passed"] = r.passed;
    j["backend"] = r.backend;
    j["source"] = r.source;
    j["seed"] = r.seed;
    j["lesson_kind"] = r.program ? "program" : "kernel";  // added field (the contract allows it)
    if (!r.status.ok()) {
        j["error"] = r.status.message;
        j["diagnostics"] = nlohmann::json::array();
        for (const auto& d : r.diagnostics)
            j["diagnostics"].push_back({{"file", d.file},
                                        {"line", d.line},
                                        {"column", d.column},
                                        {"severity", to_string(d.severity)},
                                        {"message", d.message}});
    }
    j["checks"] = nlohmann::json::array();
    for (const auto& c : r.checks) {
        nlohmann::json cj = {
            {"name", c.name},
            {"kind", c.kind == CheckKind::correctness ? "correctness" : "performance"},
            {"passed", c.passed},
            {"value", std::isfinite(c.value) ? nlohmann::json(c.value) : nlohmann::json()},
            {"threshold", c.threshold},
            {"comparison", c.comparison},
            {"message", c.message},
            {"points", c.points},
            {"timed", c.timed},
            {"measured", c.measured}};
        if (c.launch >= 0) cj["launch"] = c.launch;  // index into "launches"
        if (!c.advice.empty()) cj["advice"] = c.advice;
        if (!c.mismatches.empty()) {
            cj["mismatches"] = nlohmann::json::array();
            for (const auto& m : c.mismatches) {
                nlohmann::json mj = {
                    {"index", m.index}, {"expected", m.expected}, {"actual", m.actual}};
                if (!m.where.empty()) mj["where"] = m.where;
                if (m.writer) {
                    mj["block"] = {m.writer->block.x, m.writer->block.y, m.writer->block.z};
                    mj["thread"] = {m.writer->thread.x, m.writer->thread.y, m.writer->thread.z};
                }
                cj["mismatches"].push_back(mj);
            }
        }
        j["checks"].push_back(cj);
    }
    j["launches"] = nlohmann::json::array();
    for (const auto& l : r.launches)
        j["launches"].push_back({{"kernel", l.kernel},
                                 {"grid", {l.grid.x, l.grid.y, l.grid.z}},
                                 {"block", {l.block.x, l.block.y, l.block.z}},
                                 {"thread_instructions", l.thread_instructions},
                                 {"global_load_requests", l.load_requests},
                                 {"global_load_sectors", l.load_sectors},
                                 {"global_store_requests", l.store_requests},
                                 {"global_store_sectors", l.store_sectors},
                                 {"shared_load_bank_conflicts", l.shared_load_conflicts},
                                 {"shared_store_bank_conflicts", l.shared_store_conflicts},
                                 {"divergent_branches", l.divergent_branches},
                                 {"branch_efficiency", l.branch_efficiency}});
    j["stats"] = {{"compile_seconds", r.compile_seconds},
                  {"run_seconds", r.run_seconds},
                  {"thread_instructions", r.totals.thread_instructions},
                  {"warp_instructions", r.totals.warp_instructions}};
    j["score"] = r.score();
    j["max_score"] = r.max_score();
    return j;
}

namespace {
std::string xml_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        case '\'': o += "&apos;"; break;
        default:
            if ((unsigned char)c < 0x20 && c != '\n' && c != '\t') o += ' ';
            else o += c;
        }
    }
    return o;
}
}  // namespace

std::string junit(const std::vector<CheckReport>& unsafe) {
    std::vector<CheckReport> reports;
    for (const auto& r : unsafe) reports.push_back(sanitized(r));
    // A report that could not run but knows the lesson's checks (a compile error) lists each of
    // them as an error, so every submission of a lesson has the same test cases.
    auto listed = [](const CheckReport& r) { return r.status.ok() || !r.checks.empty(); };
    std::ostringstream o;
    int tests = 0, failures = 0, errors = 0;
    for (const auto& r : reports) {
        tests += listed(r) ? int(r.checks.size()) : 1;
        if (!r.status.ok()) errors += listed(r) ? int(r.checks.size()) : 1;
        else
            for (const auto& c : r.checks) failures += !c.passed;
    }
    o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    o << "<testsuites name=\"cudalab\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\">\n";
    for (const auto& r : reports) {
        int f = 0;
        for (const auto& c : r.checks) f += !c.passed;
        const std::size_t n = listed(r) ? r.checks.size() : 1;
        o << "  <testsuite name=\"" << xml_escape(r.lesson) << "\" tests=\"" << n
          << "\" failures=\"" << (r.status.ok() ? f : 0) << "\" errors=\""
          << (r.status.ok() ? 0 : n) << "\" time=\"" << r.compile_seconds + r.run_seconds
          << "\">\n";
        const std::string error_kind =
            r.status.code == StatusCode::compile_error ? "compile error" : "could not run";
        if (!listed(r)) {
            o << "    <testcase classname=\"" << xml_escape(r.lesson)
              << "\" name=\"compiles and runs\">\n";
            o << "      <error message=\"" << xml_escape(error_kind) << "\">"
              << xml_escape(r.status.message) << "</error>\n    </testcase>\n";
        }
        for (const auto& c : listed(r) ? r.checks : std::vector<CheckResult>{}) {
            o << "    <testcase classname=\"" << xml_escape(r.lesson) << "\" name=\""
              << xml_escape(c.name) << "\">\n";
            if (!r.status.ok())
                o << "      <error message=\"" << xml_escape(error_kind) << "\">"
                  << xml_escape(r.status.message) << "</error>\n";
            else if (!c.passed)
                o << "      <failure message=\""
                  << xml_escape(c.message.substr(0, c.message.find('\n'))) << "\">"
                  << xml_escape(check_detail(c) + (c.advice.empty() ? "" : "\ntry: " + c.advice))
                  << "</failure>\n";
            o << "    </testcase>\n";
        }
        o << "  </testsuite>\n";
    }
    o << "</testsuites>\n";
    return o.str();
}

nlohmann::json gradescope(const std::vector<CheckReport>& unsafe) {
    std::vector<CheckReport> reports;
    for (const auto& r : unsafe) reports.push_back(sanitized(r));
    nlohmann::json j;
    double score = 0;
    j["tests"] = nlohmann::json::array();
    for (const auto& r : reports) {
        if (!r.status.ok() && r.checks.empty()) {
            j["tests"].push_back({{"name", r.lesson + ": compiles and runs"},
                                  {"score", 0},
                                  {"max_score", std::max(1.0, r.max_score())},
                                  {"status", "failed"},
                                  {"output", r.status.message}});
            continue;
        }
        if (!r.status.ok()) {  // the lesson's own checks, each failed with the error
            for (const auto& c : r.checks)
                j["tests"].push_back({{"name", r.lesson + ": " + c.name},
                                      {"score", 0},
                                      {"max_score", c.points},
                                      {"status", "failed"},
                                      {"output", r.status.message}});
            continue;
        }
        for (const auto& c : r.checks) {
            double s = c.passed ? c.points : 0;
            score += s;
            j["tests"].push_back(
                {{"name", r.lesson + ": " + c.name},
                 {"score", s},
                 {"max_score", c.points},
                 {"status", c.passed ? "passed" : "failed"},
                 {"output",
                  check_detail(c) +
                      (c.kind == CheckKind::performance && c.launch >= 0 && r.launches.size() > 1
                           ? "\nmeasured on " + r.launch_label(c.launch)
                           : "") +
                      (c.passed || c.advice.empty() ? "" : "\ntry: " + c.advice)}});
        }
    }
    j["score"] = score;
    std::string seeds;
    for (const auto& r : reports)
        if (r.status.ok())
            seeds += (seeds.empty() ? "" : ", ") + r.lesson + " " + std::to_string(r.seed);
    j["output"] =
        "cudalab: " + std::to_string(reports.size()) + " lesson(s) checked" +
        (seeds.empty() ? std::string()
                       : "; input seeds (cudalab check ID --seed N repeats them): " + seeds);
    return j;
}

}  // namespace cudalab::report
