// `cudalab grade`: a whole class, each (student, lesson) pair checked in a worker process.
//
// [SECTION] Index
//   The results store   grades.db: one row per pair, and the run's seed
//   Work                the pairs, their files' hashes, the shard filter
//   Workers             forked processes, one pair at a time, each report written by the worker
//   Summaries           results.csv, students.csv, summary.json, each student's reports
//   Merge               shards' results into one folder
//   Small helpers       the interrupt flag, lists, durations
//   Planning            options, the lessons, the students, the seed, the pairs left to grade
//   The pool            worker processes fed pairs, a progress bar, lost workers replaced
//   The command         the options, then plan, run the pool, write the summaries
//
// Why processes: a submission is untrusted, and although every limit of check_lesson() holds in
// process, a worker that dies (a bug of the emulator that a hostile kernel finds, the OOM killer)
// takes one pair with it, recorded as such, not the run. The parent never checks anything itself
// and has no threads, so fork() without exec is safe and hands each worker the loaded course.

#include "cli/grade_command.h"

#include "cli/exec_command.h"  // add_limit_options

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "base/files.h"
#include "lessons/progress.h"
#include "programs/sha256.h"
#include "report/report.h"
#include "report/sanitize.h"

namespace fs = std::filesystem;
using namespace cudalab;

namespace cli {

unsigned shard_of(const std::string& student, const std::string& lesson, unsigned shards) {
    // FNV-1a over "student\nlesson": fixed by the names alone, the same on every machine.
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : student + "\n" + lesson) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return unsigned(h % shards);
}

namespace {

std::string now_iso() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

// One of RESULTS/'s own reports, read back for the student's summary files: never through a link,
// never more than a report can hold.
std::string read_file(const fs::path& p) {
    const int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return "";
    struct stat st {};
    std::string out;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= (64 << 20)) {
        out.resize(std::size_t(st.st_size));
        std::size_t got = 0;
        ssize_t n;
        while (got < out.size() && (n = ::read(fd, out.data() + got, out.size() - got)) > 0)
            got += std::size_t(n);
        out.resize(got);
    }
    ::close(fd);
    return out;
}

// A line of text for results.csv, grades.db and report.txt: the first line of `s`, valid UTF-8
// (U+FFFD for a byte that is not), no control character (a program's stderr may carry terminal
// escapes and carriage returns), at most about 300 bytes.
std::string clean_line(const std::string& s) {
    std::string l = report::safe_text(s.substr(0, s.find('\n')), 300);
    std::replace(l.begin(), l.end(), '\t', ' ');
    std::replace(l.begin(), l.end(), '\n', ' ');  // the note of a cut
    return l;
}

std::string dump(const nlohmann::json& j) {
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// The name a student's folder is shown and stored by: clean_line() of it, so that results.csv,
// summary.json, grades.db, the reports and RESULTS/'s folders all hold the same valid UTF-8 name
// (a Latin-1 byte becomes U+FFFD everywhere).
std::string student_name(const std::string& folder) { return clean_line(folder); }

// The reason of a pair stopped at the pair time limit, and that limit read back from it.
std::string timed_out_reason(double limit_s) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "stopped by the grader at the pair time limit of %.0f s (--pair-time-limit); "
                  "the check's own limits did not end it",
                  limit_s);
    return buf;
}
double timed_out_limit(const std::string& reason) {
    const std::string key = "pair time limit of ";
    const std::size_t at = reason.find(key);
    return at == std::string::npos ? 0 : std::atof(reason.c_str() + at + key.size());
}

// [SECTION] The results store

// One row per (student, lesson): what the pair got, and the hash of the file and the seed it got
// it with, so a second run keeps the pairs that would come out the same.
struct Grade {
    std::string student, lesson, hash, seed;
    std::string outcome;  // passed failed compile_error not_submitted refused error crashed
    bool passed = false;
    double score = 0, max_score = 0;
    int checks_passed = 0, checks = 0;
    std::string reason;
    double seconds = 0;
    std::string graded_at;
};

class Store {
  public:
    ~Store() {
        if (db_) sqlite3_close(db_);
    }
    bool open(const std::string& path, bool read_only, std::string* error) {
        int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
        if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
            *error = path + ": " + (db_ ? sqlite3_errmsg(db_) : "cannot open");
            return false;
        }
        sqlite3_busy_timeout(db_, 10000);
        if (read_only) return exec("SELECT count(*) FROM grades", error);
        return exec(
            "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "CREATE TABLE IF NOT EXISTS grades(student TEXT NOT NULL, lesson TEXT NOT NULL,"
            " submission_sha256 TEXT NOT NULL, seed TEXT NOT NULL, outcome TEXT NOT NULL,"
            " passed INTEGER NOT NULL, score REAL NOT NULL, max_score REAL NOT NULL,"
            " checks_passed INTEGER NOT NULL, checks INTEGER NOT NULL, reason TEXT NOT NULL,"
            " seconds REAL NOT NULL, graded_at TEXT NOT NULL, PRIMARY KEY(student, lesson))",
            error);
    }
    bool exec(const std::string& sql, std::string* error) {
        char* msg = nullptr;
        if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
            *error = std::string("results store: ") + (msg ? msg : "error");
            sqlite3_free(msg);
            return false;
        }
        return true;
    }
    std::optional<std::string> meta(const std::string& key) {
        sqlite3_stmt* st = nullptr;
        std::optional<std::string> v;
        if (sqlite3_prepare_v2(db_, "SELECT value FROM meta WHERE key = ?", -1, &st, nullptr) !=
            SQLITE_OK)
            return v;
        sqlite3_bind_text(st, 1, key.c_str(), -1, SQLITE_TRANSIENT);
        if (sqlite3_step(st) == SQLITE_ROW)
            v = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        return v;
    }
    bool set_meta(const std::string& key, const std::string& value, std::string* error) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db_, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", -1, &st,
                               nullptr) != SQLITE_OK)
            return *error = sqlite3_errmsg(db_), false;
        sqlite3_bind_text(st, 1, key.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, value.c_str(), -1, SQLITE_TRANSIENT);
        const bool ok = sqlite3_step(st) == SQLITE_DONE;
        if (!ok) *error = std::string("results store: ") + sqlite3_errmsg(db_);
        sqlite3_finalize(st);
        return ok;
    }
    // One statement, its own transaction: a kill -9 after it keeps the pair, before it loses it.
    bool put(const Grade& g, std::string* error) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(
                db_, "INSERT OR REPLACE INTO grades VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                -1, &st, nullptr) != SQLITE_OK)
            return *error = sqlite3_errmsg(db_), false;
        int i = 1;
        for (const std::string* s : {&g.student, &g.lesson, &g.hash, &g.seed, &g.outcome})
            sqlite3_bind_text(st, i++, s->c_str(), int(s->size()), SQLITE_TRANSIENT);
        sqlite3_bind_int(st, i++, g.passed);
        sqlite3_bind_double(st, i++, g.score);
        sqlite3_bind_double(st, i++, g.max_score);
        sqlite3_bind_int(st, i++, g.checks_passed);
        sqlite3_bind_int(st, i++, g.checks);
        sqlite3_bind_text(st, i++, g.reason.c_str(), int(g.reason.size()), SQLITE_TRANSIENT);
        sqlite3_bind_double(st, i++, g.seconds);
        sqlite3_bind_text(st, i++, g.graded_at.c_str(), -1, SQLITE_TRANSIENT);
        const bool ok = sqlite3_step(st) == SQLITE_DONE;
        if (!ok) *error = std::string("results store: ") + sqlite3_errmsg(db_);
        sqlite3_finalize(st);
        return ok;
    }
    std::vector<Grade> all() {
        std::vector<Grade> out;
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db_, "SELECT * FROM grades ORDER BY student, lesson", -1, &st,
                               nullptr) != SQLITE_OK)
            return out;
        auto text = [st](int c) {
            const unsigned char* t = sqlite3_column_text(st, c);
            return t ? std::string(reinterpret_cast<const char*>(t),
                                   std::size_t(sqlite3_column_bytes(st, c)))
                     : std::string();
        };
        while (sqlite3_step(st) == SQLITE_ROW) {
            Grade g;
            g.student = text(0);
            g.lesson = text(1);
            g.hash = text(2);
            g.seed = text(3);
            g.outcome = text(4);
            g.passed = sqlite3_column_int(st, 5) != 0;
            g.score = sqlite3_column_double(st, 6);
            g.max_score = sqlite3_column_double(st, 7);
            g.checks_passed = sqlite3_column_int(st, 8);
            g.checks = sqlite3_column_int(st, 9);
            g.reason = text(10);
            g.seconds = sqlite3_column_double(st, 11);
            g.graded_at = text(12);
            out.push_back(std::move(g));
        }
        sqlite3_finalize(st);
        return out;
    }

  private:
    sqlite3* db_ = nullptr;
};

