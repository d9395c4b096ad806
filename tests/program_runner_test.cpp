// `cudalab run` / `cudalab build` and the engine's programs/ module: building with nvcc and the
// cache, the supervised child and its limits, the exit codes, the sandbox, the CUPTI timeline
// records. The emulated runtime's place is taken by a stand-in libcudart.so.13
// (tests/fake_cudart/), so everything here runs on a machine with no GPU.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "programs/build.h"
#include "programs/cupti/cupti_records.h"
#include "programs/elf_info.h"
#include "programs/process.h"
#include "programs/runner.h"
#include "programs/sandbox.h"
#include "programs/sha256.h"
#include "support.h"

namespace fs = std::filesystem;
using namespace cudalab::programs;
using namespace test_support;

namespace {

const std::string kPrograms = std::string(CUDALAB_TEST_DATA) + "/programs";
const std::string kProbe = kPrograms + "/probe.cu";

// Every test shares one build cache (in the build folder), so nvcc runs once per program, and runs
// its programs on the stand-in runtime. Set by these tests only (not at start-up): the lesson tests
// in the same binary run programs on cudalab's own emulated runtime.
void use_test_environment() {
    ::setenv("CUDALAB_CACHE_DIR", CUDALAB_TEST_PROGRAM_CACHE, 1);
    ::setenv("CUDALAB_CUDART_DIR", CUDALAB_FAKE_CUDART_DIR, 1);
}

// nvcc is there (the test is skipped, saying so, when not), with the tests' cache and runtime.
bool programs_can_build() {
    use_test_environment();
    return test_support::have_nvcc();
}

bool have_sandbox() {
    const SandboxSupport& s = sandbox_support();
    if (s.ok) return true;
    std::printf("SKIPPED: the sandbox cannot run on this machine: %s\n", s.why_not.c_str());
    return false;
}

// `cudalab run ARGS` with stdout and stderr together.
CommandResult run(const std::string& args) { return run_cli("run " + args + " </dev/null"); }

std::string quote(const std::string& s) { return "'" + s + "'"; }

}  // namespace

// [SECTION] pieces

