// The command-line contract course scripts depend on: commands, exit codes, report formats.
#include <cstring>

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "lessons/progress.h"
#include "support.h"

using namespace test_support;

TEST_CASE("cudalab list prints one lesson per line, starting with its id") {
    auto r = run_cli("list");
    CHECK(r.exit_code == 0);
    CHECK(r.output.rfind("01-threads", 0) == 0);
    CHECK(r.output.find("\n02-vector-add") != std::string::npos);
}

TEST_CASE(
    "cudalab list says when a lesson passed before fails now (the app reads the same label)") {
    const std::string state = (temp_dir() / "list-progress.db").string();
    std::filesystem::remove(state);
    {
        cudalab::lessons::Progress p(state);
        p.record_check("02-vector-add", true);
        p.record_check("02-vector-add", false);
        p.record_check("03-matrix-2d", false);
        p.record_check("03-matrix-2d", true);
        CHECK(p.get("02-vector-add").fails_now());
        CHECK(cudalab::lessons::progress_label(p.get("02-vector-add")) ==
              "passed before, fails now");
    }
    auto r = run_command("CUDALAB_STATE=" + state + " " + std::string(CUDALAB_CLI) + " list");
    CHECK(r.exit_code == 0);
    auto line_of = [&](const std::string& id) {
        const auto at = r.output.find("\n" + id);
        if (at == std::string::npos) return std::string();
        return r.output.substr(at + 1, r.output.find('\n', at + 1) - at - 1);
    };
    CHECK(line_of("02-vector-add").find("passed before, fails now") != std::string::npos);
    // failed, then passed: passed
    CHECK(line_of("03-matrix-2d").find(" passed ") != std::string::npos);
    CHECK(line_of("03-matrix-2d").find("fails now") == std::string::npos);
    CHECK(line_of("04-divergence").find("not tried") != std::string::npos);
    // A pass after the failure clears it, also for a store opened anew (the history is read back).
    {
        cudalab::lessons::Progress p(state);
        CHECK(p.get("02-vector-add").fails_now());
        p.record_check("02-vector-add", true);
    }
    cudalab::lessons::Progress again(state);
    CHECK_FALSE(again.get("02-vector-add").fails_now());
    CHECK(again.get("02-vector-add").state == cudalab::lessons::LessonState::passed);
}

TEST_CASE("check --solution passes and exits 0") {
    auto r = run_cli("check 02-vector-add --solution --backend emu");
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("checks passed") != std::string::npos);
}

TEST_CASE("the shipped exercise fails with mismatches a learner can act on") {
    auto r = run_cli("check 02-vector-add --backend emu");
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("FAIL") != std::string::npos);
    // The first mismatches with index, expected, actual and who wrote it.
    CHECK(r.output.find("c[512]: expected") != std::string::npos);
    CHECK(r.output.find("no thread wrote it") != std::string::npos);
    CHECK(r.output.find("try:") != std::string::npos);
}

TEST_CASE("check --format json follows the contract") {
    auto r = run_cli_stdout("check 02-vector-add --solution --backend emu --format json");
    REQUIRE(r.exit_code == 0);
    auto j = nlohmann::json::parse(r.output);
    CHECK(j["lesson"] == "02-vector-add");
    CHECK(j["passed"] == true);
    CHECK(j["backend"] == "emu");
    REQUIRE(j["checks"].is_array());
    REQUIRE(j["checks"].size() > 0);
    bool saw_performance = false;
    for (auto& c : j["checks"]) {
        CHECK(c.contains("name"));
        CHECK((c["kind"] == "correctness" || c["kind"] == "performance"));
        CHECK(c["passed"].is_boolean());
        CHECK(c.contains("value"));
        CHECK(c.contains("threshold"));
        CHECK(c["message"].is_string());
        saw_performance |= c["kind"] == "performance";
    }
    CHECK(saw_performance);
}

TEST_CASE("a failed check in JSON carries the mismatches with block and thread") {
    auto r = run_cli_stdout("check 01-threads --backend emu --format json");
    CHECK(r.exit_code == 1);
    auto j = nlohmann::json::parse(r.output);
    CHECK(j["passed"] == false);
    bool found = false;
    for (auto& c : j["checks"])
        if (c.contains("mismatches"))
            for (auto& m : c["mismatches"])
                found |= m.contains("index") && m.contains("expected") && m.contains("actual");
    CHECK(found);
}

