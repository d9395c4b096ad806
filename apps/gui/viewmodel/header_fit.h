// The header's status (the check's chip and a line of detail) in the room left between the lesson
// picker and the action buttons: the longest wording of each that fits, shorter ones after, and
// nothing rather than text under a button. Headless (the measures are passed in) so a test can
// try every width.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace cudalab::viewmodel {

struct HeaderStatus {
    int chip = -1;    // index into the chip's wordings; -1: none fits
    int detail = -1;  // index into the detail's wordings; -1: none shown
    float width = 0;  // what the chosen pieces take, gap included
};

// `chips` and `details`: wordings, longest first. `chip_width` and `detail_width` measure one
// (the chip's includes its padding); `gap`: between chip and detail. The chip is the verdict, so
// it gets the room first: a detail is shown only beside a chip, in the longest wording that fits.
HeaderStatus fit_header_status(const std::vector<std::string>& chips,
                               const std::vector<std::string>& details, float available,
                               const std::function<float(const std::string&)>& chip_width,
                               const std::function<float(const std::string&)>& detail_width,
                               float gap);

}  // namespace cudalab::viewmodel