TEST_CASE("SHA-256 matches the FIPS 180-4 examples") {
    CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    Sha256 h;  // fed in pieces across block boundaries
    std::string million(1000000, 'a');
    for (std::size_t i = 0; i < million.size(); i += 777) h.update(million.substr(i, 777));
    CHECK(h.hex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sizes parse strictly and print readably") {
    std::uint64_t v = 0;
    CHECK(parse_bytes("512M", &v));
    CHECK(v == 512ull << 20);
    CHECK(parse_bytes("4g", &v));
    CHECK(v == 4ull << 30);
    CHECK(parse_bytes("100", &v));
    CHECK(v == 100);
    CHECK(parse_bytes("0", &v));
    CHECK(v == 0);
    CHECK_FALSE(parse_bytes("", &v));
    CHECK_FALSE(parse_bytes("-1", &v));
    CHECK_FALSE(parse_bytes("12Q", &v));
    CHECK_FALSE(parse_bytes("1.5G", &v));
    CHECK_FALSE(parse_bytes("99999999999999999999", &v));
    CHECK_FALSE(parse_bytes("99999999999T", &v));
    CHECK(parse_bytes("300", &v, 20));  // a plain number in MB
    CHECK(v == 300ull << 20);
    CHECK(parse_bytes("2k", &v, 20));  // a unit wins
    CHECK(v == 2048);
    CHECK(format_bytes(4ull << 30) == "4 GiB");
    CHECK(format_bytes(300ull << 20) == "300 MiB");
    CHECK(format_bytes(1536ull << 20) == "1.5 GiB");
    CHECK(format_bytes(100) == "100 B");
}

TEST_CASE("nvcc's file(line) messages become file:line") {
    CHECK(colon_line_numbers("a.cu(12): error: expected a \";\"\n") ==
          "a.cu:12: error: expected a \";\"\n");
    CHECK(colon_line_numbers("dir/b c.cu(3): warning #177-D: x\n") ==
          "dir/b c.cu:3: warning #177-D: x\n");
    CHECK(colon_line_numbers("main.cpp:4:5: error: gcc's form stays\n") ==
          "main.cpp:4:5: error: gcc's form stays\n");
    CHECK(colon_line_numbers("1 error detected in the compilation of \"a.cu\".\n") ==
          "1 error detected in the compilation of \"a.cu\".\n");
}

TEST_CASE("the default nvcc options keep PTX for sm_90, the shared runtime and line info") {
    auto o = default_nvcc_options({});
    auto has = [&](const std::string& x) { return std::find(o.begin(), o.end(), x) != o.end(); };
    CHECK(has("-cudart"));
    CHECK(has("shared"));
    CHECK(has("-lineinfo"));
    CHECK(has("-g"));
    CHECK_FALSE(has("-G"));  // device code is not compiled for debugging
    CHECK(has("-arch=compute_90"));
    CHECK(has("-code=compute_90"));
    CHECK(has("-compress-mode=none"));
    // A program's own target replaces the default.
    auto own = default_nvcc_options({"-arch=sm_80"});
    CHECK(std::find(own.begin(), own.end(), "-arch=compute_90") == own.end());
}

TEST_CASE("ELF reading: libraries, a script, a truncated file") {
    ElfInfo info;
    std::string err;
    REQUIRE(read_elf_info("/bin/sh", &info, &err));
    CHECK(info.is_elf);
    CHECK(info.dynamic);
    CHECK_FALSE(info.needs_cudart());
    CHECK_FALSE(info.has_cuda_fatbin);
    bool libc = false;
    for (const auto& n : info.needed) libc |= n.rfind("libc.so", 0) == 0;
    CHECK(libc);

    std::string script = write_temp("script.sh", "#!/bin/sh\necho hi\n");
    REQUIRE(read_elf_info(script, &info, &err));
    CHECK_FALSE(info.is_elf);

    // The first 100 bytes of a real executable, and garbage after an ELF magic: an error, no crash.
    std::ifstream in("/bin/sh", std::ios::binary);
    std::string head(100, '\0');
    in.read(head.data(), 100);
    std::string cut = write_temp("cut.elf", head);
    CHECK_FALSE(read_elf_info(cut, &info, &err));
    CHECK(err.find("truncated") != std::string::npos);
    std::string junk = write_temp("junk.elf", std::string("\x7f"
                                                          "ELF\x02\x01\x01",
                                                          7) +
                                                  std::string(200, '\xff'));
    CHECK_FALSE(read_elf_info(junk, &info, &err));
    CHECK_FALSE(read_elf_info("/nonexistent/x", &info, &err));
}

// [SECTION] the supervisor

TEST_CASE("run_process: exit code, signal, output capture, working folder") {
    ProcessSpec s;
    s.env = current_environment();
    s.output = OutputMode::capture;
    s.stdin_null = true;
    s.argv = {"/bin/sh", "-c", "echo out; echo err >&2; exit 7"};
    ProcessResult r = run_process(s);
    CHECK(r.outcome == Outcome::exited);
    CHECK(r.exit_code == 7);
    CHECK(r.out == "out\n");
    CHECK(r.err == "err\n");

    s.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
    r = run_process(s);
    CHECK(r.outcome == Outcome::signaled);
    CHECK(r.signal == SIGSEGV);

    s.argv = {"/bin/pwd"};
    s.cwd = "/usr";
    r = run_process(s);
    CHECK(r.out == "/usr\n");

    s.argv = {"/nonexistent/program"};
    r = run_process(s);
    CHECK(r.outcome == Outcome::start_failed);
    CHECK(r.error.find("/nonexistent/program") != std::string::npos);
}

TEST_CASE("run_process: the wall-clock limit stops a program that ignores SIGTERM") {
    ProcessSpec s;
    s.env = current_environment();
    s.output = OutputMode::capture;
    s.stdin_null = true;
    s.argv = {"/bin/sh", "-c", "trap '' TERM; while :; do :; done"};
    s.limits.wall_seconds = 0.3;
    auto t0 = std::chrono::steady_clock::now();
    ProcessResult r = run_process(s);
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(r.outcome == Outcome::wall_limit);
    CHECK(r.limit_text() == "wall-clock limit of 0.3 s");
    CHECK(took < 5.0);
}

TEST_CASE("run_process: output is cut at the limit and the program stopped") {
    ProcessSpec s;
    s.env = current_environment();
    s.output = OutputMode::capture;
    s.stdin_null = true;
    s.argv = {"/usr/bin/yes"};
    s.limits.output_bytes = 10000;
    s.limits.wall_seconds = 20;
    ProcessResult r = run_process(s);
    CHECK(r.outcome == Outcome::output_limit);
    CHECK(r.out.size() == 10000);
    CHECK(r.output_bytes >= 10000);
}

TEST_CASE("run_process: processes left behind are stopped with the program") {
    std::string pidfile = (temp_dir() / "left.pid").string();
    ProcessSpec s;
    s.env = current_environment();
    s.output = OutputMode::capture;
    s.stdin_null = true;
    // The background sleeper keeps the pipes open and would outlive its parent.
    s.argv = {"/bin/sh", "-c", "sleep 1000 & echo $! > " + pidfile + "; exit 0"};
    s.limits.wall_seconds = 20;
    auto t0 = std::chrono::steady_clock::now();
    ProcessResult r = run_process(s);
    CHECK(r.outcome == Outcome::exited);
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 5.0);
    pid_t left = pid_t(std::atoi(read_file(pidfile).c_str()));
    REQUIRE(left > 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(::kill(left, 0) != 0);  // gone
}

TEST_CASE("run_process: too many processes stop the program") {
    ProcessSpec s;
    s.env = current_environment();
    s.output = OutputMode::capture;
    s.stdin_null = true;
    s.argv = {"/bin/sh", "-c", "for i in $(seq 1 200); do sleep 100 & done; wait"};
    s.limits.tasks = 20;
    s.limits.wall_seconds = 20;
    ProcessResult r = run_process(s);
    CHECK(r.outcome == Outcome::task_limit);
    CHECK(r.peak_tasks > 20);
}

// [SECTION] building

TEST_CASE(
    "build: a program is built once, then found in the cache, and a changed header rebuilds it") {
    if (!programs_can_build()) return;
    // A copy of the probe in a private folder, so that its header can be changed.
    fs::path dir = temp_dir() / "cache-test";
    fs::create_directories(dir);
    fs::copy_file(kProbe, dir / "probe.cu", fs::copy_options::overwrite_existing);
    std::ofstream(dir / "probe_util.h")
        << "#pragma once\n#define PROBE_GREETING \"first " << ::getpid() << "\"\n";
    BuildRequest req;
    req.inputs = {"probe.cu"};
    req.cwd = dir.string();
    req.cache_dir = (dir / "cache").string();
    req.limits = default_build_limits();
    BuildResult a = build_program(req);
    REQUIRE_MESSAGE(a.ok(), std::string(a.message + "\n" + a.log));
    CHECK_FALSE(a.cached);
    CHECK(a.nvcc_seconds > 0);
    CHECK(::access(a.executable.c_str(), X_OK) == 0);
    ElfInfo info;
    std::string err;
    REQUIRE(read_elf_info(a.executable, &info, &err));
    CHECK(info.needs_cudart());  // -cudart shared
    CHECK(info.has_cuda_fatbin);

    BuildResult b = build_program(req);
    REQUIRE(b.ok());
    CHECK(b.cached);
    CHECK(b.key == a.key);

    std::ofstream(dir / "probe_util.h") << "#pragma once\n#define PROBE_GREETING \"second\"\n";
    BuildResult c = build_program(req);
    REQUIRE(c.ok());
    CHECK_FALSE(c.cached);
    CHECK(c.key != a.key);

    // Options are part of the key (an option nvcc refuses at once keeps this test quick).
    req.nvcc_options = {"--no-such-nvcc-option"};
    BuildResult d = build_program(req);
    CHECK(d.failure == BuildFailure::compile_error);
    CHECK(d.log.find("no-such-nvcc-option") != std::string::npos);
    CHECK_FALSE(d.key.empty());
    CHECK(d.key != c.key);
}

TEST_CASE("build: a compile error shows nvcc's message with file:line and exits 2") {
    if (!programs_can_build()) return;
    auto r = run(quote(kPrograms + "/broken.cu"));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("broken.cu:3: error") != std::string::npos);
    CHECK(r.output.find("cudalab: nvcc failed") != std::string::npos);
    CHECK(r.output.find("never") == std::string::npos);
}