// [SECTION] Work

struct Pair {
    std::string student;  // the name shown and stored (student_name() of the folder)
    std::string folder;   // the folder's own name in SUBMISSIONS/, byte for byte
    const lessons::LessonInfo* lesson = nullptr;
    std::string
        hash;  // of the submitted file; "missing", "refused:WHY" when there is none to grade
};

// The file's hash, or why there is no file to grade. A submission is the student's own regular
// file: a link (to another student's file, a solution, /dev/zero) is refused unread.
std::string submission_hash(const fs::path& file) {
    struct stat st;
    if (::lstat(file.c_str(), &st) != 0)
        return errno == ENOENT ? "missing" : "refused:" + std::string(std::strerror(errno));
    if (S_ISLNK(st.st_mode)) return "refused:it is a symbolic link; submit the file itself";
    if (!S_ISREG(st.st_mode)) return "refused:it is not a regular file";
    if (st.st_size > (8 << 20)) return "refused:it is larger than 8 MB";
    const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return "refused:" + std::string(std::strerror(errno));
    programs::Sha256 h;
    char buf[1 << 16];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) h.update(buf, std::size_t(n));
    ::close(fd);
    return "sha256:" + h.hex();
}

// [SECTION] Workers

struct Setup {
    lessons::Course course;  // paths made absolute: a worker works in SUBMISSIONS/
    fs::path submissions, out;
    std::string seed;
    lessons::CheckOptions options;
};

fs::path lesson_base(const fs::path& out, const std::string& student, const std::string& lesson) {
    return out / student / "lessons" / lesson;
}

// The four formats of one pair's report, written by whoever made it (a worker, or the parent for a
// worker that died).
void write_pair_reports(const fs::path& out, const std::string& student,
                        const lessons::CheckReport& r) {
    const std::string base = lesson_base(out, student, r.lesson).string();
    cudalab::write_file_atomically(base + ".txt", report::text(r, {false, false}));
    cudalab::write_file_atomically(base + ".json", dump(report::json(r)));
    cudalab::write_file_atomically(base + ".junit.xml", report::junit({r}));
    cudalab::write_file_atomically(base + ".gradescope.json", dump(report::gradescope({r})));
}

Grade summarize(const lessons::CheckReport& r, const std::string& outcome_if_error) {
    Grade g;
    g.lesson = r.lesson;
    g.passed = r.passed && r.status.ok();
    g.score = r.status.ok() ? r.score() : 0;
    g.max_score = r.max_score();
    g.checks = int(r.checks.size());
    for (const auto& c : r.checks) g.checks_passed += r.status.ok() && c.passed;
    if (!r.status.ok()) {
        g.outcome = outcome_if_error;
        g.reason = clean_line(r.status.message);
    } else if (r.passed) {
        g.outcome = "passed";
    } else {
        g.outcome = "failed";
        for (const auto& c : r.checks)
            if (!c.passed) {
                g.reason = clean_line(c.name + ": " + c.message);
                break;
            }
    }
    return g;
}

// A pair with nothing to check (no file, a file refused unread, a worker lost on it): the lesson's
// own checks, each failed with the reason, so the pair's maximum and checks are the lesson's like
// everyone else's.
lessons::CheckReport ungraded_report(const Setup& s, const lessons::LessonInfo& l,
                                     const std::string& shown, const std::string& why,
                                     compiler::Compiler& compiler) {
    lessons::CheckReport r = lessons::unchecked_report(s.course, l, s.options, compiler, why);
    r.source = shown;
    return r;
}

// A task for a worker: grade pair `i`, or, with `lost` set, write the report of pair `i` whose
// worker was lost (`lost` says how) and answer with `outcome`.
struct Task {
    std::size_t i = 0;
    std::string lost, outcome;
};

