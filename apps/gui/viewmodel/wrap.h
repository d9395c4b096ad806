// Line breaking that knows Chinese: a text wraps at spaces, and also between two Chinese
// characters (Chinese puts no spaces between words), never before closing punctuation such as
// "，" or "。" and never after opening punctuation such as "（" or "“". Headless (the measure is
// passed in), so the tests check it without a window.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace cudalab::viewmodel {

// Is the code point a Chinese/Japanese/Korean character or full-width form (one that may stand
// on either side of a line break)?
bool is_cjk(char32_t c);

// The end of the piece of text that starts at `p` and must stay on one line: a run of
// characters up to the next space or Chinese character, or one Chinese character together with
// the closing punctuation after it (and an opening punctuation mark together with what follows).
// Spaces are not part of a piece. Never returns p when p < end.
const char* unit_end(const char* p, const char* end);

// `text` in lines no wider than `width` by `measure` (a piece wider than that gets a line of
// its own); '\n' ends a line. Spaces at a break are dropped.
std::vector<std::string> wrap_text(const std::string& text, float width,
                                   const std::function<float(const char*, const char*)>& measure);

}  // namespace cudalab::viewmodel