TEST_CASE("build: a CUDA 12 style cudaMemPrefetchAsync(p, n, 0, 0) is told of CUDA 13's "
          "cudaMemLocation") {
    if (!programs_can_build()) return;
    auto r = run(quote(kPrograms + "/prefetch_cuda12.cu"));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("prefetch_cuda12.cu:6: error") != std::string::npos);
    CHECK_MESSAGE(r.output.find("CUDA 13 takes the device of cudaMemPrefetchAsync and "
                                "cudaMemAdvise as a cudaMemLocation") != std::string::npos,
                  r.output);
}

TEST_CASE("run PROG.cu on the emulated runtime says where a bad copy's buffer was allocated, as "
          "build then run --exe does") {
    if (!programs_can_build()) return;
    // The program runs as "copy_overflow", not a path to it: the runtime finds its own file.
    const std::string program =
        std::string(CUDALAB_TEST_DATA) + "/../programs/mistakes/copy_overflow.cu";
    auto r = run_command("CUDALAB_CUDART_DIR=" CUDALAB_EMULATED_DRIVER_DIR " " CUDALAB_CLI
                         " run --backend emu " +
                         quote(program) + " </dev/null");
    CHECK(r.exit_code == 3);
    CHECK_MESSAGE(r.output.find("(256 bytes, allocated at copy_overflow.cu:9)") !=
                      std::string::npos,
                  r.output);
}

TEST_CASE("build: a missing nvcc is named with where it was looked for") {
    use_test_environment();
    auto missing = run_command("CUDALAB_NVCC=/nonexistent/bin/nvcc " + std::string(CUDALAB_CLI) +
                               " run " + quote(kProbe) + " --rebuild");
    CHECK(missing.exit_code == 2);
    CHECK(missing.output.find("nvcc") != std::string::npos);
    CHECK(missing.output.find("/nonexistent/bin/nvcc") != std::string::npos);
    CHECK(missing.output.find("CUDA_HOME") != std::string::npos);
}

TEST_CASE("cudalab build writes the executable, and -rdc=true programs of two files build") {
    if (!programs_can_build()) return;
    fs::path out = temp_dir() / "rdc_prog";
    auto r = run_cli("build -rdc=true " + quote(kPrograms + "/rdc_main.cu") + " " +
                     quote(kPrograms + "/rdc_lib.cu") + " -o " + quote(out.string()));
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(::access(out.c_str(), X_OK) == 0);
    auto ran = run("--exe " + quote(out.string()));
    CHECK(ran.exit_code == 0);
    CHECK(ran.output.find("rdc ok") != std::string::npos);
}

// [SECTION] running