Grade grade_pair(const Setup& s, const Pair& p, const Task& t, compiler::Compiler& compiler) {
    const auto started = std::chrono::steady_clock::now();
    // A worker runs in SUBMISSIONS/: the file is read by its folder's own name, and shown (and
    // stored) by the student's name.
    const std::string rel = p.folder + "/" + p.lesson->id + ".cu";
    const std::string shown = p.student + "/" + p.lesson->id + ".cu";
    lessons::CheckReport r;
    std::string outcome;
    if (!t.lost.empty()) {
        r = ungraded_report(s, *p.lesson, shown, t.lost, compiler);
        outcome = t.outcome;
    } else if (p.hash == "missing") {
        r = ungraded_report(s, *p.lesson, shown, "not submitted: there is no " + shown, compiler);
        outcome = "not_submitted";
    } else if (p.hash.rfind("refused:", 0) == 0) {
        r = ungraded_report(s, *p.lesson, shown, "not graded: " + shown + ": " + p.hash.substr(8),
                            compiler);
        outcome = "refused";
    } else {
        lessons::CheckOptions o = s.options;
        o.source_path = rel;
        r = lessons::check_lesson(s.course, *p.lesson, o, compiler);
        r.source = shown;
        outcome = r.status.code == StatusCode::compile_error ? "compile_error" : "error";
    }
    write_pair_reports(s.out, p.student, r);
    Grade g = summarize(r, outcome);
    g.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return g;
}

struct Worker {
    pid_t pid = -1;
    int to = -1, from = -1;  // task pipe (write end), result pipe (read end)
    std::string buffer;      // result bytes not yet a whole line
    int task = -1;           // the pair it is grading, -1 idle
    bool lost_task = false;  // it is writing the report of a pair whose worker was lost
    std::string lost_why, lost_outcome;
    fs::path tmp;  // its TMPDIR, removed when it ends: a killed check leaves nothing in /tmp
    std::chrono::steady_clock::time_point started;
};

bool write_all(int fd, const std::string& s) {
    std::size_t done = 0;
    while (done < s.size()) {
        ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += std::size_t(n);
    }
    return true;
}

