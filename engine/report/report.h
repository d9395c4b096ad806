// Check reports for people (text) and for graders (JSON, JUnit XML, Gradescope results.json).
// The JSON shape is a contract course scripts depend on:
//   {"lesson", "passed", "backend", "checks": [{"name", "kind", "passed", "value", "threshold",
//    "message"}], ...} — extra fields may be added, none removed or renamed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lessons/course.h"

namespace cudalab::report {

struct TextStyle {
    bool color = false;
    bool verbose = false;  // every check's message, not only failures'
};

std::string text(const lessons::CheckReport& r, const TextStyle& style = {});
std::string text_summary(const std::vector<lessons::CheckReport>& reports,
                         const TextStyle& style = {});
nlohmann::json json(const lessons::CheckReport& r);
// One launch of a report (`index`, 0-based): its shape, the checks that measured it and its
// figures per source line of `source` (the file checked), as the app's code gutter shows them.
std::string launch_text(const lessons::CheckReport& r, int index, const std::string& source,
                        const TextStyle& style = {});
std::string junit(const std::vector<lessons::CheckReport>& reports);
nlohmann::json gradescope(const std::vector<lessons::CheckReport>& reports);

}  // namespace cudalab::report
