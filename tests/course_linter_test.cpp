// The course linter (rustlings `dev check`): the invariants every lesson keeps. Every exercise has
// a
// TODO and a hint and fails as shipped without faulting; every solution passes; ids are unique and
// the manifest, the lesson folders and the build agree; every performance check can fail.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "lessons/course.h"
#include "lessons/lint.h"
#include "lessons/program_lesson.h"
#include "support.h"

namespace fs = std::filesystem;
using namespace cudalab;
using namespace cudalab::lessons;

namespace {

Course load() {
    Course course;
    Status s = load_course(find_course_root(), &course);
    REQUIRE_MESSAGE(s.ok(), s.message);
    return course;
}

// The lesson ids lessons/CMakeLists.txt builds, in order.
std::vector<std::string> built_lessons(const std::string& root) {
    std::string cmake = test_support::read_file(root + "/lessons/CMakeLists.txt");
    std::vector<std::string> ids;
    std::regex id(R"(^\s+(\d\d[a-z]?-[a-z0-9-]+)\s*$)");
    std::istringstream in(cmake);
    std::string line;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_match(line, m, id)) ids.push_back(m[1]);
    }
    return ids;
}

}  // namespace

TEST_CASE("course linter: manifest, folders and build agree") {
    Course course = load();
    REQUIRE(course.lessons.size() >= 2);
    // The files, texts, hints, views and lesson.toml files: lessons/lint.h, without running.
    compiler::Compiler compiler;
    LintOptions o;
    o.run = false;
    for (const auto& f : lint_course(course, compiler, o))
        CHECK_MESSAGE(!f.error, f.lesson << ": " << f.message);
    // The build: lessons/CMakeLists.txt compiles exactly the lessons that have no lesson.toml (or
    // whose lesson.toml says kind = "program"), in manifest order.
    std::vector<std::string> cpp_ids, data_ids;
    for (const auto& l : course.lessons) {
        CHECK_MESSAGE(l.data_error.empty(), l.data_error);
        if (l.data && l.data->kind == "kernel") data_ids.push_back(l.id);
        else cpp_ids.push_back(l.id);
    }
    CHECK(built_lessons(course.root) == cpp_ids);
    std::set<std::string> registered;
    for (const auto& h : registered_host_sides()) registered.insert(h.id);
    // A program lesson registers with CUDALAB_PROGRAM_LESSON, and only there.
    for (const auto& h : registered_program_host_sides()) {
        CHECK_MESSAGE(registered.insert(h.id).second,
                      h.id << ": registered as a kernel lesson and a program lesson");
        const LessonInfo* l = course.find(h.id);
        CHECK_MESSAGE((l && l->is_program()), h.id << ": registered as a program lesson but the "
                                                      "manifest does not say kind = \"program\"");
    }
    CHECK(registered == std::set<std::string>(cpp_ids.begin(), cpp_ids.end()));
    for (const auto& id : data_ids)
        CHECK_MESSAGE(!registered.count(id),
                      id << ": a data lesson with a C++ host side compiled in too");
}

TEST_CASE("course linter: every solution passes, every exercise fails as shipped, every "
          "performance check can fail") {
    // `cudalab lint` on the built-in course: the same function.
    Course course = load();
    compiler::Compiler compiler;
    for (const auto& f : lint_course(course, compiler))
        CHECK_MESSAGE(!f.error, f.lesson << ": " << f.message);
}

TEST_CASE("course linter: a duplicate id or a malformed manifest is reported with the file named") {
    fs::path root = test_support::temp_dir() / "course-dup";
    fs::create_directories(root / "lessons");
    std::ofstream(root / "lessons" / "manifest.toml")
        << "[[lesson]]\nid = \"01-a\"\ntitle = \"A\"\n\n[[lesson]]\nid = \"01-a\"\ntitle = \"B\"\n";
    Course course;
    Status s = load_course(root.string(), &course);
    CHECK_FALSE(s.ok());
    CHECK(s.message.find("manifest.toml") != std::string::npos);
    CHECK(s.message.find("duplicate lesson id '01-a'") != std::string::npos);

    std::ofstream(root / "lessons" / "manifest.toml") << "[[lesson]\nid = ";
    s = load_course(root.string(), &course);
    CHECK_FALSE(s.ok());
    CHECK(s.message.find("manifest.toml:") != std::string::npos);
}

TEST_CASE("course linter: a lesson whose files are missing is named with the file") {
    fs::path root = test_support::temp_dir() / "course-missing";
    fs::create_directories(root / "lessons");
    std::ofstream(root / "lessons" / "manifest.toml")
        << "[[lesson]]\nid = \"01-threads\"\ntitle = \"A\"\nhints = [\"h\"]\n";
    Course course;
    REQUIRE(load_course(root.string(), &course).ok());
    compiler::Compiler compiler;
    CheckOptions o;
    o.backend = "emu";
    CheckReport r = check_lesson(course, course.lessons[0], o, compiler);
    CHECK_FALSE(r.status.ok());
    CHECK(r.status.message.find("exercises/01-threads.cu") != std::string::npos);
}

TEST_CASE("course: a lesson is named by its id or its number") {
    const Course course = load();
    REQUIRE(course.resolve("05-coalescing") != nullptr);
    CHECK(course.resolve("05-coalescing")->id == "05-coalescing");
    CHECK(course.resolve("5") == course.resolve("05-coalescing"));
    CHECK(course.resolve("05") == course.resolve("05-coalescing"));
    CHECK(course.resolve("02")->id == "02-vector-add");  // not 02b, which only its id names
    CHECK(course.resolve("02b")->id == "02b-host-program");
    CHECK(course.resolve("2b")->id == "02b-host-program");
    CHECK(course.resolve("2B") == nullptr);
    CHECK(course.resolve("99") == nullptr);
    CHECK(course.resolve("99999999999999999999") == nullptr);
    CHECK(course.resolve("-1") == nullptr);
    CHECK(course.resolve("") == nullptr);
    CHECK(course.resolve("coalescing") == nullptr);
}