// The worker's life: read a task (a JSON line), grade its pair, answer with one JSON line; end at
// EOF.
[[noreturn]] void worker_main(const Setup& s, const std::vector<Pair>& pairs, int in, int out,
                              const fs::path& log, const fs::path& tmp) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a parent killed with -9 takes its workers along
    ::setpgid(0, 0);  // its compile helpers die with it when the parent kills the group
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(sig, SIG_DFL);
    if (int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644); fd >= 0) {
        ::dup2(fd, 1);  // the check's own messages must not garble the progress bar
        ::dup2(fd, 2);
        ::close(fd);
    }
    // Every temporary folder of the checks (work folders, scratch, nvcc's files) goes here; the
    // parent removes it when the worker ends, killed or not.
    if (!tmp.empty()) ::setenv("TMPDIR", tmp.c_str(), 1);
    if (::chdir(s.submissions.c_str()) != 0) ::_exit(3);
    compiler::Compiler compiler;  // one per worker: the solutions' compiles and plans are reused
    std::string line;
    char c;
    for (;;) {
        ssize_t n = ::read(in, &c, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (c != '\n') {
            line += c;
            continue;
        }
        Task t;
        try {
            const auto j = nlohmann::json::parse(line);
            t.i = j.at("i").get<std::size_t>();
            t.lost = j.value("lost", "");
            t.outcome = j.value("outcome", "");
        } catch (const std::exception&) {
            ::_exit(4);
        }
        line.clear();
        Grade g = grade_pair(s, pairs.at(t.i), t, compiler);
        nlohmann::json j = {
            {"i", t.i},           {"outcome", g.outcome},     {"passed", g.passed},
            {"score", g.score},   {"max_score", g.max_score}, {"checks_passed", g.checks_passed},
            {"checks", g.checks}, {"reason", g.reason},       {"seconds", g.seconds}};
        if (!write_all(out,
                       j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"))
            break;
    }
    std::fflush(nullptr);
    ::_exit(0);
}

// [SECTION] Summaries

std::string csv(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string o = "\"";
    for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
    return o + "\"";
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// Everything under RESULTS/ but the store and the lessons' own reports is made from the store's
// rows, so a resumed run, a merge and an uninterrupted run write the same files.
bool write_summaries(const fs::path& out, const std::vector<Grade>& grades, const std::string& seed,
                     std::string* error) {
    std::set<std::string> lesson_ids;
    std::map<std::string, std::vector<const Grade*>> by_student;
    for (const auto& g : grades) {
        lesson_ids.insert(g.lesson);
        by_student[g.student].push_back(&g);
    }
    std::ostringstream rows, students;
    rows
        << "student,lesson,outcome,score,max_score,checks_passed,checks,reason,submission_sha256\n";
    for (const auto& g : grades)
        rows << csv(g.student) << "," << g.lesson << "," << g.outcome << "," << num(g.score) << ","
             << num(g.max_score) << "," << g.checks_passed << "," << g.checks << ","
             << csv(g.reason) << "," << g.hash << "\n";
    students << "student,score,max_score,lessons_passed,lessons_graded";
    for (const auto& id : lesson_ids) students << "," << id;
    students << "\n";
    nlohmann::json summary = {{"seed", seed},
                              {"students", nlohmann::json::object()},
                              {"lessons", nlohmann::json::object()}};
    for (const auto& id : lesson_ids)
        summary["lessons"][id] = {{"graded", 0},
                                  {"passed", 0},
                                  {"not_submitted", 0},
                                  {"mean_score", 0.0},
                                  {"max_score", 0.0}};
    for (const auto& [student, list] : by_student) {
        double score = 0, max_score = 0;
        int passed = 0;
        std::map<std::string, const Grade*> of;
        nlohmann::json lessons_j = nlohmann::json::object();
        for (const Grade* g : list) {
            score += g->score;
            max_score += g->max_score;
            passed += g->passed;
            of[g->lesson] = g;
            lessons_j[g->lesson] = {
                {"outcome", g->outcome},     {"score", g->score},
                {"max_score", g->max_score}, {"checks_passed", g->checks_passed},
                {"checks", g->checks},       {"reason", g->reason},
                {"seconds", g->seconds},     {"submission_sha256", g->hash}};
            auto& lj = summary["lessons"][g->lesson];
            lj["graded"] = lj["graded"].get<int>() + 1;
            lj["passed"] = lj["passed"].get<int>() + g->passed;
            lj["not_submitted"] = lj["not_submitted"].get<int>() + (g->outcome == "not_submitted");
            lj["mean_score"] = lj["mean_score"].get<double>() + g->score;
            lj["max_score"] = std::max(lj["max_score"].get<double>(), g->max_score);
        }
        students << csv(student) << "," << num(score) << "," << num(max_score) << "," << passed
                 << "," << list.size();
        for (const auto& id : lesson_ids)
            students << "," << (of.count(id) ? num(of[id]->score) : "");
        students << "\n";
        summary["students"][student] = {{"score", score},
                                        {"max_score", max_score},
                                        {"lessons_passed", passed},
                                        {"lessons", lessons_j}};

        // The student's reports: the lessons' own, put together.
        const fs::path dir = out / student;
        nlohmann::json all = nlohmann::json::array();
        nlohmann::json gs = {{"score", 0.0}, {"tests", nlohmann::json::array()}};
        std::string text, suites;
        int tests = 0, failures = 0, errors = 0;
        double gs_score = 0;
        for (const Grade* g : list) {
            const std::string base = lesson_base(out, student, g->lesson).string();
            text += read_file(base + ".txt") + "\n";
            try {
                all.push_back(nlohmann::json::parse(read_file(base + ".json")));
                nlohmann::json one = nlohmann::json::parse(read_file(base + ".gradescope.json"));
                for (auto& t : one["tests"]) gs["tests"].push_back(t);
                gs_score += one.value("score", 0.0);
            } catch (const std::exception& e) {
                *error = base + ".json: " + e.what() +
                         " (delete RESULTS/grades.db's row or the folder and grade again)";
                return false;
            }
            // The lesson's <testsuite> elements, and its counts from the <testsuites> line.
            const std::string xml = read_file(base + ".junit.xml");
            auto count = [&xml](const std::string& attr) {
                const std::size_t at = xml.find(" " + attr + "=\"");
                return at == std::string::npos ? 0 : std::atoi(xml.c_str() + at + attr.size() + 3);
            };
            tests += count("tests");
            failures += count("failures");
            errors += count("errors");
            const std::size_t from = xml.find("  <testsuite "), to = xml.rfind("</testsuites>");
            if (from != std::string::npos && to != std::string::npos && to > from)
                suites += xml.substr(from, to - from);
        }
        std::ostringstream table;
        table << "== " << student << ": score " << num(score) << " of " << num(max_score) << ", "
              << passed << " of " << list.size() << " lessons passed (seed " << seed << ")\n";
        for (const Grade* g : list) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "  %-22s %-14s %6s/%-6s ", g->lesson.c_str(),
                          g->outcome.c_str(), num(g->score).c_str(), num(g->max_score).c_str());
            table << buf << g->reason << "\n";
        }
        gs["score"] = gs_score;
        gs["output"] = "cudalab grade: " + std::to_string(list.size()) + " lesson(s); input seed " +
                       seed + " (cudalab check ID --seed " + seed + " repeats a lesson's inputs)";
        std::string xml =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cudalab\" tests=\"" +
            std::to_string(tests) + "\" failures=\"" + std::to_string(failures) + "\" errors=\"" +
            std::to_string(errors) + "\">\n" + suites + "</testsuites>\n";
        std::string err;
        if (!cudalab::write_file_atomically((dir / "report.txt").string(),
                                            table.str() + "\n" + text, &err) ||
            !cudalab::write_file_atomically((dir / "report.json").string(), dump(all), &err) ||
            !cudalab::write_file_atomically((dir / "results.json").string(), dump(gs), &err) ||
            !cudalab::write_file_atomically((dir / "junit.xml").string(), xml, &err)) {
            *error = err;
            return false;
        }
    }
    for (auto& [id, lj] : summary["lessons"].items())
        if (lj["graded"].get<int>() > 0)
            lj["mean_score"] = lj["mean_score"].get<double>() / lj["graded"].get<int>();
    std::string err;
    if (!cudalab::write_file_atomically((out / "results.csv").string(), rows.str(), &err) ||
        !cudalab::write_file_atomically((out / "students.csv").string(), students.str(), &err) ||
        !cudalab::write_file_atomically((out / "summary.json").string(), dump(summary), &err)) {
        *error = err;
        return false;
    }
    return true;
}

// [SECTION] Merge

int run_merge(const GradeArgs& a) {
    const fs::path out = fs::absolute(a.out);
    std::error_code ec;
    fs::create_directories(out, ec);
    std::string error;
    Store store;
    if (!store.open((out / "grades.db").string(), false, &error)) {
        std::cerr << "cudalab: " << error << "\n";
        return 2;
    }
    std::string seed = store.meta("seed").value_or("");
    int rows = 0;
    for (const auto& in_text : a.merge) {
        const fs::path in = fs::absolute(in_text);
        if (fs::equivalent(in, out, ec)) {
            std::cerr << "cudalab: --merge " << in_text
                      << " is the --out folder; merge into a new folder\n";
            return 2;
        }
        Store shard;
        if (!shard.open((in / "grades.db").string(), true, &error)) {
            std::cerr << "cudalab: --merge " << in_text
                      << ": not a folder of `cudalab grade` results (" << error << ")\n";
            return 2;
        }
        const std::string s = shard.meta("seed").value_or("");
        if (!seed.empty() && !s.empty() && s != seed) {
            std::cerr
                << "cudalab: --merge " << in_text << " was graded with seed " << s
                << ", the others with " << seed
                << ": shards of one class must share a seed (grade each with the same --seed)\n";
            return 2;
        }
        if (seed.empty()) seed = s;
        for (const Grade& g : shard.all()) {
            for (const char* ext : {".txt", ".json", ".junit.xml", ".gradescope.json"}) {
                const fs::path from = lesson_base(in, g.student, g.lesson).string() + ext;
                const fs::path to = lesson_base(out, g.student, g.lesson).string() + ext;
                fs::create_directories(to.parent_path(), ec);
                fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
                if (ec) {
                    std::cerr << "cudalab: cannot copy " << from.string() << ": " << ec.message()
                              << "\n";
                    return 2;
                }
            }
            if (!store.put(g, &error)) {
                std::cerr << "cudalab: " << error << "\n";
                return 2;
            }
            ++rows;
        }
    }
    if (!store.set_meta("seed", seed, &error) || !write_summaries(out, store.all(), seed, &error)) {
        std::cerr << "cudalab: " << error << "\n";
        return 2;
    }
    std::cout << "merged " << rows << " graded pairs from " << a.merge.size() << " folders into "
              << out.string() << " (results.csv, students.csv, summary.json)\n";
    return 0;
}

// [SECTION] Small helpers

volatile sig_atomic_t interrupted = 0;
void on_signal(int) { interrupted = 1; }

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == sep) {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
        } else if (c != ' ') cur += c;
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

std::string duration_text(double s) {
    char buf[32];
    if (s < 60) std::snprintf(buf, sizeof buf, "%.0f s", s);
    else if (s < 3600) std::snprintf(buf, sizeof buf, "%d min %02d s", int(s) / 60, int(s) % 60);
    else std::snprintf(buf, sizeof buf, "%d h %02d min", int(s) / 3600, int(s) / 60 % 60);
    return buf;
}

