// The course linter (rustlings `dev check`): the invariants every lesson keeps. Every exercise has a
// TODO and a hint and fails as shipped without faulting; every solution passes; ids are unique and
// the manifest, the lesson folders and the build agree; every performance check can fail.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "lessons/course.h"
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

std::set<std::string> performance_checks(const CheckReport& r, bool failed_only) {
    std::set<std::string> names;
    for (const auto& c : r.checks)
        if (c.kind == CheckKind::performance && (!failed_only || !c.passed)) names.insert(c.name);
    return names;
}

}  // namespace

TEST_CASE("course linter: manifest, folders and build agree") {
    Course course = load();
    REQUIRE(course.lessons.size() >= 2);
    std::vector<std::string> manifest_ids;
    for (const auto& l : course.lessons) {
        manifest_ids.push_back(l.id);
        CHECK_MESSAGE(std::regex_match(l.id, std::regex(R"(\d\d[a-z]?-[a-z0-9-]+)")), l.id << ": ids are NN-slug (NNb-slug for a companion of lesson NN)");
        CHECK_MESSAGE(!l.title.empty(), l.id << ": no title");
        for (const auto& path : {l.text_path, l.host_path, l.exercise_path, l.solution_path})
            CHECK_MESSAGE(fs::exists(path), l.id << ": missing " << path);
        CHECK_MESSAGE(l.hints.size() >= 1, l.id << ": needs at least one hint");
        CHECK_MESSAGE(test_support::read_file(l.exercise_path).find("TODO") != std::string::npos,
                      l.exercise_path << " has no TODO for the learner");
        std::string text = test_support::read_file(l.text_path);
        CHECK_MESSAGE(text.find("## Your task") != std::string::npos, l.text_path << " has no '## Your task'");
        // The app's views (docs/gui.md); a lesson that names another opens none.
        const std::set<std::string> views = {"grid", "warps", "memory", "shared", "timeline", "hierarchy"};
        for (const auto& v : l.views) CHECK_MESSAGE(views.count(v) == 1, l.id << ": no view called '" << v << "'");
        // A text must not send the learner to lessons the course does not have.
        const std::regex mention(R"(lessons? (\d\d))");
        for (auto it = std::sregex_iterator(text.begin(), text.end(), mention); it != std::sregex_iterator(); ++it) {
            const int n = std::stoi((*it)[1]);
            // Ids keep their numbers (a lesson still to be written leaves a gap): the number must be a lesson's.
            bool exists = false;
            for (const auto& other : course.lessons) exists = exists || std::stoi(other.id.substr(0, 2)) == n;
            CHECK_MESSAGE(exists, l.id << ": mentions lesson " << n);
        }
    }
    CHECK(built_lessons(course.root) == manifest_ids);
    std::set<std::string> registered;
    for (const auto& h : registered_host_sides()) registered.insert(h.id);
    // A program lesson registers with CUDALAB_PROGRAM_LESSON, and only there.
    for (const auto& h : registered_program_host_sides()) {
        CHECK_MESSAGE(registered.insert(h.id).second, h.id << ": registered as a kernel lesson and a program lesson");
        const LessonInfo* l = course.find(h.id);
        CHECK_MESSAGE((l && l->is_program()), h.id << ": registered as a program lesson but the manifest does not say kind = \"program\"");
    }
    CHECK(registered == std::set<std::string>(manifest_ids.begin(), manifest_ids.end()));
}

TEST_CASE("course linter: every solution passes, every exercise fails as shipped") {
    Course course = load();
    compiler::Compiler compiler;
    for (const auto& l : course.lessons) {
        CAPTURE(l.id);
        CheckOptions o;
        o.backend = "emu";
        o.solution = true;
        CheckReport solution = check_lesson(course, l, o, compiler);
        CHECK_MESSAGE(solution.status.ok(), l.id << ": solution could not run: " << solution.status.message);
        CHECK_MESSAGE(solution.passed, l.id << ": the solution fails a check");
        for (const auto& c : solution.checks) CHECK_MESSAGE(c.passed, l.id << ": solution fails '" << c.name << "': " << c.message);

        o.solution = false;
        CheckReport exercise = check_lesson(course, l, o, compiler);
        CHECK_MESSAGE(exercise.status.ok(), l.id << ": the shipped exercise does not compile/run: " << exercise.status.message);
        CHECK_MESSAGE(!exercise.passed, l.id << ": the shipped exercise passes every check");
        for (const auto& c : exercise.checks)
            CHECK_MESSAGE(!c.fault, l.id << ": the shipped exercise faults: " << c.message);

        // Every performance check must be able to fail: on the shipped exercise, or on one of the
        // lesson's known-wrong variants (lessons/ID/wrong/*.cu).
        std::set<std::string> can_fail = performance_checks(exercise, true);
        fs::path wrong_dir = fs::path(course.root) / "lessons" / l.id / "wrong";
        if (fs::exists(wrong_dir))
            for (const auto& entry : fs::directory_iterator(wrong_dir)) {
                CheckOptions w = o;
                w.source_path = entry.path().string();
                CheckReport variant = check_lesson(course, l, w, compiler);
                CHECK_MESSAGE(variant.status.ok(), entry.path() << ": " << variant.status.message);
                for (const auto& name : performance_checks(variant, true)) can_fail.insert(name);
            }
        for (const auto& name : performance_checks(solution, false))
            CHECK_MESSAGE(can_fail.count(name), l.id << ": performance check '" << name
                                                     << "' never fails (not on the exercise, not on lessons/" << l.id
                                                     << "/wrong/*.cu): a check that cannot fail is a defect");
    }
}

TEST_CASE("course linter: a duplicate id or a malformed manifest is reported with the file named") {
    fs::path root = test_support::temp_dir() / "course-dup";
    fs::create_directories(root / "lessons");
    std::ofstream(root / "lessons" / "manifest.toml") << "[[lesson]]\nid = \"01-a\"\ntitle = \"A\"\n\n[[lesson]]\nid = \"01-a\"\ntitle = \"B\"\n";
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
    std::ofstream(root / "lessons" / "manifest.toml") << "[[lesson]]\nid = \"01-threads\"\ntitle = \"A\"\nhints = [\"h\"]\n";
    Course course;
    REQUIRE(load_course(root.string(), &course).ok());
    compiler::Compiler compiler;
    CheckOptions o;
    o.backend = "emu";
    CheckReport r = check_lesson(course, course.lessons[0], o, compiler);
    CHECK_FALSE(r.status.ok());
    CHECK(r.status.message.find("exercises/01-threads.cu") != std::string::npos);
}
