#include "lessons/progress.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace cudalab::lessons {

const char* state_name(LessonState s) {
    switch (s) {
    case LessonState::passed: return "passed";
    case LessonState::failed: return "failed";
    default: return "not tried";
    }
}

std::string Progress::default_path() {
    if (const char* p = std::getenv("CUDALAB_STATE"); p && *p) return p;
    if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x) return (fs::path(x) / "cudalab" / "progress.json").string();
    if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".local" / "state" / "cudalab" / "progress.json").string();
    return "cudalab-progress.json";
}

Progress::Progress(std::string path) : path_(std::move(path)) {
    std::ifstream in(path_);
    if (!in) return;
    try {
        nlohmann::json j = nlohmann::json::parse(in);
        for (auto& [id, v] : j.at("lessons").items()) {
            LessonProgress p;
            std::string s = v.value("state", "not tried");
            p.state = s == "passed" ? LessonState::passed : s == "failed" ? LessonState::failed : LessonState::not_tried;
            p.hints_shown = v.value("hints_shown", 0);
            p.last_checked = v.value("last_checked", "");
            lessons_[id] = p;
        }
    } catch (const std::exception&) {
        // A damaged state file is not worth stopping a learner for: start afresh, keep the old one.
        std::error_code ec;
        fs::copy_file(path_, path_ + ".damaged", fs::copy_options::overwrite_existing, ec);
        lessons_.clear();
    }
}

LessonProgress Progress::get(const std::string& id) const {
    auto it = lessons_.find(id);
    return it == lessons_.end() ? LessonProgress{} : it->second;
}

void Progress::record_check(const std::string& id, bool passed) {
    LessonProgress& p = lessons_[id];
    // Once passed, a lesson stays passed: experimenting afterwards should not undo progress.
    if (p.state != LessonState::passed) p.state = passed ? LessonState::passed : LessonState::failed;
    std::time_t now = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    p.last_checked = buf;
}

int Progress::reveal_hint(const std::string& id, int available) {
    LessonProgress& p = lessons_[id];
    int index = std::min(p.hints_shown, std::max(0, available - 1));
    if (p.hints_shown < available) ++p.hints_shown;
    return index;
}

bool Progress::save(std::string* error) const {
    nlohmann::json j;
    j["version"] = 1;
    j["lessons"] = nlohmann::json::object();
    for (const auto& [id, p] : lessons_)
        j["lessons"][id] = {{"state", state_name(p.state)}, {"hints_shown", p.hints_shown}, {"last_checked", p.last_checked}};
    return write_file_atomically(path_, j.dump(2) + "\n", error);
}

bool write_file_atomically(const std::string& path, const std::string& contents, std::string* error) {
    std::error_code ec;
    fs::path target(path);
    if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
    std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) { if (error) *error = "cannot write " + tmp; return false; }
        out << contents;
        out.flush();
        if (!out) { if (error) *error = "cannot write " + tmp; fs::remove(tmp, ec); return false; }
    }
    fs::rename(tmp, target, ec);
    if (ec) { if (error) *error = "cannot replace " + path + ": " + ec.message(); fs::remove(tmp, ec); return false; }
    return true;
}

}  // namespace cudalab::lessons