// [SECTION] Planning: the options read, the course, the lessons, the students and the seed

// What a grading run works from, read from the command line and the results folder.
struct Plan {
    Setup s;
    unsigned jobs = 1;
    unsigned shard = 0, shards = 1;  // this run grades the pairs of shard `shard` of `shards`
    Limits limits;
    std::vector<const lessons::LessonInfo*> chosen;
    std::vector<std::pair<std::string, std::string>> students;  // (name, folder), by name
    double pair_time_limit_s = 0;
    std::optional<std::string> recorded_seed;  // the seed the results folder was graded with
};

// Each step below reads one part of the plan; false means *error says why (exit status 2).

bool parse_jobs_and_shard(const GradeArgs& a, Plan* p, std::string* error) {
    p->jobs = std::max(1u, std::thread::hardware_concurrency());
    if (!a.jobs.empty()) {
        auto n = parse_unsigned(a.jobs, 1, 256, "--jobs", error);
        if (!n) return false;
        p->jobs = unsigned(*n);
    }
    if (a.shard.empty()) return true;
    const std::size_t slash = a.shard.find('/');
    std::optional<std::uint64_t> k, n;
    if (slash != std::string::npos) {
        n = parse_unsigned(a.shard.substr(slash + 1), 1, 100000, "--shard N", error);
        if (n) k = parse_unsigned(a.shard.substr(0, slash), 1, *n, "--shard K (1 to N)", error);
    } else *error = "--shard takes K/N, e.g. 2/8";
    if (!k) return false;
    p->shard = unsigned(*k - 1);
    p->shards = unsigned(*n);
    return true;
}

// The course, with its paths absolute (workers run in SUBMISSIONS/), and the lessons asked for.
bool choose_lessons(const lessons::Course& loaded, const GradeArgs& a, Plan* p,
                    std::string* error) {
    p->s.course = loaded;
    auto absolute = [](std::string& path) {
        if (!path.empty()) path = fs::absolute(path).string();
    };
    absolute(p->s.course.root);
    for (auto& l : p->s.course.lessons)
        for (std::string* path : {&l.text_path, &l.exercise_path, &l.solution_path, &l.host_path})
            absolute(*path);
    if (a.lessons.empty() || a.lessons == "all") {
        for (const auto& l : p->s.course.lessons) p->chosen.push_back(&l);
        return true;
    }
    for (const auto& id : split(a.lessons, ',')) {
        const lessons::LessonInfo* l = p->s.course.resolve(id);  // an id or a number
        if (!l) {
            *error = "--lessons: no lesson '" + id + "' (the lessons: " + p->s.course.ids() + ")";
            return false;
        }
        if (std::find(p->chosen.begin(), p->chosen.end(), l) == p->chosen.end())
            p->chosen.push_back(l);
    }
    return true;
}

// The students: every folder in SUBMISSIONS/, by name (a link to a folder is not one). Two
// folders whose names are the same once made valid UTF-8 (student_name()) are refused: their
// results would be one student's.
bool list_students(const GradeArgs& a, Plan* p, std::string* error) {
    std::error_code ec;
    std::map<std::string, std::string> by_name;
    for (const auto& e : fs::directory_iterator(p->s.submissions, ec)) {
        const std::string folder = e.path().filename().string();
        if (folder.empty() || folder[0] == '.' || e.is_symlink(ec) || !e.is_directory(ec)) continue;
        std::error_code same;
        if (fs::equivalent(e.path(), p->s.out, same))
            continue;  // --out inside SUBMISSIONS/ is no student
        const std::string name = student_name(folder);
        for (const char* taken : {"grades.db", "grades.db-journal", "results.csv", "students.csv",
                                  "summary.json", "grade.log"})
            if (name == taken) {
                *error = (p->s.submissions / name).string() +
                         ": a student's folder may not be named " + name +
                         ", a file of the results; rename it";
                return false;
            }
        if (auto [it, fresh] = by_name.emplace(name, folder); !fresh) {
            *error = "two students' folders have the name '" + name +
                     "' once made valid UTF-8 without control characters (results are stored by "
                     "that name); rename one of them";
            return false;
        }
    }
    if (ec) {
        *error = "cannot read " + a.submissions + ": " + ec.message();
        return false;
    }
    for (auto& [name, folder] : by_name) p->students.emplace_back(name, folder);
    return true;
}

// The seed: given, else the one this folder was graded with (a resumed run goes on with it),
// else new. Recorded in the store with the course.
bool choose_seed(const GradeArgs& a, Store& store, Plan* p, std::string* error) {
    p->recorded_seed = store.meta("seed");
    if (!a.seed.empty()) {
        auto v = parse_unsigned(a.seed, 0, UINT64_MAX, "--seed", error);
        if (!v) return false;
        p->s.seed = std::to_string(*v);
    } else if (p->recorded_seed && !p->recorded_seed->empty()) {
        p->s.seed = *p->recorded_seed;
    } else {
        std::random_device rd;
        p->s.seed = std::to_string((std::uint64_t(rd()) << 32) | rd());
    }
    return store.set_meta("seed", p->s.seed, error) &&
           store.set_meta("course", p->s.course.root, error);
}

// How every check of the run is made.
void set_check_options(const GradeArgs& a, Plan* p) {
    lessons::CheckOptions& o = p->s.options;
    o.backend = a.backend;
    o.seed = std::stoull(p->s.seed);
    // One emulator thread per worker: the workers are the parallelism, and blocks run in order, so
    // a regrade gives the same report word for word (the blocks a race names, for one).
    o.emulator_threads = 1;
    o.instruction_budget = p->limits.budget;
    o.memory_limit = p->limits.memory_mb << 20;
    o.printf_limit = p->limits.printf_kb << 10;
    o.time_limit_seconds = p->limits.time_limit_s;
    if (p->limits.compile_time_limit_s) o.compile_limits.seconds = p->limits.compile_time_limit_s;
    if (p->limits.compile_memory_mb) o.compile_limits.memory_mb = p->limits.compile_memory_mb;
    o.trace.auto_detail_blocks = 0;  // the checks need counters only (as `cudalab check`)
    if (p->limits.no_sandbox) o.sandbox = lessons::CheckOptions::Sandbox::off;
}