TEST_CASE("an unknown lesson exits 2 and lists the valid ids") {
    auto r = run_cli("check 99-nope");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("01-threads") != std::string::npos);
    CHECK(r.output.find("02-vector-add") != std::string::npos);
}

TEST_CASE("a compile error prints the learner's file:line:col and exits 2") {
    std::string path = write_temp(
        "broken.cu", "__global__ void vector_add(const float* a, const float* b, float* c, int n)\n"
                     "{\n"
                     "    int i = blockIdx.x * blockDim.x + threadIdx.x\n"
                     "    c[i] = a[i] + b[i];\n"
                     "}\n");
    auto r = run_cli("check 02-vector-add --backend emu --source " + path);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("broken.cu:4:") != std::string::npos);
    CHECK(r.output.find("error") != std::string::npos);
}

TEST_CASE("an out-of-bounds access names the kernel, source line, block and thread") {
    std::string path = write_temp(
        "oob.cu", "__global__ void vector_add(const float* a, const float* b, float* c, int n)\n"
                  "{\n"
                  "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "    c[i] = a[i] + b[i];\n"
                  "}\n");
    auto r = run_cli("check 02-vector-add --backend emu --source " + path);
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("oob.cu:4: error: out-of-bounds") != std::string::npos);
    CHECK(r.output.find("in kernel 'vector_add'") != std::string::npos);
    CHECK(r.output.find("block (") != std::string::npos);
    CHECK(r.output.find("thread (") != std::string::npos);
    CHECK(r.output.find("try:") != std::string::npos);
}

TEST_CASE("a check never modifies the learner's file") {
    std::string before = read_file("exercises/02-vector-add.cu");
    run_cli("check 02-vector-add --backend emu");
    CHECK(read_file("exercises/02-vector-add.cu") == before);
}

TEST_CASE("--backend gpu without a GPU exits 2 naming the missing driver") {
    auto r = run_cli("check 02-vector-add --solution --backend gpu");
    if (r.exit_code == 0) {
        MESSAGE("a GPU is present: skipping the no-GPU behaviour");
        return;
    }
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("driver") != std::string::npos);
}

TEST_CASE("bad usage exits 2") {
    CHECK(run_cli("check").exit_code == 2);
    CHECK(run_cli("check 02-vector-add --format yaml").exit_code == 2);
    CHECK(run_cli("frobnicate").exit_code == 2);
}

TEST_CASE("hint shows hints one at a time") {
    auto first = run_cli("hint 02-vector-add 1");
    CHECK(first.exit_code == 0);
    CHECK(first.output.find("Hint 1 of") != std::string::npos);
    auto third = run_cli("hint 02-vector-add 3");
    CHECK(third.output.find("Hint 3 of") != std::string::npos);
}

TEST_CASE("a kernel that reads shared memory no thread wrote fails its check, though the emulator "
          "zeroes it") {
    std::string src = read_file("solutions/10-histogram.cu");
    auto at = src.find("local[t] = 0;");
    REQUIRE(at != std::string::npos);
    src.erase(at, std::string("local[t] = 0;").size());
    std::string path = write_temp("hist_unzeroed.cu", src);
    auto r = run_cli("check 10-histogram --backend emu --source " + path);
    CHECK(r.exit_code == 1);
    // The diagnostic fails the launch's own correctness check: the set of checks is the solution's.
    CHECK(r.output.find("read shared memory no thread had written") != std::string::npos);
    CHECK(r.output.find("FAIL  histogram") != std::string::npos);
    auto solution = run_cli("check 10-histogram --backend emu --solution");
    auto count = [](const std::string& out) {
        auto at = out.find(" checks passed");
        auto of = out.rfind(" of ", at);
        return out.substr(of, at - of);
    };
    CHECK(count(r.output) == count(solution.output));
}

TEST_CASE("hint N outside 1..N says how many hints there are and exits 2") {
    auto r = run_cli("hint 02-vector-add 99");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("ask for 1 to") != std::string::npos);
    CHECK(run_cli("hint 02-vector-add -1").exit_code == 2);
}