TEST_CASE("run: output, arguments and exit code pass through, and settings reach the runtime") {
    if (!programs_can_build()) return;
    auto r = run(quote(kProbe) + " -- args one 'two words'");
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("argv[0]=" + kPrograms + "/probe\n") != std::string::npos);
    CHECK(r.output.find("argv[3]=two words\n") != std::string::npos);

    r = run(quote(kProbe) + " -- exit 42");
    CHECK(r.exit_code == 42);
    // a plain exit needs no word from cudalab
    CHECK(r.output.find("cudalab:") == std::string::npos);

    r = run(quote(kProbe) + " --backend emu --devices 3 -- devices");
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("devices 3 (ok)") != std::string::npos);

    // The runtime's result file comes back in the JSON report, with the settings it was given.
    auto j =
        run_cli_stdout("run " + quote(kProbe) +
                       " --backend emu --json --driver-version 12080 --budget 1000 -- launch leak");
    REQUIRE(j.exit_code == 0);
    auto report = nlohmann::json::parse(j.output);
    CHECK(report["stdout"] == "launched\n");
    CHECK(report["run"]["backend"] == "emu");
    CHECK(report["run"]["runtime"]["launches"] == 1);
    CHECK(report["run"]["runtime"]["driver_version"] == "12080");
    CHECK(report["run"]["runtime"]["budget"] == "1000");
    CHECK(report["run"]["runtime"]["leaks"].size() == 1);
    CHECK(report["build"]["ok"] == true);
}

TEST_CASE("run: the program runs in the current folder") {
    if (!programs_can_build()) return;
    fs::path dir = temp_dir() / "cwd-test";
    fs::create_directories(dir);
    std::ofstream(dir / "data.txt") << "payload\n";
    auto r = run_command("cd " + quote(dir.string()) + " && " + CUDALAB_CLI + " run " +
                         quote(kProbe) + " -- read data.txt </dev/null");
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("read payload") != std::string::npos);
}

TEST_CASE("run: a crash, a hang, a memory hog and a flood end with their own exit codes") {
    if (!programs_can_build()) return;
    auto segv = run(quote(kProbe) + " -- segv");
    CHECK(segv.exit_code == 139);
    CHECK(segv.output.find("signal 11") != std::string::npos);

    auto hang = run(quote(kProbe) + " --time-limit 0.5 -- loop");
    CHECK(hang.exit_code == 124);
    CHECK(hang.output.find("wall-clock limit of 0.5 s") != std::string::npos);

    auto hog = run(quote(kProbe) + " --memory-limit 200M -- alloc");
    CHECK(hog.exit_code == 125);
    CHECK(hog.output.find("memory limit of 200 MiB") != std::string::npos);

    auto flood = run_command(std::string(CUDALAB_CLI) + " run " + quote(kProbe) +
                             " --output-limit 50k -- spam </dev/null 2>/dev/null | wc -c");
    CHECK(std::atoi(flood.output.c_str()) == 50 * 1024);
    auto flood_code = run(quote(kProbe) + " --output-limit 50k --json -- spam");
    CHECK(flood_code.exit_code == 123);

    auto fork = run(quote(kProbe) + " --tasks-limit 40 --time-limit 20 -- fork");
    CHECK(fork.exit_code == 121);
}

TEST_CASE("run --exe: a program built with the static runtime is refused with how to rebuild it") {
    if (!programs_can_build()) return;
    std::string looked;
    std::string nvcc = find_nvcc(&looked);
    fs::path exe = fs::path(CUDALAB_TEST_PROGRAM_CACHE) / "static_probe";
    if (!fs::exists(exe)) {
        fs::create_directories(exe.parent_path());
        auto b = run_command(nvcc + " -arch=compute_90 -code=compute_90 -o " +
                             quote(exe.string() + ".tmp") + " " + quote(kProbe) + " && mv " +
                             quote(exe.string() + ".tmp") + " " + quote(exe.string()));
        REQUIRE_MESSAGE(b.exit_code == 0, b.output);
    }
    auto r = run("--backend emu --exe " + quote(exe.string()) + " hello");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("static CUDA runtime") != std::string::npos);
    CHECK(r.output.find("-cudart shared") != std::string::npos);
    CHECK(r.output.find("CMAKE_CUDA_RUNTIME_LIBRARY=Shared") != std::string::npos);

    // A program that uses no CUDA at all runs as it is; every argument after it is its own.
    auto plain = run("--exe /bin/echo --devices 2");
    CHECK(plain.exit_code == 0);
    CHECK(plain.output == "--devices 2\n");
}

TEST_CASE("run: the emulated runtime missing, or a GPU asked for where there is none, exit 2 with "
          "the reason") {
    if (!programs_can_build()) return;
    auto r = run_command("CUDALAB_CUDART_DIR=/nonexistent " + std::string(CUDALAB_CLI) + " run " +
                         quote(kProbe) + " --backend emu </dev/null");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("/nonexistent/libcudart.so.13") != std::string::npos);
    std::string why;
    if (!gpu_available(&why)) {
        auto g = run(quote(kProbe) + " --backend gpu");
        CHECK(g.exit_code == 2);
        CHECK(g.output.find(why) != std::string::npos);
        // auto falls back to the emulator and says why in the report
        auto j = run_cli_stdout("run " + quote(kProbe) + " --json </dev/null");
        auto report = nlohmann::json::parse(j.output);
        CHECK(report["run"]["backend"] == "emu");
        CHECK(report["run"]["backend_reason"] == why);
    }
}