// The work: this shard's pairs, less those graded already from the same file with the same seed.
std::vector<Pair> pairs_to_grade(const Plan& p, Store& store, std::size_t* in_shard,
                                 std::size_t* kept) {
    std::map<std::pair<std::string, std::string>, Grade> done;
    for (auto& g : store.all()) done[{g.student, g.lesson}] = g;
    std::vector<Pair> pairs;
    std::error_code ec;
    for (const auto& [student, folder] : p.students)
        for (const auto* l : p.chosen) {
            if (shard_of(student, l->id, p.shards) != p.shard) continue;
            ++*in_shard;
            Pair pair{student, folder, l,
                      submission_hash(p.s.submissions / folder / (l->id + ".cu"))};
            auto it = done.find({student, l->id});
            // Kept: the same file, graded with the same seed, and not lost to the grader's own
            // trouble (a worker that died, a check that could not run: tried again). A pair that
            // ran out of time is kept too, unless this run allows pairs more time.
            const Grade* g = it == done.end() ? nullptr : &it->second;
            const bool retry =
                g &&
                (g->outcome == "crashed" || g->outcome == "error" ||
                 (g->outcome == "timed_out" && timed_out_limit(g->reason) < p.pair_time_limit_s));
            if (g && g->hash == pair.hash && g->seed == p.s.seed && !retry &&
                fs::exists(lesson_base(p.s.out, student, l->id).string() + ".json", ec)) {
                ++*kept;
                continue;
            }
            pairs.push_back(std::move(pair));
        }
    return pairs;
}

// [SECTION] The pool of worker processes

// Grades the pairs on worker processes, each fed one pair at a time through a pipe, answering one
// JSON line per pair. A worker that dies or outlives the watchdog is replaced, and its pair is
// recorded as lost with a report of its own. SIGINT, SIGTERM and SIGHUP stop the run between
// pairs; what was graded is kept.
class Pool {
  public:
    // `report_time_limit_s`: how long a worker may take to write the report of a pair whose worker
    // was lost (learning the lesson's checks may compile and check the solution).
    Pool(const Setup& s, const std::vector<Pair>& pairs, Store& store, unsigned jobs,
         double pair_time_limit_s, double report_time_limit_s)
        : s_(s), pairs_(pairs), store_(store), log_(s.out / "grade.log"),
          workers_(std::min<std::size_t>(jobs, pairs.size())), watchdog_s_(pair_time_limit_s),
          report_watchdog_s_(std::max(pair_time_limit_s, report_time_limit_s)) {
        // The workers' temporary folders, one each, under one folder of this run's.
        std::error_code ec;
        std::string tmpl = (fs::temp_directory_path(ec) / "cudalab-grade-XXXXXX").string();
        if (::mkdtemp(tmpl.data())) tmp_root_ = tmpl;
    }
    ~Pool() {
        std::error_code ec;
        if (!tmp_root_.empty()) fs::remove_all(tmp_root_, ec);
    }

    // Grades every pair; false when the grader itself failed (error() says why). An interrupted
    // run returns true with finished() short of the pairs.
    bool run() {
        catch_signals();
        bool ok = true;
        for (auto& w : workers_)
            if (!start_worker(w)) {
                error_ = std::string("cannot start a worker process: ") + std::strerror(errno);
                ok = false;
                break;
            }
        while (ok && !interrupted && finished_ < pairs_.size()) {
            ok = hand_out_pairs() && wait_for_answers();
            progress(false);  // a terminal's clock moves on during a long pair; a log gets a line
                              // every 10 s
        }
        for (auto& w : workers_) stop_worker(w);
        restore_signals();
        progress(true);
        return ok;
    }

    std::size_t finished() const { return finished_; }
    double seconds() const { return elapsed(t0_); }
    const std::string& error() const { return error_; }