TEST_CASE("learn with no id opens the first lesson not passed yet") {
    namespace fs = std::filesystem;
    // A copy of the course whose lesson 01 exercise is solved, and a fresh state file.
    const fs::path root = temp_dir() / "learn-course";
    fs::remove_all(root);
    fs::create_directories(root);
    for (const char* d : {"lessons", "exercises", "solutions"})
        fs::copy(d, root / d, fs::copy_options::recursive);
    fs::copy_file("solutions/01-threads.cu", root / "exercises" / "01-threads.cu",
                  fs::copy_options::overwrite_existing);
    const std::string env =
        "CUDALAB_ROOT=" + root.string() + " CUDALAB_STATE=" + (root / "state.json").string() + " ";
    const std::string cli = env + std::string(CUDALAB_CLI);
    // Nothing passed: lesson 01.
    auto fresh = run_command(cli + " learn --backend emu </dev/null");
    CHECK(fresh.output.find("exercises/01-threads.cu") != std::string::npos);
    // That check passed lesson 01: lesson 02 is next.
    auto next = run_command(cli + " learn --backend emu </dev/null");
    INFO(next.output.substr(0, 400));
    CHECK(next.output.find("exercises/02-vector-add.cu") != std::string::npos);
    fs::remove_all(root);
}

TEST_CASE("a cached compile reports how long it took when it ran") {
    // With a backend other than emu, every file is compiled before any backend starts, so the
    // check's own compile is a cache hit.
    auto r = run_cli("check 02-vector-add --solution --backend auto");
    const auto at = r.output.find("time     compile");
    REQUIRE(at != std::string::npos);
    const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
    INFO(line);
    CHECK(line.find("compile cached, ") != std::string::npos);
    CHECK(line.find(" ms when compiled") != std::string::npos);
    CHECK(line.find("compile cached, 0 ms") == std::string::npos);
}

TEST_CASE("exec --json keeps device printf inside the JSON document") {
    const std::string src = write_temp(
        "hello.cu",
        "#include <cstdio>\n__global__ void hello() { printf(\"hi from %d\\n\", threadIdx.x); }\n");
    auto r = run_cli_stdout("exec " + src + " --kernel hello --grid 1 --block 2 --json");
    INFO(r.output);
    auto j = nlohmann::json::parse(r.output);  // throws (fails the test) if printf came before it
    CHECK(j["status"] == "ok");
    CHECK(j["printf"].get<std::string>().find("hi from 1") != std::string::npos);
}

TEST_CASE("exec --its: the paths of a divergent branch take turns, so lanes handing a flag back "
          "and forth finish") {
    const std::string races = std::string(CUDALAB_TEST_DATA) + "/kernels/races/races.cu";
    const std::string launch =
        "exec " + races +
        " --kernel its_handoff --grid 1 --block 64 --arg u32[64]:iota --arg u32[64]:zeros --json";
    auto lockstep = run_cli_stdout(launch + " --budget 100000");
    INFO(lockstep.output);
    CHECK(lockstep.output.find("instruction budget exhausted") != std::string::npos);
    auto turns = run_cli_stdout(launch + " --its --its-seed 3");
    INFO(turns.output);
    CHECK(turns.exit_code == 0);
    CHECK(nlohmann::json::parse(turns.output)["status"] == "ok");
}

TEST_CASE("lesson text in a terminal: no raw Markdown markers, tables as columns, no escape codes "
          "into a pipe") {
    auto r = run_cli_stdout("show 08-matmul-tiled");
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("**") == std::string::npos);
    CHECK(r.output.find("|---") == std::string::npos);
    CHECK(r.output.find("| naive") == std::string::npos);
    // the table's row, as a column
    CHECK(r.output.find("naive (the shipped exercise)") != std::string::npos);
    CHECK(r.output.find('\033') == std::string::npos);         // stdout is a pipe here
    CHECK(r.output.find("`A[row][k]`") != std::string::npos);  // code keeps its backticks
}

