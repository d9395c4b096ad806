// The files a graded program leaves behind (base/safe_files.h, docs/grading.md "Files a program
// leaves"): links to the grader's files, FIFOs, huge sparse files and JSON nested millions deep are
// refused with a message naming the cap, never followed, blocked on, read whole or quoted; writes
// replace a link rather than write through it. The runner rows run a shell script as "the
// program", on the stand-in runtime (tests/fake_cudart/), with and without the sandbox.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "base/safe_files.h"
#include "programs/runner.h"
#include "programs/sandbox.h"

using namespace cudalab;
namespace fs = std::filesystem;

namespace {

const std::string kSecret = "TOPSECRET-4242";

struct TempDir {
    fs::path path;
    TempDir() {
        std::string t = (fs::temp_directory_path() / "cudalab-files-test-XXXXXX").string();
        REQUIRE(::mkdtemp(t.data()) != nullptr);
        path = t;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

void put(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string get(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The secret file a hostile program points its links at, holding JSON a careless reader would
// take for the runtime's result.
fs::path plant_secret(const fs::path& dir) {
    const fs::path secret = dir / "secret.json";
    put(secret, "{\"faults\":[\"" + kSecret + "\"],\"leaks\":[]}");
    return secret;
}

void both_ways(const std::function<void()>& body) {
    for (bool fallback : {false, true}) {
        CAPTURE(fallback);
        force_open_beneath_fallback(fallback);
        body();
    }
    force_open_beneath_fallback(false);
}

}  // namespace

TEST_CASE("safe files: a link, in the name or on the way to it, is refused and not quoted") {
    both_ways([] {
        TempDir t;
        const fs::path secret = plant_secret(t.path);
        fs::create_directory(t.path / "work");
        fs::create_symlink(secret, t.path / "work" / "result.json");
        fs::create_symlink(t.path, t.path / "work" / "up");
        OpenDir work;
        REQUIRE(work.open((t.path / "work").string()));
        std::string bytes, why;
        CHECK(read_file_beneath(work.fd(), "result.json", 1 << 20, "the result", &bytes, &why) ==
              ReadOutcome::refused);
        CHECK(why.find("symbolic link") != std::string::npos);
        CHECK(bytes.empty());
        why.clear();
        CHECK(read_file_beneath(work.fd(), "up/secret.json", 1 << 20, "the result", &bytes, &why) ==
              ReadOutcome::refused);
        CHECK(bytes.empty());
        CHECK(read_file_beneath(work.fd(), "../secret.json", 1 << 20, "the result", &bytes, &why) ==
              ReadOutcome::refused);
        CHECK(read_file_beneath(work.fd(), secret.string(), 1 << 20, "the result", &bytes, &why) ==
              ReadOutcome::refused);
        CHECK(why.find(kSecret) == std::string::npos);
        CHECK(read_file_beneath(work.fd(), "absent.json", 1 << 20, "the result", &bytes, &why) ==
              ReadOutcome::missing);
    });
}

TEST_CASE("safe files: a FIFO in place of a file does not block the reader") {
    both_ways([] {
        TempDir t;
        REQUIRE(::mkfifo((t.path / "result.json").c_str(), 0600) == 0);
        OpenDir dir;
        REQUIRE(dir.open(t.path.string()));
        std::string bytes, why;
        const auto started = std::chrono::steady_clock::now();
        CHECK(read_file_beneath(dir.fd(), "result.json", 1 << 20, "the result", &bytes, &why) ==
              ReadOutcome::refused);
        CHECK(why.find("not a regular file (a FIFO)") != std::string::npos);
        CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
    });
}

TEST_CASE("safe files: a sparse file over the cap is refused before a byte is read") {
    TempDir t;
    const fs::path big = t.path / "timeline.json";
    {
        const int fd = ::open(big.c_str(), O_WRONLY | O_CREAT, 0600);
        REQUIRE(fd >= 0);
        REQUIRE(::ftruncate(fd, 200ll << 20) == 0);  // 200 MB, no block written
        ::close(fd);
    }
    OpenDir dir;
    REQUIRE(dir.open(t.path.string()));
    std::string bytes, why;
    CHECK(read_file_beneath(dir.fd(), "timeline.json", max_timeline_file_bytes, "the timeline",
                            &bytes, &why) == ReadOutcome::refused);
    CHECK(why == "the timeline was refused: it has 209715200 bytes, more than the cap of 32 MB");
    CHECK(bytes.capacity() < (1u << 20));
}

TEST_CASE("safe files: JSON nested five million deep is refused by the scan, not parsed") {
    std::string why;
    const std::string deep = std::string(5'000'000, '[') + std::string(5'000'000, ']');
    nlohmann::json j = parse_json_bounded(deep, max_json_depth, 0, "the result", &why);
    CHECK(j.is_discarded());
    CHECK(why == "the result was refused: its JSON nests deeper than 64 levels");
    // Brackets inside strings are text, not nesting.
    why.clear();
    j = parse_json_bounded("{\"a\":\"" + std::string(1000, '[') + "\"}", 4, 0, "x", &why);
    CHECK(j.is_object());
    CHECK(why.empty());
    // Values are counted before the tree is built.
    std::string many = "[";
    for (int i = 0; i < 1000; ++i) many += "0,";
    many += "0]";
    j = parse_json_bounded(many, 4, 100, "the timeline", &why);
    CHECK(j.is_discarded());
    CHECK(why == "the timeline was refused: it holds more than 100 JSON values");
    j = parse_json_bounded("{\"faults\": [" + kSecret, 4, 0, "the result", &why);
    CHECK(j.is_discarded());
    CHECK(why == "the result is not valid JSON");
}

TEST_CASE("safe files: a write replaces a link left in its place, never writes through it") {
    both_ways([] {
        TempDir t;
        const fs::path victim = t.path / "run_autograder";
        put(victim, "#!/bin/sh\necho original\n");
        fs::create_directory(t.path / "work");
        fs::create_symlink(victim, t.path / "work" / "in.bin");
        OpenDir work;
        REQUIRE(work.open((t.path / "work").string()));
        std::string why;
        CHECK(write_file_beneath(work.fd(), "in.bin", "data", 4, &why));
        CHECK(get(victim) == "#!/bin/sh\necho original\n");
        CHECK(fs::is_regular_file(fs::symlink_status(t.path / "work" / "in.bin")));
        CHECK(get(t.path / "work" / "in.bin") == "data");
        // A folder on the way that is a link: refused.
        fs::create_symlink(t.path, t.path / "work" / "up");
        CHECK_FALSE(write_file_beneath(work.fd(), "up/run_autograder", "x", 1, &why));
        CHECK(get(victim) == "#!/bin/sh\necho original\n");
        // The copy out of a folder: a link at the destination is replaced too.
        put(t.path / "work" / "timeline.json", "{}");
        fs::create_symlink(victim, t.path / "dest.json");
        CHECK(copy_file_beneath(work.fd(), "timeline.json", 1 << 20, "the timeline",
                                (t.path / "dest.json").string(), &why) == ReadOutcome::ok);
        CHECK(get(victim) == "#!/bin/sh\necho original\n");
        CHECK(get(t.path / "dest.json") == "{}");
    });
}

// [SECTION] the runner: what a program leaves in place of its runtime's files

namespace {

// Runs `script` (bash) as the program on the stand-in runtime. The commands it starts run without
// the stand-in, and it ends with kill -9: the stand-in's exit handler must not write the files the
// script replaced.
// Runs `script` as the program (a shell script in place of a CUDA program) on the fake runtime.
// `device_script`, when given, is what the fake device does instead of writing its records: the
// records are the device's to write, so a hostile writer of them is a hostile device (or, on a
// GPU, the CUPTI library in the program); the runner must read whatever it finds safely.
programs::RunResult run_script(const fs::path& dir, const std::string& script, bool sandbox,
                               const std::string& timeline = "",
                               const std::string& device_script = "") {
    const fs::path exe = dir / "program.sh";
    put(exe, "#!/bin/bash\nunset LD_PRELOAD\n" + script + "\nkill -9 $$\n");
    // As root the sandbox runs the program as an unprivileged user: it must be able to reach and
    // run the script (and nothing else of the folder needs to be its).
    fs::permissions(exe, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(dir, fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add);
    programs::RunRequest req;
    req.executable = exe.string();
    req.backend = "emu";
    req.built_by_cudalab = true;
    req.cudart_dir = CUDALAB_FAKE_CUDART_DIR;
    req.cwd = dir.string();
    req.sandbox = sandbox;
    req.timeline = timeline;
    req.limits.wall_seconds = 20;
    req.output = programs::OutputMode::capture;
    req.stdin_null = true;
    if (!device_script.empty())
        req.environment.push_back({"CUDALAB_FAKE_DEVICE_SCRIPT", device_script});
    return programs::run_program(req);
}

std::vector<bool> sandbox_modes() {
    std::vector<bool> modes{false};
    if (programs::sandbox_support().ok) modes.push_back(true);
    else MESSAGE("the sandbox cannot run here: only the unsandboxed runs are tested");
    return modes;
}

}  // namespace

TEST_CASE("runner: a result file turned into a link to a hidden file leaks nothing") {
    for (bool sandbox : sandbox_modes()) {
        CAPTURE(sandbox);
        TempDir t;
        const fs::path secret = plant_secret(t.path);
        auto r = run_script(t.path, "true", sandbox, "",
                            "ln -sf '" + secret.string() + "' \"$CUDALAB_RESULT\"");
        REQUIRE(r.started);
        CHECK(r.runtime.is_null());
        CHECK(r.file_refused.find("symbolic link") != std::string::npos);
        CHECK(programs::run_json(r).dump().find(kSecret) == std::string::npos);
    }
}

TEST_CASE("runner: a FIFO, a huge sparse file or deep JSON as the result is refused quickly") {
    for (bool sandbox : sandbox_modes()) {
        CAPTURE(sandbox);
        TempDir t;
        const auto started = std::chrono::steady_clock::now();
        auto r = run_script(t.path, "true", sandbox, "",
                            "rm -f \"$CUDALAB_RESULT\"; mkfifo \"$CUDALAB_RESULT\"");
        CHECK(r.file_refused.find("FIFO") != std::string::npos);
        CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(15));
        r = run_script(t.path, "true", sandbox, "", "truncate -s 100M \"$CUDALAB_RESULT\"");
        CHECK(r.file_refused ==
              "the runtime's result file was refused: it has 104857600 bytes, more than the cap "
              "of 4 MB");
        r = run_script(t.path, "true", sandbox, "",
                       "head -c 3000000 /dev/zero | tr '\\0' '[' > \"$CUDALAB_RESULT\"");
        CHECK(r.file_refused ==
              "the runtime's result file was refused: its JSON nests deeper than 64 levels");
        CHECK(r.runtime.is_null());
    }
}

TEST_CASE("runner: the program reaches none of the records, nor the device's settings") {
    for (bool sandbox : sandbox_modes()) {
        CAPTURE(sandbox);
        TempDir t;
        // What a forger would try: the settings and record paths from its environment, and a
        // result of its own wherever it can think of.
        auto r =
            run_script(t.path,
                       "env | grep CUDALAB_ | grep -v CUDALAB_DEVICE_FD= && echo SAW-SETTINGS\n"
                       "echo '{\"faults\":[],\"forged\":true}' > \"${CUDALAB_RESULT:-r.json}\"",
                       sandbox);
        REQUIRE(r.started);
        CHECK(r.process.out.find("SAW-SETTINGS") == std::string::npos);
        REQUIRE(r.runtime.is_object());
        CHECK(r.runtime.contains("fake"));  // the device's record
        CHECK_FALSE(r.runtime.contains("forged"));
    }
}

TEST_CASE("runner: a timeline copied out of the sandbox is never written through a link") {
    if (!programs::sandbox_support().ok) {
        MESSAGE("SKIPPED: the sandbox cannot run here");
        return;
    }
    TempDir t;
    const fs::path victim = t.path / "run_autograder";
    put(victim, "original");
    const fs::path secret = plant_secret(t.path);
    fs::create_symlink(victim, t.path / "timeline.json");  // where the grader asked for it
    // The program's own timeline is a link to a hidden file: refused, not copied.
    auto r = run_script(t.path, "true", true, (t.path / "timeline.json").string(),
                        "ln -sf '" + secret.string() + "' \"$CUDALAB_TIMELINE\"");
    CHECK_FALSE(r.timeline_written);
    CHECK(r.file_refused.find("symbolic link") != std::string::npos);
    CHECK(get(victim) == "original");
    // A timeline of its own making is copied, to a new file in place of the link.
    r = run_script(t.path, "true", true, (t.path / "timeline.json").string(),
                   "echo '{\"traceEvents\":[]}' > \"$CUDALAB_TIMELINE\"");
    CHECK(r.timeline_written);
    CHECK(get(victim) == "original");
    CHECK(fs::is_regular_file(fs::symlink_status(t.path / "timeline.json")));
}