  private:
    static double elapsed(std::chrono::steady_clock::time_point since) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
    }

    void catch_signals() {
        struct sigaction sa {};
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGINT, &sa, &old_int_);
        ::sigaction(SIGTERM, &sa, &old_term_);
        ::sigaction(SIGHUP, &sa, &old_hup_);
        ::signal(SIGPIPE, SIG_IGN);
    }
    void restore_signals() {
        ::sigaction(SIGINT, &old_int_, nullptr);
        ::sigaction(SIGTERM, &old_term_, nullptr);
        ::sigaction(SIGHUP, &old_hup_, nullptr);
    }

    bool start_worker(Worker& w) {
        int task[2], result[2];
        if (::pipe2(task, O_CLOEXEC) != 0) return false;
        if (::pipe2(result, O_CLOEXEC) != 0) {
            ::close(task[0]);
            ::close(task[1]);
            return false;
        }
        fs::path tmp;
        if (!tmp_root_.empty()) {
            tmp = tmp_root_ / ("worker-" + std::to_string(++workers_started_));
            if (::mkdir(tmp.c_str(), 0700) != 0) tmp.clear();
        }
        std::fflush(nullptr);
        const pid_t pid = ::fork();
        if (pid < 0) {
            for (int fd : {task[0], task[1], result[0], result[1]}) ::close(fd);
            return false;
        }
        if (pid == 0) {
            // Only its own ends: another worker's pipes held open here would hide that one's end.
            for (const auto& other : workers_)
                if (&other != &w) {
                    if (other.to >= 0) ::close(other.to);
                    if (other.from >= 0) ::close(other.from);
                }
            ::close(task[1]);
            ::close(result[0]);
            worker_main(s_, pairs_, task[0], result[1], log_, tmp);
        }
        ::setpgid(pid, pid);  // also here: no race with the child's own call
        ::close(task[0]);
        ::close(result[1]);
        w = Worker{};
        w.pid = pid;
        w.to = task[1];
        w.from = result[0];
        w.tmp = tmp;
        return true;
    }

    static void stop_worker(Worker& w) {
        if (w.pid > 0) {
            ::kill(-w.pid, SIGKILL);
            ::kill(w.pid, SIGKILL);
            int status;
            ::waitpid(w.pid, &status, 0);
        }
        if (w.to >= 0) ::close(w.to);
        if (w.from >= 0) ::close(w.from);
        std::error_code ec;
        if (!w.tmp.empty()) fs::remove_all(w.tmp, ec);  // what a killed check left
        w = Worker{};
    }

    // A line of progress: redrawn in place on a terminal, every 10 s into a log.
    void progress(bool final) {
        const double el = elapsed(t0_);
        const std::size_t total = pairs_.size();
        const double left = finished_ ? el / double(finished_) * double(total - finished_) : 0;
        const bool estimate = finished_ && !final;
        const std::string eta = estimate ? ", about " + duration_text(left) + " left" : "";
        char buf[256];
        if (tty_) {
            const int width = 30, filled = total ? int(width * finished_ / total) : width;
            std::snprintf(buf, sizeof buf, "\r[%s%s] %zu/%zu pairs, %zu passed, %s%s",
                          std::string(std::size_t(filled), '#').c_str(),
                          std::string(std::size_t(width - filled), '.').c_str(), finished_, total,
                          passed_, duration_text(el).c_str(), eta.c_str());
            std::cerr << buf << "\033[K" << (final ? "\n" : "") << std::flush;
        } else if (final || elapsed(last_line_) > 10) {
            std::snprintf(buf, sizeof buf, "graded %zu of %zu pairs (%zu passed) in %s%s\n",
                          finished_, total, passed_, duration_text(el).c_str(), eta.c_str());
            std::cerr << buf << std::flush;
            last_line_ = std::chrono::steady_clock::now();
        }
    }

    bool record(std::size_t index, Grade g) {
        const Pair& p = pairs_[index];
        g.student = p.student;
        g.lesson = p.lesson->id;
        g.hash = p.hash;
        g.seed = s_.seed;
        g.graded_at = now_iso();
        ++finished_;
        passed_ += g.passed;
        return store_.put(g, &error_);
    }

    // A worker that died or was stopped: a new worker takes its place and writes the pair's report
    // (the lesson's checks, each failed with `why`, so the pair keeps the lesson's maximum), and
    // the pair is recorded with `outcome`. If that worker is lost too, the report is written here,
    // without the lesson's checks.
    bool lost(Worker& w, const std::string& why, const std::string& outcome) {
        const std::size_t index = std::size_t(w.task);
        const double seconds = elapsed(w.started);
        const bool second_loss = w.lost_task;
        stop_worker(w);
        if (!start_worker(w)) {
            error_ = std::string("cannot start a worker process: ") + std::strerror(errno);
            return false;
        }
        if (!second_loss) {
            w.task = int(index);
            w.lost_task = true;
            w.lost_why = why;
            w.lost_outcome = outcome;
            w.started = std::chrono::steady_clock::now();
            const nlohmann::json t = {{"i", index}, {"lost", why}, {"outcome", outcome}};
            if (write_all(w.to,
                          t.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"))
                return true;
            w.task = -1;
            w.lost_task = false;
        }
        const Pair& p = pairs_[index];
        lessons::CheckReport r;
        r.lesson = p.lesson->id;
        r.title = p.lesson->title;
        r.source = p.student + "/" + p.lesson->id + ".cu";
        r.status = Status::error(StatusCode::kernel_fault, second_loss ? w.lost_why : why);
        write_pair_reports(s_.out, p.student, r);
        Grade g = summarize(r, second_loss ? w.lost_outcome : outcome);
        g.seconds = seconds;
        return record(index, g);
    }

    bool give(const Worker& w) {
        return write_all(w.to, "{\"i\":" + std::to_string(w.task) + "}\n");
    }

    // Every idle worker gets the next pair.
    bool hand_out_pairs() {
        for (auto& w : workers_)
            if (w.pid > 0 && w.task < 0 && next_ < pairs_.size()) {
                w.task = int(next_++);
                w.started = std::chrono::steady_clock::now();
                if (give(w)) continue;
                // The worker died while idle (between two pairs): the pair was never its, so a
                // fresh worker takes it as if nothing happened. Only a second refusal costs it.
                const int task = w.task;
                stop_worker(w);
                if (!start_worker(w)) {
                    error_ = std::string("cannot start a worker process: ") + std::strerror(errno);
                    return false;
                }
                w.task = task;
                w.started = std::chrono::steady_clock::now();
                if (!give(w) &&
                    !lost(w, "the grader's worker process could not take the pair", "crashed"))
                    return false;
            }
        return true;
    }

    // Waits up to 250 ms for answers, reads them, and deals with workers that ended or overran.
    bool wait_for_answers() {
        std::vector<pollfd> fds;
        for (auto& w : workers_) fds.push_back({w.from, POLLIN, 0});
        const int n = ::poll(fds.data(), nfds_t(fds.size()), 250);
        if (n < 0 && errno != EINTR) {
            error_ = std::string("poll: ") + std::strerror(errno);
            return false;
        }
        for (std::size_t i = 0; i < workers_.size(); ++i) {
            Worker& w = workers_[i];
            if (n > 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) && !read_answers(w))
                return false;
            if (w.task >= 0 && w.lost_task && elapsed(w.started) > report_watchdog_s_) {
                if (!lost(w, w.lost_why, w.lost_outcome)) return false;
            } else if (w.task >= 0 && !w.lost_task && elapsed(w.started) > watchdog_s_) {
                // Kept on the next run like a failed pair (not retried forever); a run with a
                // larger
                // --pair-time-limit grades it again (pairs_to_grade reads the limit back).
                if (!lost(w, timed_out_reason(watchdog_s_), "timed_out")) return false;
            }
        }
        return true;
    }

    // Reads what a worker wrote: whole lines are grades; an end of file means the worker ended.
    bool read_answers(Worker& w) {
        char buf[4096];
        const ssize_t got = ::read(w.from, buf, sizeof buf);
        if (got > 0) w.buffer.append(buf, std::size_t(got));
        std::size_t nl;
        while ((nl = w.buffer.find('\n')) != std::string::npos) {
            const std::string line = w.buffer.substr(0, nl);
            w.buffer.erase(0, nl + 1);
            Grade g;
            std::size_t index = 0;
            try {
                auto j = nlohmann::json::parse(line);
                index = j.at("i").get<std::size_t>();
                g.outcome = j.at("outcome").get<std::string>();
                g.passed = j.at("passed").get<bool>();
                g.score = j.at("score").get<double>();
                g.max_score = j.at("max_score").get<double>();
                g.checks_passed = j.at("checks_passed").get<int>();
                g.checks = j.at("checks").get<int>();
                g.reason = j.at("reason").get<std::string>();
                g.seconds = j.at("seconds").get<double>();
            } catch (const std::exception& e) {
                error_ = std::string("a worker's answer could not be read: ") + e.what();
                return false;
            }
            if (int(index) != w.task) {
                error_ = "a worker answered for another pair";
                return false;
            }
            w.task = -1;
            w.lost_task = false;
            if (!record(index, g)) return false;
            progress(false);
        }
        if (got > 0) return true;
        // The worker ended: it died, with a pair or without.
        int status = 0;
        ::waitpid(w.pid, &status, 0);
        w.pid = -1;
        const std::string how = WIFSIGNALED(status)
                                    ? "was killed by signal " + std::to_string(WTERMSIG(status)) +
                                          (WTERMSIG(status) == SIGKILL ? " (out of memory?)" : "")
                                    : "exited with status " + std::to_string(WEXITSTATUS(status));
        if (w.task >= 0)
            return lost(w, "the grader's worker process " + how + " while checking this submission",
                        "crashed");
        stop_worker(w);
        return start_worker(w);
    }

    const Setup& s_;
    const std::vector<Pair>& pairs_;
    Store& store_;
    const fs::path log_;
    std::vector<Worker> workers_;
    double watchdog_s_ = 0, report_watchdog_s_ = 0;
    fs::path tmp_root_;
    unsigned workers_started_ = 0;
    std::string error_;
    const bool tty_ = ::isatty(2);
    const std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_line_ = t0_;
    std::size_t next_ = 0, finished_ = 0, passed_ = 0;
    using Action = struct sigaction;  // the struct, not the function of the same name
    Action old_int_{}, old_term_{}, old_hup_{};
};

}  // namespace