TEST_CASE("run: bad usage exits 2 with a message") {
    use_test_environment();
    CHECK(run("").exit_code == 2);
    auto typo = run(quote(kProbe) + " --time-limt 5");
    CHECK(typo.exit_code == 2);
    CHECK(typo.output.find("did you mean --time-limit") != std::string::npos);
    auto stray = run(quote(kProbe) + " input.txt");
    CHECK(stray.exit_code == 2);
    CHECK(stray.output.find("after --") != std::string::npos);
    CHECK(run(quote(kProbe) + " --devices 0").exit_code == 2);
    CHECK(run(quote(kProbe) + " --devices x").exit_code == 2);
    CHECK(run(quote(kProbe) + " --time-limit -1").exit_code == 2);
    CHECK(run(quote(kProbe) + " --memory-limit lots").exit_code == 2);
    CHECK(run(quote(kProbe) + " --backend cpu").exit_code == 2);
    CHECK(run(quote(kProbe) + " -cudart static").exit_code == 2);
    CHECK(run("--exe /bin/true ").exit_code == 0);
    CHECK(run("--exe /nonexistent/prog").exit_code == 2);
    CHECK(run_cli("build " + quote(kProbe) + " --sandbox").exit_code == 2);
    CHECK(run_cli("run --help").exit_code == 0);
}

// [SECTION] the sandbox

TEST_CASE("sandbox: no network, no secrets, no home, writable only where allowed") {
    if (!programs_can_build() || !have_sandbox()) return;
    fs::path dir = temp_dir() / "sandbox-cwd";
    fs::create_directories(dir);
    // As root the program runs as 65534, which writes only where it may: the folder is its.
    if (::geteuid() == 0) REQUIRE(::chown(dir.c_str(), kSandboxUid, kSandboxGid) == 0);
    auto in_dir = [&](const std::string& args, const std::string& env = "") {
        return run_command("cd " + quote(dir.string()) + " && " + env + " " + CUDALAB_CLI +
                           " run --sandbox " + quote(kProbe) + " " + args + " </dev/null");
    };
    CHECK(in_dir("-- net").output.find("connect ok") == std::string::npos);
    CHECK(
        in_dir("-- env GITHUB_TOKEN", "GITHUB_TOKEN=secret").output.find("GITHUB_TOKEN=(unset)") !=
        std::string::npos);
    const char* home = std::getenv("HOME");
    if (home && fs::is_directory(home) && std::string(home) != "/") {
        std::string secret =
            (fs::path(home) / (".cudalab-sandbox-test-" + std::to_string(::getpid()))).string();
        std::ofstream(secret) << "secret\n";
        CHECK(in_dir("-- read " + quote(secret)).output.find("cannot read") != std::string::npos);
        fs::remove(secret);
    }
    auto w = in_dir("-- write out.txt");
    CHECK(w.exit_code == 0);
    CHECK(read_file((dir / "out.txt").string()) == "written\n");
    CHECK(in_dir("--sandbox-readonly-cwd -- write again.txt").exit_code == 1);
    CHECK(in_dir("-- write /usr/cudalab-sandbox-test").output.find("cannot write") !=
          std::string::npos);
    CHECK(in_dir("-- write /tmp/scratch.txt").exit_code == 0);
    CHECK(in_dir("-- cwd").output.find("cwd " + fs::weakly_canonical(dir).string()) !=
          std::string::npos);
    // The default cache is in the hidden home (~/.cache/cudalab): the program is bound back in.
    if (home && fs::is_directory(home) && std::string(home) != "/") {
        fs::path cache =
            fs::path(home) / ".cache" / ("cudalab-sandbox-test-" + std::to_string(::getpid()));
        auto r = in_dir("-- hello", "CUDALAB_CACHE_DIR=" + quote(cache.string()));
        CHECK(r.exit_code == 0);
        CHECK(r.output.find("hello from probe") != std::string::npos);
        fs::remove_all(cache);
    }
}

TEST_CASE(
    "sandbox: nvcc builds in the sandbox too, so a source cannot include the grader's files") {
    if (!programs_can_build() || !have_sandbox()) return;
    const char* home = std::getenv("HOME");
    if (!home || !fs::is_directory(home) || std::string(home) == "/") {
        std::printf("SKIPPED: no home folder to hide\n");
        return;
    }
    std::string secret =
        (fs::path(home) / (".cudalab-include-test-" + std::to_string(::getpid()))).string();
    std::ofstream(secret) << "int grader_secret_value = 1234567;\n";
    fs::path dir = temp_dir() / "sandbox-include";
    fs::create_directories(dir);
    std::ofstream(dir / "steal.cu")
        << "#include \"" << secret << "\"\nint main() { return grader_secret_value; }\n";
    auto in_sandbox = run_command("cd " + quote(dir.string()) + " && " + CUDALAB_CLI +
                                  " run --sandbox --rebuild steal.cu </dev/null");
    CHECK(in_sandbox.exit_code == 2);
    CHECK(in_sandbox.output.find("steal.cu:1:") != std::string::npos);
    CHECK(in_sandbox.output.find("1234567") == std::string::npos);
    // Without the sandbox the same file is found (what the sandbox prevents).
    auto outside = run_command("cd " + quote(dir.string()) + " && " + CUDALAB_CLI +
                               " run --rebuild steal.cu </dev/null");
    CHECK(outside.exit_code == 1234567 % 256);
    fs::remove(secret);
}

