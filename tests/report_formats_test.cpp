// Every report format parses with a standard parser: JSON (nlohmann), JUnit XML (Python's
// xml.etree, the parser CI tools and most graders sit on) and Gradescope's results.json.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "support.h"

using namespace test_support;

TEST_CASE(
    "--format junit is JUnit XML: testsuites, a testsuite per lesson, a failure per failed check") {
    auto r = run_cli_stdout("check all --backend emu --format junit");
    CHECK(r.exit_code == 1);  // the shipped exercises fail
    std::string path = write_temp("report.xml", r.output);
    const std::string script = "import sys, xml.etree.ElementTree as ET\n"
                               "root = ET.parse(sys.argv[1]).getroot()\n"
                               "assert root.tag == 'testsuites', root.tag\n"
                               "suites = root.findall('testsuite')\n"
                               "cases = root.findall('testsuite/testcase')\n"
                               "failures = root.findall('testsuite/testcase/failure')\n"
                               "assert int(root.get('tests')) == len(cases)\n"
                               "assert int(root.get('failures')) == len(failures)\n"
                               "print(len(suites), len(cases), len(failures))\n";
    std::string script_path = write_temp("parse_junit.py", script);
    auto parsed = run_command("python3 " + script_path + " " + path);
    INFO(parsed.output);
    REQUIRE(parsed.exit_code == 0);
    int suites = 0, cases = 0, failures = 0;
    std::istringstream(parsed.output) >> suites >> cases >> failures;
    CHECK(suites >= 12);
    CHECK(cases > suites);
    CHECK(failures > 0);
    CHECK(failures < cases);
}

TEST_CASE("--format gradescope is Gradescope's results.json") {
    auto r = run_cli_stdout("check 02-vector-add --backend emu --format gradescope");
    auto j = nlohmann::json::parse(r.output);
    REQUIRE(j["tests"].is_array());
    REQUIRE(!j["tests"].empty());
    double total = 0;
    for (auto& t : j["tests"]) {
        CHECK(t["name"].is_string());
        CHECK(t["score"].is_number());
        CHECK(t["max_score"].is_number());
        CHECK((t["status"] == "passed" || t["status"] == "failed"));
        CHECK(t["output"].is_string());
        total += t["score"].get<double>();
    }
    CHECK(j["score"].get<double>() == total);
    auto solved = nlohmann::json::parse(
        run_cli_stdout("check 02-vector-add --solution --backend emu --format gradescope").output);
    double max = 0;
    for (auto& t : solved["tests"]) max += t["max_score"].get<double>();
    CHECK(solved["score"].get<double>() == max);
}

TEST_CASE("check all --format json is an array of lesson reports") {
    auto r = run_cli_stdout("check all --solution --backend emu --format json");
    CHECK(r.exit_code == 0);
    auto j = nlohmann::json::parse(r.output);
    REQUIRE(j.is_array());
    CHECK(j.size() >= 12);
    for (auto& l : j) {
        INFO(l["lesson"].get<std::string>() << ": " << l.dump().substr(0, 3000));
        CHECK(l["passed"] == true);
    }
}

TEST_CASE("a check names the launch it measured: in text, in JSON, and `check --launch N` shows "
          "that launch") {
    // Lesson 07's shipped exercise fails the store check; the launch that wastes the most store
    // sectors is the first, the 72 x 200 matrix.
    auto j = nlohmann::json::parse(
        run_cli_stdout("check 07-transpose --backend emu --seed 20261130 --format json").output);
    REQUIRE(j["launches"].size() >= 3);
    const std::string of = " of " + std::to_string(j["launches"].size()) + ": ";
    bool found = false;
    for (auto& c : j["checks"])
        if (c["name"] == "global stores: sectors moved per sector needed") {
            found = true;
            CHECK(c["launch"] == 0);
        } else if (c["kind"] == "correctness") {
            CHECK(c["launch"].is_number());
        }
    CHECK(found);
    auto text = run_cli_stdout("check 07-transpose --backend emu --seed 20261130");
    CHECK(text.exit_code == 1);
    CHECK(text.output.find("measured on launch 1" + of +
                           "transpose, grid (7,3,1) x block (32,32,1) (cudalab gui --launch 1)") !=
          std::string::npos);
    auto launch = run_cli_stdout("check 07-transpose --backend emu --seed 20261130 --launch 3");
    CHECK(launch.output.find("launch 3" + of + "transpose, grid (2,1,1) x block (32,32,1)") !=
          std::string::npos);
    CHECK(launch.output.find("PASS  transpose of a 1 x 45 matrix") != std::string::npos);
    // The figures per line of that launch: the store line of the direct kernel.
    CHECK(launch.output.find("out[") != std::string::npos);
    auto none = run_cli_stdout("check 07-transpose --backend emu --seed 20261130 --launch 99");
    CHECK(none.output.find("no launch 99") != std::string::npos);
}