// [SECTION] The command

void add_grade_options(CLI::App* cmd, GradeArgs& a) {
    cmd->add_option("submissions", a.submissions,
                    "folder of students' folders, each with ID.cu files as in exercises/");
    cmd->add_option("--out", a.out, "results folder (created; a second run there resumes)")
        ->required();
    cmd->add_option("--lessons", a.lessons, "lessons to grade, ID,ID,... (default: every lesson)");
    cmd->add_option("--jobs", a.jobs, "worker processes (default: one per core)");
    cmd->add_option(
        "--seed", a.seed,
        "seed of every check's inputs (default: the one RESULTS/ recorded, else a new one)");
    cmd->add_option("--shard", a.shard,
                    "grade only part K of N of the pairs (1 <= K <= N), for a job array");
    cmd->add_option("--backend", a.backend, "emu, gpu or auto")
        ->check(CLI::IsMember({"emu", "gpu", "auto"}));
    cmd->add_option("--merge", a.merge,
                    "merge these results folders (shards) into --out instead of grading")
        ->expected(1, -1);
    cmd->add_option("--pair-time-limit", a.pair_time_limit,
                    "seconds one (student, lesson) pair may take in all before its worker is "
                    "stopped (default: the compile time limit + the time limit + 60, 420)");
    add_limit_options(cmd, a.limits, true);
}

int run_grade(const lessons::Course& loaded, const GradeArgs& a) {
    if (!a.merge.empty()) {
        if (!a.submissions.empty()) {
            std::cerr << "cudalab: --merge takes results folders, not a submissions folder\n";
            return 2;
        }
        return run_merge(a);
    }
    if (a.submissions.empty()) {
        std::cerr << "cudalab: grade needs a SUBMISSIONS folder (or --merge RESULTS...)\n";
        return 2;
    }
    Plan plan;
    Setup& s = plan.s;
    std::string error;
    std::error_code ec;
    s.submissions = fs::absolute(a.submissions);
    s.out = fs::absolute(a.out);
    if (!fs::is_directory(s.submissions, ec)) {
        std::cerr << "cudalab: " << a.submissions << ": no such folder\n";
        return 2;
    }
    Store store;
    bool ok = parse_jobs_and_shard(a, &plan, &error) &&
              parse_limits(a.limits, &plan.limits, &error) &&
              choose_lessons(loaded, a, &plan, &error) && list_students(a, &plan, &error);
    if (ok) {
        fs::create_directories(s.out, ec);
        if (ec || !store.open((s.out / "grades.db").string(), false, &error)) {
            error = "--out " + a.out + ": " + (ec ? ec.message() : error);
            ok = false;
        }
    }
    ok = ok && choose_seed(a, store, &plan, &error);
    if (!ok) {
        std::cerr << "cudalab: " << error << "\n";
        return 2;
    }
    set_check_options(a, &plan);
    // The pair time limit: past it the pair's worker is stopped. By default what the check's own
    // limits allow one pair (a compile, then the check at its time limit) and a minute more; a
    // check that ends itself at a limit has then long done so.
    const double own_limit_s =
        double(plan.limits.compile_time_limit_s ? plan.limits.compile_time_limit_s : 60) +
        double(plan.limits.time_limit_s ? plan.limits.time_limit_s : 300) + 60;
    plan.pair_time_limit_s = own_limit_s;
    if (!a.pair_time_limit.empty()) {
        auto v = parse_unsigned(a.pair_time_limit, 1, 7 * 24 * 3600, "--pair-time-limit", &error);
        if (!v) {
            std::cerr << "cudalab: " << error << "\n";
            return 2;
        }
        plan.pair_time_limit_s = double(*v);
    }

    std::size_t in_shard = 0, kept = 0;
    const std::vector<Pair> pairs = pairs_to_grade(plan, store, &in_shard, &kept);
    std::cerr << "cudalab grade: " << plan.students.size() << " students x " << plan.chosen.size()
              << " lessons";
    if (plan.shards > 1)
        std::cerr << ", shard " << plan.shard + 1 << "/" << plan.shards << " (" << in_shard
                  << " pairs)";
    const bool resumed = plan.recorded_seed && *plan.recorded_seed == s.seed && a.seed.empty();
    std::cerr << "; seed " << s.seed << (resumed ? " (recorded in " + a.out + ")" : "") << "; "
              << kept << " already graded, " << pairs.size() << " to grade with "
              << std::min<std::size_t>(plan.jobs, std::max<std::size_t>(pairs.size(), 1))
              << " worker" << (plan.jobs == 1 ? "" : "s") << "\n";

    Pool pool(s, pairs, store, plan.jobs, plan.pair_time_limit_s, own_limit_s);
    if (!pool.run()) {
        std::cerr << "cudalab: " << pool.error() << "\n";
        return 2;
    }
    if (!write_summaries(s.out, store.all(), s.seed, &error)) {
        std::cerr << "cudalab: " << error << "\n";
        return 2;
    }
    if (interrupted) {
        std::cerr << "cudalab grade: interrupted after " << pool.finished() << " of "
                  << pairs.size()
                  << " pairs; the summaries hold what was graded. Run the same command again to "
                     "grade the rest.\n";
        return 130;
    }
    std::cout << "graded " << pool.finished() << " pairs in " << duration_text(pool.seconds())
              << " (" << kept << " kept from an earlier run); seed " << s.seed
              << "\nresults: " << (s.out / "results.csv").string()
              << ", students.csv, summary.json, and per student "
              << "STUDENT/report.txt, report.json, junit.xml, results.json\n";
    return 0;
}

}  // namespace cli