TEST_CASE("sandbox: a source directly in /tmp builds (nvcc's own files go elsewhere)") {
    if (!programs_can_build() || !have_sandbox()) return;
    // The source's folder is bound read-only, so with the source in /tmp itself, /tmp is; nvcc
    // failed to write its intermediate files there ("Could not open output file").
    const fs::path source =
        fs::path("/tmp") / ("cudalab-in-tmp-" + std::to_string(::getpid()) + ".cu");
    std::ofstream(source) << "#include <cstdio>\n__global__ void k() {}\n"
                             "int main() { k<<<1, 1>>>(); std::printf(\"built\\n\"); return "
                             "cudaDeviceSynchronize() == cudaSuccess ? 0 : 1; }\n";
    auto r = run_command(std::string(CUDALAB_CLI) + " run --sandbox --rebuild " +
                         quote(source.string()) + " </dev/null");
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("built") != std::string::npos);
    fs::remove(source);
}

TEST_CASE("sandbox: limits, the runtime's files and the exit codes") {
    if (!programs_can_build() || !have_sandbox()) return;
    CHECK(run("--sandbox --time-limit 0.5 " + quote(kProbe) + " -- loop").exit_code == 124);
    CHECK(run("--sandbox --cpu-limit 1 " + quote(kProbe) + " -- loop").exit_code == 122);
    CHECK(run("--sandbox " + quote(kProbe) + " -- segv").exit_code == 139);
    CHECK(run("--sandbox " + quote(kProbe) + " -- exit 5").exit_code == 5);
    CHECK(run("--sandbox --tasks-limit 30 " + quote(kProbe) + " -- fork").exit_code == 121);
    auto flood = run("--sandbox --output-limit 20k " + quote(kProbe) + " -- spam");
    CHECK(flood.exit_code == 123);
    // The timeline is written inside and copied out; the result file comes back too.
    fs::path timeline = temp_dir() / "sandbox-timeline.json";
    fs::remove(timeline);
    auto j =
        run_cli_stdout("run --sandbox --json --devices 2 --timeline " + quote(timeline.string()) +
                       " " + quote(kProbe) + " -- launch </dev/null");
    auto report = nlohmann::json::parse(j.output);
    CHECK(report["run"]["runtime"]["launches"] == 1);
    CHECK(report["run"]["runtime"]["devices"] == "2");
    CHECK(report["run"]["timeline_written"] == true);
    auto t = nlohmann::json::parse(read_file(timeline.string()));
    CHECK(t["traceEvents"].size() == 1);
}

// [SECTION] the CUPTI timeline

