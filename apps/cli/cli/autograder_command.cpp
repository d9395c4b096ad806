// `cudalab autograder gradescope`: writes the zip itself (stored entries, no compression library
// needed; the sources are a few MB), so the bundle is the same on every machine that makes it.

#include "cli/autograder_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;
using namespace cudalab;

namespace cli {

namespace {

std::uint32_t crc32(const std::string& data) {
    static std::uint32_t table[256];
    static bool made = false;
    if (!made) {
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        made = true;
    }
    std::uint32_t c = 0xFFFFFFFFu;
    for (unsigned char b : data) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

// A zip archive of stored entries (APPNOTE 6.3: local headers, central directory, end record).
class Zip {
  public:
    void add(const std::string& name, const std::string& data, bool executable) {
        Entry e{name, crc32(data), std::uint32_t(data.size()), std::uint32_t(out_.size()),
                executable};
        put32(0x04034b50);
        header(e);
        out_ += name;
        out_ += data;
        entries_.push_back(e);
    }
    std::string finish() {
        const std::uint32_t start = std::uint32_t(out_.size());
        for (const auto& e : entries_) {
            put32(0x02014b50);
            put16(3 << 8 | 20);  // made by: Unix (the permissions below are read), zip 2.0
            header(e);
            put16(0);  // comment
            put16(0);  // disk
            put16(0);  // internal attributes
            put32(std::uint32_t(e.executable ? 0100755 : 0100644) << 16);
            put32(e.offset);
            out_ += e.name;
        }
        const std::uint32_t size = std::uint32_t(out_.size()) - start;
        put32(0x06054b50);
        put16(0);
        put16(0);
        put16(std::uint16_t(entries_.size()));
        put16(std::uint16_t(entries_.size()));
        put32(size);
        put32(start);
        put16(0);
        return out_;
    }
    std::size_t size() const { return out_.size(); }
    std::size_t count() const { return entries_.size(); }

  private:
    struct Entry {
        std::string name;
        std::uint32_t crc, size, offset;
        bool executable;
    };
    void put16(std::uint16_t v) {
        out_ += char(v & 0xFF);
        out_ += char(v >> 8);
    }
    void put32(std::uint32_t v) {
        put16(std::uint16_t(v & 0xFFFF));
        put16(std::uint16_t(v >> 16));
    }
    void header(const Entry& e) {
        put16(20);          // version needed
        put16(0x0800);      // names in UTF-8
        put16(0);           // stored
        put16(0);           // time 00:00
        put16(1 << 5 | 1);  // date 1980-01-01: the same bytes from the same files
        put32(e.crc);
        put32(e.size);
        put32(e.size);
        put16(std::uint16_t(e.name.size()));
        put16(0);
    }
    std::string out_;
    std::vector<Entry> entries_;
};

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Every regular file under `dir` (links, hidden entries and build folders left out), sorted.
bool add_tree(Zip& zip, const fs::path& dir, const std::string& prefix, std::string* error) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name[0] == '.' || name == "build" || name == "__pycache__" || it->is_symlink(ec)) {
            if (it->is_directory(ec)) it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file(ec)) files.push_back(it->path());
    }
    if (ec) {
        *error = dir.string() + ": " + ec.message();
        return false;
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        struct stat st;
        const bool exec = ::stat(f.c_str(), &st) == 0 && (st.st_mode & 0100);
        zip.add(prefix + fs::relative(f, dir).generic_string(), read_file(f), exec);
    }
    return true;
}

}  // namespace

void add_autograder_options(CLI::App* cmd, AutograderArgs& a) {
    cmd->add_option("platform", a.platform, "the grading platform: gradescope")
        ->required()
        ->check(CLI::IsMember({"gradescope"}));
    cmd->add_option("--lessons", a.lessons, "lessons the assignment grades, ID,ID,...")->required();
    cmd->add_option("-o,--output", a.output, "the zip to write (default autograder.zip)");
}

int run_autograder(const lessons::Course& course, const AutograderArgs& a) {
    std::vector<std::string> ids;
    {
        std::string cur;
        for (char c : a.lessons + ",") {
            if (c != ',') {
                if (c != ' ') cur += c;
                continue;
            }
            if (cur.empty()) continue;
            if (!course.find(cur)) {
                std::cerr << "cudalab: --lessons: no lesson '" << cur
                          << "' (the lessons: " << course.ids() << ")\n";
                return 2;
            }
            if (std::find(ids.begin(), ids.end(), cur) == ids.end()) ids.push_back(cur);
            cur.clear();
        }
    }
    if (ids.empty()) {
        std::cerr << "cudalab: --lessons names no lesson\n";
        return 2;
    }
    const fs::path source = CUDALAB_SOURCE_DIR;
    const fs::path templates = source / "scripts" / "autograder" / "gradescope";
    std::error_code ec;
    for (const char* f : {"setup.sh", "run_autograder"})
        if (!fs::is_regular_file(templates / f, ec)) {
            std::cerr
                << "cudalab: " << (templates / f).string()
                << " is missing: the bundle is made from the sources cudalab was built from\n";
            return 2;
        }
    Zip zip;
    zip.add("setup.sh", read_file(templates / "setup.sh"), true);
    zip.add("run_autograder", read_file(templates / "run_autograder"), true);
    std::string list;
    for (const auto& id : ids) list += (list.empty() ? "" : ",") + id;
    zip.add("lessons.txt", list + "\n", false);
    std::string error;
    // The sources setup.sh builds (no tests, benchmarks or docs: the grader needs the CLI only).
    for (const char* f : {"CMakeLists.txt", "README.md"})
        zip.add(std::string("cudalab/") + f, read_file(source / f), false);
    for (const char* d :
         {"cmake", "engine", "apps", "lessons", "exercises", "solutions", "assets", "scripts"})
        if (fs::is_directory(source / d, ec) &&
            !add_tree(zip, source / d, std::string("cudalab/") + d + "/", &error)) {
            std::cerr << "cudalab: " << error << "\n";
            return 2;
        }
    // A course of its own (cudalab --course DIR): shipped beside the sources, graded from there.
    const bool own_course =
        fs::weakly_canonical(course.root, ec) != fs::weakly_canonical(source, ec);
    if (own_course && !add_tree(zip, course.root, "course/", &error)) {
        std::cerr << "cudalab: " << error << "\n";
        return 2;
    }
    if (zip.count() >= 0xFFFF) {
        std::cerr << "cudalab: too many files for a zip without ZIP64\n";
        return 2;
    }
    const std::string bytes = zip.finish();
    if (fs::path(a.output).has_parent_path())
        fs::create_directories(fs::path(a.output).parent_path(), ec);
    std::ofstream out(a.output, std::ios::binary | std::ios::trunc);
    out << bytes;
    out.close();
    if (!out) {
        std::cerr << "cudalab: cannot write " << a.output << "\n";
        return 2;
    }
    std::cout << "wrote " << a.output << " (" << zip.count() << " files, " << bytes.size() / 1024
              << " KB): Gradescope autograder for " << list
              << (own_course ? " (course from " + course.root + ")" : "")
              << ".\nUpload it under Configure Autograder, on the Ubuntu 24.04 base image "
                 "(docs/instructors.md).\n";
    return 0;
}

}  // namespace cli