TEST_CASE("a kernel declared with other parameter types than the lesson passes is told so, not out "
          "of bounds") {
    std::string src = read_file("solutions/02-vector-add.cu");
    const auto at = src.find("const float* a");
    REQUIRE(at != std::string::npos);
    src.replace(at, std::string("const float* a").size(), "const double* a");
    auto r = run_cli("check 02-vector-add --backend emu --source " + write_temp("double.cu", src));
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("parameter 1 of kernel vector_add is declared `double*`, but the lesson "
                        "passes a buffer of float") != std::string::npos);
    CHECK(r.output.find("out-of-bounds") == std::string::npos);
    // One parameter too few.
    std::string fewer = read_file("solutions/02-vector-add.cu");
    const auto n = fewer.find(", int n)");
    REQUIRE(n != std::string::npos);
    fewer.replace(n, std::string(", int n)").size(), ")");
    fewer.insert(fewer.find('{', n) + 1, " const int n = 0;");
    auto r2 =
        run_cli("check 02-vector-add --backend emu --source " + write_temp("fewer.cu", fewer));
    INFO(r2.output);
    CHECK(r2.output.find("is declared with 3 parameters, but the lesson passes 4") !=
          std::string::npos);
}

TEST_CASE("inputs writes a program lesson's in.bin for a seed, the same every time, and says how "
          "to run the exercise on it") {
    const auto dir = temp_dir() / "inputs";
    std::filesystem::remove_all(dir);
    auto r = run_cli("inputs 14-streams --seed 12345 --backend emu -o " + (dir / "a").string());
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("in.bin") != std::string::npos);
    CHECK(r.output.find("seed 12345") != std::string::npos);
    CHECK(r.output.find("exercises/14-streams.cu -- in.bin out.bin") != std::string::npos);
    // Lesson 14's first run: n (a small, awkward size) and then n values.
    const std::string a = read_file((dir / "a" / "in.bin").string());
    REQUIRE(a.size() >= 8);
    unsigned n = 0;
    std::memcpy(&n, a.data(), 4);
    CHECK(n > 0);
    CHECK(a.size() == (std::size_t(n) + 1) * 4);
    // Nothing but the lesson's inputs (no timeline, no out.bin).
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir / "a")) (void)e, ++files;
    CHECK(files == 1);

    // The same seed draws the same file; another seed another.
    REQUIRE(run_cli("inputs 14-streams --seed 12345 --backend emu -o " + (dir / "b").string())
                .exit_code == 0);
    CHECK(read_file((dir / "b" / "in.bin").string()) == a);
    REQUIRE(run_cli("inputs 14-streams --seed 54321 --backend emu -o " + (dir / "c").string())
                .exit_code == 0);
    CHECK(read_file((dir / "c" / "in.bin").string()) != a);

    // A kernel lesson has no program to run by hand; a bad seed is bad usage.
    r = run_cli("inputs 02-vector-add -o " + (dir / "d").string());
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("kernel lesson") != std::string::npos);
    CHECK(run_cli("inputs 14-streams --seed x -o " + (dir / "d").string()).exit_code == 2);
    std::filesystem::remove_all(dir);
}

TEST_CASE("exec --cluster runs the grid in thread block clusters and checks their shape") {
    const std::string path =
        write_temp("cluster_ring.cu",
                   "#include <cooperative_groups.h>\n"
                   "namespace cg = cooperative_groups;\n"
                   "__global__ void ring(int* out) {\n"
                   "    __shared__ int s[32];\n"
                   "    cg::cluster_group cl = cg::this_cluster();\n"
                   "    s[threadIdx.x] = blockIdx.x;\n"
                   "    cl.sync();\n"
                   "    out[blockIdx.x * 32 + threadIdx.x] =\n"
                   "        cl.map_shared_rank(s, (cl.block_rank() + 1) % cl.num_blocks())[0];\n"
                   "    cl.sync();\n"
                   "}\n");
    const auto out_dir = temp_dir() / "cluster_out";
    auto r = run_cli("exec " + path +
                     " --backend emu --kernel ring --grid 4 --block 32 --cluster 2 "
                     "--arg 'i32[128]:zeros' --out " +
                     out_dir.string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const std::string bytes = read_file((out_dir / "arg0.bin").string());
    REQUIRE(bytes.size() == 128 * 4);
    std::int32_t v[128];
    std::memcpy(v, bytes.data(), sizeof v);
    for (int b = 0; b < 4; ++b) CHECK(v[b * 32] == (b % 2 == 0 ? b + 1 : b - 1));
    auto bad = run_cli("exec " + path +
                       " --backend emu --kernel ring --grid 3 --block 32 "
                       "--cluster 2 --arg 'i32[96]:zeros'");
    CHECK(bad.exit_code == 2);
    CHECK(bad.output.find("not a whole number of clusters") != std::string::npos);
}