TEST_CASE("CUPTI records become the emulated runtime's trace events: devices as 1+N by stream, the "
          "host as 0 by thread") {
    TimelineNames names;
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = "_Z5scalePffi";
    k.start = 5000;
    k.end = 9000;
    k.deviceId = 1;
    k.streamId = 13;
    k.gridX = 4;
    k.gridY = 1;
    k.gridZ = 1;
    k.blockX = 256;
    k.blockY = 1;
    k.blockZ = 1;
    k.correlationId = 7;
    auto ke = cupti::to_event(reinterpret_cast<CUpti_Activity*>(&k), nullptr, &names);
    REQUIRE(ke);
    CHECK(ke->name == "scale");
    CHECK(ke->args["function"] == "scale(float*, float, int)");
    CHECK(ke->category == "kernel");
    CHECK(ke->pid == 2);
    CHECK(ke->tid == 13);
    CHECK(ke->args["grid"] == "(4,1,1)");
    CHECK(ke->args["block"] == "(256,1,1)");

    CUpti_ActivityMemcpy6 m{};
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    m.bytes = 4096;
    m.start = 1000;
    m.end = 3000;
    m.deviceId = 0;
    m.streamId = 7;
    auto me = cupti::to_event(reinterpret_cast<CUpti_Activity*>(&m), nullptr, &names);
    REQUIRE(me);
    CHECK(me->name == "memcpy HtoD");
    CHECK(me->args["pinned"] == true);
    CHECK(me->args["bytes"] == 4096);
    CHECK(me->pid == 1);

    CUpti_ActivityAPI a{};
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = 20;
    a.start = 500;
    a.end = 800;
    a.processId = 4242;
    a.threadId = 99;
    auto namer = [](CUpti_CallbackId) { return std::string("cudaMalloc"); };
    auto ae = cupti::to_event(reinterpret_cast<CUpti_Activity*>(&a), namer, &names);
    REQUIRE(ae);
    CHECK(ae->name == "cudaMalloc");
    CHECK(ae->pid == 0);
    CHECK(ae->tid == 0);
    a.threadId = 12345;  // a second host thread
    CHECK(cupti::to_event(reinterpret_cast<CUpti_Activity*>(&a), namer, &names)->tid == 1);

    CHECK(cupti::strip_version_suffix("cudaMalloc_v3020") == "cudaMalloc");
    CHECK(cupti::strip_version_suffix("cudaLaunchKernel_ptsz_v7000") == "cudaLaunchKernel_ptsz");
    CHECK(cupti::short_kernel_name("void add<float>(float*, const float*, int)") == "add<float>");
    CHECK(cupti::short_kernel_name("matmul(float const*, float*)") == "matmul");
    CHECK(cupti::short_kernel_name("plain") == "plain");

    nlohmann::json t = timeline_json({*ke, *me, *ae}, names);
    std::vector<nlohmann::json> xs;
    for (const auto& e : t["traceEvents"])
        if (e["ph"] == "X") xs.push_back(e);
    REQUIRE(xs.size() == 3);
    CHECK(xs[0]["name"] == "cudaMalloc");  // sorted by start; times in microseconds from the first
    CHECK(xs[0]["ts"] == 0.0);
    CHECK(xs[1]["ts"] == 0.5);
    CHECK(xs[1]["dur"] == 2.0);
    CHECK(xs[2]["pid"] == 2);
    CHECK(xs[2]["tid"] == 13);
    bool stream_named = false, host_named = false, main_named = false;
    for (const auto& e : t["traceEvents"]) {
        stream_named |= e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 2 &&
                        e["tid"] == 13 && e["args"]["name"] == "stream 13";
        host_named |= e["ph"] == "M" && e["name"] == "process_name" && e["pid"] == 0 &&
                      e["args"]["name"] == "host";
        main_named |= e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 0 &&
                      e["tid"] == 0 && e["args"]["name"] == "main thread";
    }
    CHECK(stream_named);
    CHECK(host_named);
    CHECK(main_named);

    // Two kernels of one graph launch (same graph and correlation) make one "graph launch" span.
    CUpti_ActivityKernel10 g1 = k, g2 = k;
    g1.graphId = g2.graphId = 3;
    g1.correlationId = g2.correlationId = 40;
    g1.start = 10000;
    g1.end = 11000;
    g2.start = 11500;
    g2.end = 12000;
    std::vector<TimelineEvent> events = {
        *cupti::to_event(reinterpret_cast<CUpti_Activity*>(&g1), nullptr, &names),
        *cupti::to_event(reinterpret_cast<CUpti_Activity*>(&g2), nullptr, &names), *ke};
    cupti::add_graph_launches(events);
    REQUIRE(events.size() == 4);
    CHECK(events[3].name == "graph launch");
    CHECK(events[3].start_ns == 10000);
    CHECK(events[3].end_ns == 12000);
    CHECK(events[3].args["nodes"] == 2);
    CHECK(events[3].pid == 2);
}

TEST_CASE("CUPTI's unified memory records become the emulated runtime's page events, placed in "
          "their managed allocation, with totals in otherData") {
    TimelineNames names;
    cupti::ManagedAllocations managed;
    const std::uint64_t base = 0x7f0000200000ull;

    // A managed allocation of 1 MB (kept), and a device allocation (not managed: ignored).
    CUpti_ActivityMemory4 alloc{};
    alloc.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
    alloc.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
    alloc.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
    alloc.address = base;
    alloc.bytes = 1u << 20;
    CHECK_FALSE(
        cupti::to_event(reinterpret_cast<CUpti_Activity*>(&alloc), nullptr, &names, &managed));
    CUpti_ActivityMemory4 device = alloc;
    device.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    device.address = 0x7f1000000000ull;
    cupti::to_event(reinterpret_cast<CUpti_Activity*>(&device), nullptr, &names, &managed);
    REQUIRE(managed.ranges.size() == 1);
    CHECK(managed.ranges.at(base) == (1u << 20));

    auto um = [](CUpti_ActivityUnifiedMemoryCounterKind kind, std::uint64_t value,
                 std::uint64_t address, std::uint32_t src, std::uint32_t dst, std::uint32_t flags,
                 std::uint64_t start) {
        CUpti_ActivityUnifiedMemoryCounter3 u{};
        u.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER;
        u.counterKind = kind;
        u.value = value;
        u.address = address;
        u.srcId = src;
        u.dstId = dst;
        u.flags = flags;
        u.start = start;
        u.end = start + 1000;
        return u;
    };
    const std::uint32_t cpu = CUPTI_UNIFIED_MEMORY_CPU_DEVICE_ID;
    std::vector<TimelineEvent> events;
    auto add = [&](CUpti_ActivityUnifiedMemoryCounter3 u) {
        auto e = cupti::to_event(reinterpret_cast<CUpti_Activity*>(&u), nullptr, &names, &managed);
        if (e) events.push_back(*e);
        return e;
    };

    // cudaMemPrefetchAsync to device 1: 64 KB from the allocation's third page.
    auto prefetch =
        add(um(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD, 65536, base + 8192,
               cpu, 1, CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER, 10000));
    REQUIRE(prefetch);
    CHECK(prefetch->name == "pages to device");
    CHECK(prefetch->category == "page");
    CHECK(prefetch->pid == 2);
    CHECK(prefetch->tid == cupti::kPageRow);
    CHECK(prefetch->args["bytes"] == 65536);
    CHECK(prefetch->args["pages"] == 16);
    CHECK(prefetch->args["to"] == "device");
    CHECK(prefetch->args["cause"] == "prefetch");
    // A host touch's migration back from device 0, a fault's migration over, the driver's own
    // speculative one, and one outside every known allocation (5000 bytes: 2 pages).
    auto back =
        add(um(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH, 4096, base + 4096, 0,
               cpu, CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE, 20000));
    REQUIRE(back);
    CHECK(back->name == "pages to host");
    CHECK(back->pid == 1);
    CHECK(back->args["to"] == "host");
    CHECK(back->args["cause"] == "host touch");
    CHECK(add(um(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD, 8192, base, cpu, 0,
                 CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE, 30000))
              ->args["cause"] == "kernel touch");
    CHECK(add(um(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD, 5000,
                 0x7f2000201000ull, cpu, 0, CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH,
                 40000))
              ->args["cause"] == "driver prefetch");
    // Faults: the GPU's on its device's row, the CPU's on the host (an instant).
    auto gpu_fault = add(um(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT, 3, base, 0,
                            0, CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_WRITE, 29000));
    REQUIRE(gpu_fault);
    CHECK(gpu_fault->name == "GPU page fault");
    CHECK(gpu_fault->category == "page fault");
    CHECK(gpu_fault->pid == 1);
    CHECK(gpu_fault->args["fault_groups"] == 3);
    CHECK(gpu_fault->args["access"] == "write");
    auto cpu_fault = add(um(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
                            0x401234, base + 4096, 0, 0, 0, 19000));
    REQUIRE(cpu_fault);
    CHECK(cpu_fault->pid == 0);
    CHECK(cpu_fault->tid == cupti::kPageRow);
    CHECK(cpu_fault->end_ns == cpu_fault->start_ns);
    CHECK(cpu_fault->args["pc"] == "0x401234");
    // Kinds that are not configured are not drawn.
    CHECK_FALSE(add(um(CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING, 1, base, 0, 0, 0, 1)));
    REQUIRE(events.size() == 6);

    cupti::place_page_moves(events, managed);
    CHECK(events[0].args["allocation"] == "0x7f0000200000");
    CHECK(events[0].args["allocation_pages"] == 256);
    CHECK(events[0].args["first_page"] == 2);
    CHECK(events[0].args["allocation_known"] == true);
    CHECK(events[1].args["first_page"] == 1);
    CHECK(events[3].args["allocation"] == "0x7f2000200000");  // its 2 MB block
    CHECK(events[3].args["allocation_pages"] == 512);
    CHECK(events[3].args["first_page"] == 1);
    CHECK(events[3].args["pages"] == 2);
    CHECK(events[3].args["allocation_known"] == false);
    CHECK_FALSE(events[4].args.contains("allocation"));  // a fault is no move

    const nlohmann::json other = cupti::unified_memory_summary(events, "measured");
    CHECK(other["unified_memory"] == "measured");
    CHECK(other["managed_host_to_device_bytes"] == 65536 + 8192 + 5000);
    CHECK(other["managed_device_to_host_bytes"] == 4096);
    CHECK(other["managed_prefetched_bytes"] == 65536);
    CHECK(other["managed_gpu_page_faults"] == 1);
    CHECK(other["managed_cpu_page_faults"] == 1);

    // The file names the rows as the emulated runtime does.
    const nlohmann::json t = timeline_json(events, names, other);
    bool device_row = false, host_row = false;
    for (const auto& e : t["traceEvents"]) {
        device_row |= e["ph"] == "M" && e["pid"] == 2 && e["tid"] == cupti::kPageRow &&
                      e["args"]["name"] == "managed pages";
        host_row |= e["ph"] == "M" && e["pid"] == 0 && e["tid"] == cupti::kPageRow &&
                    e["args"]["name"] == "CPU page faults";
    }
    CHECK(device_row);
    CHECK(host_row);
    CHECK(t["otherData"]["managed_gpu_page_faults"] == 1);
}

TEST_CASE("CUPTI's peer-to-peer copy records become 'memcpy PtoP' with their devices (lesson 20)") {
    // Lesson 20 counts peer bytes by the name and each GPU's share by src_device/dst_device; a
    // copy between GPUs comes as a MEMCPY2 record (or a MEMCPY record of kind PTOP).
    TimelineNames names;
    CUpti_ActivityMemcpyPtoP4 p{};
    p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
    p.bytes = 8200000;
    p.start = 2000;
    p.end = 24000;
    p.deviceId = 1;
    p.streamId = 15;
    p.srcDeviceId = 0;
    p.dstDeviceId = 1;
    auto pe = cupti::to_event(reinterpret_cast<CUpti_Activity*>(&p), nullptr, &names);
    REQUIRE(pe);
    CHECK(pe->name == "memcpy PtoP");
    CHECK(pe->category == "memcpy");
    CHECK(pe->pid == 2);
    CHECK(pe->tid == 15);
    CHECK(pe->args["bytes"] == 8200000);
    CHECK(pe->args["src_device"] == 0);
    CHECK(pe->args["dst_device"] == 1);
    CUpti_ActivityMemcpy6 m{};
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    m.bytes = 64;
    auto me = cupti::to_event(reinterpret_cast<CUpti_Activity*>(&m), nullptr, &names);
    REQUIRE(me);
    CHECK(me->name == "memcpy PtoP");
}
